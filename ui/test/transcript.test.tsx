// The transcript: backwards paging, jumping to a message, keyboard, and memory citations.
import { fireEvent, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { installFakeBackend, memory } from "./fakeBackend";
import { session, transcript } from "./fakeSessions";
import { openFirstListedSession, renderApp, settle, tick, useFakeClock } from "./render";

beforeEach(() => useFakeClock());

async function openTranscript(count: number, hitText?: string) {
  const backend = installFakeBackend({
    sessions: { sessions: [session(1, { messageCount: count })], transcripts: { ses_1: transcript(count, (i) => (i === 5 && hitText ? hitText : `Message ${i}\nsecond line`)) } },
  });
  const app = renderApp();
  await settle();
  await app.user.click(screen.getByRole("button", { name: "Sessions" }));
  await settle();
  return { app, backend };
}

const renderedIndexes = () =>
  Array.from(document.querySelectorAll<HTMLElement>("[data-message-index]"), (el) => Number(el.dataset.messageIndex));

describe("transcript", () => {
  it("opens the session, reads the last 30, shows role, time and text with line breaks", async () => {
    const { app, backend } = await openTranscript(100);
    await openFirstListedSession(app);
    expect(backend.calls.map((c) => c.cmd).filter((c) => c === "open_session" || c === "read_transcript")).toEqual([
      "open_session",
      "read_transcript",
    ]);
    expect(backend.callsOf("read_transcript")[0]).toEqual({ sessionId: "ses_1", count: 30 });
    expect(renderedIndexes()).toContain(99);
    const last = document.querySelector('[data-message-index="99"]') as HTMLElement;
    expect(last.querySelector(".message-role")!.textContent).toBe("Agent");
    expect(last.querySelector(".message-text")!.textContent).toBe("Message 99\nsecond line");
    expect(last.querySelector("time")!.getAttribute("datetime")).toBe("2026-01-01T01:39:00.000Z");
  });

  it("pages backwards with before as the person scrolls up", async () => {
    const { app, backend } = await openTranscript(100);
    await openFirstListedSession(app);
    const scroller = screen.getByRole("region", { name: "Transcript" });
    scroller.scrollTop = 0;
    fireEvent.scroll(scroller);
    await settle();
    expect(backend.callsOf("read_transcript")[1]).toEqual({ sessionId: "ses_1", count: 30, before: 70 });
    scroller.scrollTop = 0;
    fireEvent.scroll(scroller);
    await settle();
    expect(backend.callsOf("read_transcript")[2]).toEqual({ sessionId: "ses_1", count: 30, before: 40 });
  });

  it("a search hit opens the transcript at that message: pages load until it is there, highlighted and focused", async () => {
    const { app, backend } = await openTranscript(100, "the needle");
    await app.user.type(screen.getByRole("searchbox", { name: "Search messages" }), "needle");
    await tick(300);
    await settle();
    await app.user.click(within(screen.getByRole("list", { name: "Messages found" })).getByRole("button"));
    await settle();
    await settle();
    expect(backend.callsOf("read_transcript").map((a) => a.before)).toEqual([undefined, 70, 40, 10]);
    const target = document.querySelector('[data-message-index="5"]') as HTMLElement;
    expect(target).not.toBeNull();
    expect(target.getAttribute("aria-current")).toBe("true");
    expect(target.classList.contains("message-highlight")).toBe(true);
    expect(document.activeElement).toBe(target);
  });

  it("keyboard: j/k and arrows move, Enter opens Remember, Escape goes back to the list", async () => {
    const { app } = await openTranscript(10);
    await openFirstListedSession(app);
    const last = document.querySelector('[data-message-index="9"]') as HTMLElement;
    expect(last.tabIndex).toBe(0);
    last.focus();
    await app.user.keyboard("k");
    await settle();
    expect((document.activeElement as HTMLElement).dataset.messageIndex).toBe("8");
    await app.user.keyboard("{ArrowUp}{ArrowUp}");
    await settle();
    expect((document.activeElement as HTMLElement).dataset.messageIndex).toBe("6");
    await app.user.keyboard("j");
    await settle();
    expect((document.activeElement as HTMLElement).dataset.messageIndex).toBe("7");
    await app.user.keyboard("{ArrowDown}");
    await settle();
    expect((document.activeElement as HTMLElement).dataset.messageIndex).toBe("8");
    await app.user.keyboard("{Enter}");
    await tick(50);
    const dialog = screen.getByRole("dialog", { name: "Remember…" });
    expect((within(dialog).getByLabelText("Memory") as HTMLTextAreaElement).value).toBe("Message 8\nsecond line");
    await app.user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await tick(50);
    (document.querySelector('[data-message-index="8"]') as HTMLElement).focus();
    await app.user.keyboard("{Escape}");
    await settle();
    expect(screen.queryByRole("region", { name: "Transcript" })).toBeNull();
    expect(document.activeElement).toBe(within(screen.getByRole("list", { name: "Sessions" })).getByRole("button"));
  });

  it("session_not_found: an error with the message", async () => {
    const { app, backend } = await openTranscript(3);
    backend.sessionData.sessions = [];
    await openFirstListedSession(app);
    expect(within(screen.getByRole("alert")).getByText("Could not open the session")).not.toBeNull();
    expect(screen.getByText("No session ses_1")).not.toBeNull();
  });
});

describe("memory citations", () => {
  const cited = (conversationId: string) =>
    memory(1, {
      content: "Prefers tabs",
      contexts: [{ id: "c1", snippet: "tabs", citation: { conversationId, messageId: "msg_3" }, origin: "searched_conversation", createdAt: "2026-01-01T00:00:00Z" }],
    });

  it("a citation of a session on this machine opens its transcript at the cited message", async () => {
    const backend = installFakeBackend({
      memories: [cited("ses_1")],
      sessions: { sessions: [session(1)], transcripts: { ses_1: transcript(50) } },
    });
    const app = renderApp();
    await settle();
    const link = screen.getByRole("button", { name: "Open the cited message of session ses_1" });
    // Checking a citation does not open the session (find_session has no side effect).
    expect(backend.callsOf("find_session")).toEqual([{ sessionId: "ses_1" }]);
    expect(backend.callsOf("open_session")).toEqual([]);
    await app.user.click(link);
    await settle();
    await settle();
    expect(screen.getByRole("button", { name: "Sessions" }).getAttribute("aria-current")).toBe("page");
    expect(backend.callsOf("read_transcript").map((a) => a.before)).toEqual([undefined, 20]);
    const target = document.querySelector('[data-message-index="3"]') as HTMLElement;
    expect(target.getAttribute("aria-current")).toBe("true");
  });

  it("session_not_found leaves the citation as plain text", async () => {
    const backend = installFakeBackend({ memories: [cited("ses_gone")], sessions: { sessions: [], transcripts: {} } });
    renderApp();
    await settle();
    expect(backend.callsOf("find_session")).toEqual([{ sessionId: "ses_gone" }]);
    expect(screen.queryByRole("button", { name: /Open the cited message/ })).toBeNull();
    expect(screen.getByText(/session ses_gone, message msg_3/)).not.toBeNull();
  });
});
