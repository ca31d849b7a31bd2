// Sessions kept after their tool deleted them: the "Archived" badge (list and transcript),
// the Kept filter, Forget… with its confirmation, and Settings → Session history.
import { screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { installFakeBackend } from "./fakeBackend";
import { session, transcript } from "./fakeSessions";
import { renderApp, settle, showSessions, tick, useFakeClock } from "./render";

beforeEach(() => useFakeClock());

const gone = session(1, { title: "Deleted by its tool", archived: true, archivedAt: "2026-01-05T10:00:00Z" });
const live = session(2, { title: "Still on disk" });

async function openSessions() {
  const backend = installFakeBackend({
    sessions: { sessions: [gone, live], transcripts: { ses_1: transcript(2), ses_2: transcript(2) } },
  });
  const app = renderApp();
  await settle();
  await showSessions(app);
  return { app, backend };
}

const row = (title: string) => screen.getByText(title, { selector: ".session-title" }).closest("button") as HTMLElement;

describe("archived sessions", () => {
  it("are listed with the day their original was removed, and the Kept filter narrows the list", async () => {
    const { app, backend } = await openSessions();
    expect(within(row("Deleted by its tool")).getByText("Archived: the original was removed on Jan 5, 2026")).not.toBeNull();
    expect(within(row("Still on disk")).queryByText(/Archived/)).toBeNull();
    await app.user.selectOptions(screen.getByLabelText("Kept"), "Archived only");
    await settle();
    expect(backend.callsOf("list_sessions").at(-1)).toMatchObject({ status: "archived" });
    expect(screen.queryByText("Still on disk", { selector: ".session-title" })).toBeNull();
    expect(row("Deleted by its tool")).not.toBeNull();
    await app.user.selectOptions(screen.getByLabelText("Kept"), "Still in their tool");
    await settle();
    expect(backend.callsOf("list_sessions").at(-1)).toMatchObject({ status: "live" });
    expect(screen.queryByText("Deleted by its tool", { selector: ".session-title" })).toBeNull();
  });

  it("Forget… asks first (Keep it focused), then removes the session and goes back to the list", async () => {
    const { app, backend } = await openSessions();
    await app.user.click(row("Deleted by its tool"));
    await tick(50);
    await settle();
    expect(screen.getByText("Archived: the original was removed on Jan 5, 2026")).not.toBeNull();
    await app.user.click(screen.getByRole("button", { name: "Forget this session" }));
    await settle();
    const dialog = screen.getByRole("alertdialog", { name: "Forget this session?" });
    expect(document.activeElement).toBe(within(dialog).getByRole("button", { name: "Keep it" }));
    await app.user.click(within(dialog).getByRole("button", { name: "Keep it" }));
    await settle();
    expect(backend.callsOf("forget_session")).toEqual([]);
    await app.user.click(screen.getByRole("button", { name: "Forget this session" }));
    await settle();
    await app.user.click(within(screen.getByRole("alertdialog")).getByRole("button", { name: "Forget session" }));
    await settle();
    expect(backend.callsOf("forget_session")).toEqual([{ sessionId: "ses_1", source: gone.source }]);
    expect(screen.getByText("Session forgotten")).not.toBeNull();
    expect(screen.queryByText("Deleted by its tool", { selector: ".session-title" })).toBeNull();
    expect(row("Still on disk")).not.toBeNull();
  });
});

describe("Settings → Session history", () => {
  it("keeps sessions by default and turns it off in one click", async () => {
    const backend = installFakeBackend();
    const app = renderApp();
    await settle();
    await app.user.click(screen.getByRole("button", { name: "Account settings" }));
    await settle();
    const keep = screen.getByRole("checkbox", { name: "Keep sessions after the tool deletes them" }) as HTMLInputElement;
    expect(keep.checked).toBe(true);
    await app.user.click(keep);
    await settle();
    expect(backend.callsOf("set_prefs")).toEqual([{ keepArchivedSessions: false }]);
    expect(keep.checked).toBe(false);
  });
});
