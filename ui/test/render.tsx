// Mounts the real app (same providers as main.tsx) over a fake backend, plus helpers
// for driving it on fake timers.
import { act, render, screen, within } from "@testing-library/react";
import userEvent, { PointerEventsCheckLevel } from "@testing-library/user-event";
import { vi } from "vitest";
import { App } from "../src/app/App";
import { createQueryClient, Providers } from "../src/app/Providers";
import { createI18n } from "../src/i18n";

/** The clocks the delete rules are about; microtasks stay real so promises resolve. */
export function useFakeClock() {
  vi.useFakeTimers({
    toFake: [
      "setTimeout",
      "clearTimeout",
      "setInterval",
      "clearInterval",
      "Date",
      "requestAnimationFrame",
      "cancelAnimationFrame",
    ],
  });
}

export function renderApp() {
  const client = createQueryClient();
  const i18n = createI18n();
  // No pauses between user-event's steps: under fake timers they would never end, and
  // the clock must only move when a test says so. The pointer-events check walks
  // getComputedStyle up the tree on every click, which is slow in jsdom and meaningless
  // without real CSS.
  const user = userEvent.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });
  const result = render(
    <Providers client={client} i18n={i18n}>
      <App />
    </Providers>,
  );
  return { ...result, client, i18n, user };
}

/** Moves the fake clock by `ms`, letting IPC promises and React updates finish. */
export async function tick(ms = 0) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

/** Lets pending promises settle without moving the clock. */
export async function settle() {
  for (let i = 0; i < 5; i++) await tick(0);
}

type RenderedApp = ReturnType<typeof renderApp>;

/** Switches to the Sessions view and lets its list load. */
export async function showSessions(app: RenderedApp) {
  await app.user.click(screen.getByRole("button", { name: "Sessions" }));
  await settle();
}

/** Opens the first listed session and lets its transcript load. */
export async function openFirstListedSession(app: RenderedApp) {
  await app.user.click(within(screen.getByRole("list", { name: "Sessions" })).getByRole("button"));
  await tick(50);
  await settle();
}

export function rowTitles(): string[] {
  return Array.from(document.querySelectorAll(".row-title"), (node) => node.textContent ?? "");
}

export function rowFor(content: string): HTMLElement {
  const title = screen.getByText(content, { selector: ".row-title" });
  return title.closest("article") as HTMLElement;
}

export function deleteButton(content: string): HTMLElement {
  return within(rowFor(content)).getByRole("button", { name: "Delete memory" });
}

/** Mounts `ui` inside the app's providers (i18n, toasts, query cache), without the app. */
export function renderInProviders(ui: React.ReactNode) {
  const client = createQueryClient();
  const i18n = createI18n();
  const user = userEvent.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });
  const result = render(
    <Providers client={client} i18n={i18n}>
      {ui}
    </Providers>,
  );
  return { ...result, client, i18n, user };
}
