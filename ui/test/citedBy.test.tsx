// Memories and their sessions, both ways: a session's transcript marks the messages that
// memories cite ("Remembered", the memory's text on hover and focus), its header counts
// them, and a marker opens that memory alone in the panel.
import { screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { installFakeBackend, memory } from "./fakeBackend";
import { session, transcript } from "./fakeSessions";
import { openFirstListedSession, renderApp, settle, showSessions, useFakeClock } from "./render";

beforeEach(() => useFakeClock());

const cite = (n: number, content: string, sessionId: string, messageId: string) =>
  memory(n, {
    content,
    contexts: [
      { id: `ctx_${n}`, snippet: "said there", citation: { conversationId: sessionId, messageId }, origin: "searched_conversation", createdAt: "2026-01-01T00:00:00Z" },
    ],
  });

async function openSession() {
  const backend = installFakeBackend({
    memories: [
      cite(1, "Deploys happen on Tuesdays", "ses_1", "msg_2"),
      cite(2, "The staging host is blue", "ses_1", "msg_2"),
      cite(3, "From another session", "ses_9", "msg_2"),
      memory(4, { content: "Cites nothing" }),
    ],
    sessions: { sessions: [session(1)], transcripts: { ses_1: transcript(4) } },
  });
  const app = renderApp();
  await settle();
  await showSessions(app);
  await openFirstListedSession(app);
  return { app, backend };
}

const message = (index: number) => document.querySelector(`[data-message-index="${index}"]`) as HTMLElement;

describe("memories that cite a session", () => {
  it("mark the messages they cite, with the memory's text on focus, and are counted on the header", async () => {
    const { backend } = await openSession();
    expect(backend.callsOf("memories_citing")).toEqual([{ orgId: "org_a", sessionId: "ses_1" }]);
    const markers = within(message(2)).getAllByRole("button", { name: /^Remembered: / });
    expect(markers.map((m) => m.getAttribute("aria-label"))).toEqual([
      "Remembered: “Deploys happen on Tuesdays”. Open it in Memories",
      "Remembered: “The staging host is blue”. Open it in Memories",
    ]);
    expect(within(message(1)).queryByRole("button", { name: /^Remembered/ })).toBeNull();
    markers[0].focus();
    const tip = document.getElementById(markers[0].getAttribute("aria-describedby")!)!;
    expect(tip.getAttribute("role")).toBe("tooltip");
    expect(tip.textContent).toBe("Deploys happen on Tuesdays");
    expect(screen.getByText("2 memories cite this session")).not.toBeNull();
    expect(screen.queryByText("From another session")).toBeNull();
  });

  it("a marker opens that memory alone in the panel, and Show all brings the list back", async () => {
    const { app } = await openSession();
    await app.user.click(within(message(2)).getAllByRole("button", { name: /^Remembered: / })[1]);
    await settle();
    expect(screen.getByText("A memory that cites this session.")).not.toBeNull();
    const titles = Array.from(document.querySelectorAll(".row-title"), (n) => n.textContent);
    expect(titles).toEqual(["The staging host is blue"]);
    await app.user.click(screen.getByRole("button", { name: "Show all memories" }));
    await settle();
    expect(Array.from(document.querySelectorAll(".row-title"), (n) => n.textContent)).toHaveLength(4);
  });

  it("a memory saved from the transcript marks its message at once", async () => {
    const { app } = await openSession();
    expect(within(message(3)).queryByRole("button", { name: /^Remembered/ })).toBeNull();
    await app.user.click(within(message(3)).getByRole("button", { name: "Remember this message" }));
    await settle();
    await app.user.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Save" }));
    await settle();
    expect(within(message(3)).getByRole("button", { name: "Remembered: “Message 3”. Open it in Memories" })).not.toBeNull();
  });
});
