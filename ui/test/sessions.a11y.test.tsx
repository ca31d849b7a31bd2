// axe-core on every new Sessions screen: list, empty, error, transcript, and the
// Remember dialog with its secret warning. (color-contrast needs real layout.)
import { screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { installFakeBackend, type FakeBackend } from "./fakeBackend";
import { activity, session, transcript, type SessionData } from "./fakeSessions";
import { renderApp, settle, tick, useFakeClock } from "./render";
import { expectNoViolations } from "./axe";

const data = (): SessionData => ({
  sessions: [1, 2, 3, 4].map((n) => session(n, n === 1 ? { title: "<img src=x onerror=alert(1)>" } : {})),
  transcripts: { ses_1: transcript(40, (i) => (i === 39 ? "token ghp_0123456789abcdefghijABCDEFGHIJ0123" : `Message ${i}`)) },
  total: 12,
  activity: { ses_1: activity({ 37: ["Read", "Bash", "Bash", "Edit", "Grep", "Glob", "Write"], 38: ["<b>Read</b>"] }) },
});

async function sessions(setup?: (backend: FakeBackend) => void, sessionData = data()) {
  const backend = installFakeBackend({ sessions: sessionData });
  setup?.(backend);
  const app = renderApp();
  await settle();
  await app.user.click(screen.getByRole("button", { name: "Sessions" }));
  await settle();
  return app;
}

beforeEach(() => useFakeClock());

describe("accessibility of Sessions (axe)", () => {
  it("list, capped, with filters", async () => {
    await sessions();
    expect(screen.getByText("Showing 4 of 12")).not.toBeNull();
    await expectNoViolations();
  });

  it("empty", async () => {
    await sessions(undefined, { sessions: [], transcripts: {} });
    expect(screen.getByRole("heading", { name: "No sessions found" })).not.toBeNull();
    await expectNoViolations();
  });

  it("error", async () => {
    await sessions((backend) => (backend.sessionsError = { code: "index", message: "Index unavailable" }));
    expect(screen.getByRole("alert")).not.toBeNull();
    await expectNoViolations();
  });

  it("search hits", async () => {
    const app = await sessions();
    await app.user.type(screen.getByRole("searchbox", { name: "Search messages" }), "Message 3");
    await tick(300);
    await settle();
    expect(screen.getByRole("list", { name: "Messages found" })).not.toBeNull();
    await expectNoViolations();
  });

  it("transcript", async () => {
    const app = await sessions();
    await app.user.click(within(screen.getByRole("list", { name: "Sessions" })).getAllByRole("button")[0]);
    await tick(50);
    await settle();
    expect(screen.getByRole("region", { name: "Transcript" })).not.toBeNull();
    await expectNoViolations();
  });

  it("transcript with tool activity expanded", async () => {
    const app = await sessions();
    await app.user.click(within(screen.getByRole("list", { name: "Sessions" })).getAllByRole("button")[0]);
    await tick(50);
    await settle();
    const toggle = screen.getByRole("button", { name: "7 tool calls · Read, Bash ×2, Edit, Grep, Glob, …" });
    await app.user.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    expect(within(screen.getByRole("list", { name: "Tool calls, in order" })).getAllByRole("listitem")).toHaveLength(7);
    expect(screen.getByRole("button", { name: "1 tool call · <b>Read</b>" }).getAttribute("aria-expanded")).toBe("false");
    await expectNoViolations();
  });

  it("Remember dialog with a secret warning", async () => {
    const app = await sessions();
    await app.user.click(within(screen.getByRole("list", { name: "Sessions" })).getAllByRole("button")[0]);
    await tick(50);
    await settle();
    const last = document.querySelector('[data-message-index="39"]') as HTMLElement;
    await app.user.click(within(last).getByRole("button", { name: "Remember this message" }));
    await tick(50);
    const dialog = screen.getByRole("dialog", { name: "Remember…" });
    expect(within(dialog).getByRole("alert").querySelector("mark")).not.toBeNull();
    await expectNoViolations();
  });
});
