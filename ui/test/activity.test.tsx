// Tool activity in the transcript: session_activity per loaded page, shown collapsed
// under the message it followed, expandable by mouse and keyboard.
import { fireEvent, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolActivity } from "../src/ipc";
import { installFakeBackend } from "./fakeBackend";
import { activity, session, transcript } from "./fakeSessions";
import { openFirstListedSession, renderApp, settle, showSessions, tick, useFakeClock } from "./render";
import { ROW_PX } from "./setup";

beforeEach(() => useFakeClock());

async function openTranscript(count: number, tools: ToolActivity[], setup?: (backend: ReturnType<typeof installFakeBackend>) => void) {
  const backend = installFakeBackend({
    sessions: {
      sessions: [session(1, { messageCount: count })],
      transcripts: { ses_1: transcript(count) },
      activity: { ses_1: tools },
    },
  });
  setup?.(backend);
  const app = renderApp();
  await settle();
  await showSessions(app);
  await openFirstListedSession(app);
  return { app, backend };
}

const disclosure = (afterIndex: number) => document.querySelector<HTMLElement>(`[data-activity-after="${afterIndex}"]`);
const toggle = (afterIndex: number) => within(disclosure(afterIndex)!).getByRole("button");
const listed = (afterIndex: number) =>
  within(disclosure(afterIndex)!)
    .queryAllByRole("listitem")
    .map((li) => li.textContent);
const renderedIndexes = () =>
  Array.from(document.querySelectorAll<HTMLElement>("[data-message-index]"), (el) => Number(el.dataset.messageIndex));
const message = (index: number) => document.querySelector<HTMLElement>(`[data-message-index="${index}"]`)!;
const rowOf = (element: Element) => element.closest(".list-item");
const follows = (a: Element, b: Element) => Boolean(b.compareDocumentPosition(a) & Node.DOCUMENT_POSITION_FOLLOWING);

describe("tool activity", () => {
  it("asks for the page's range and shows a collapsed summary under the message it followed", async () => {
    const { backend } = await openTranscript(
      10,
      activity({ 3: ["Read", "Bash", "Bash", "Edit"], 5: ["Read"], 7: ["A", "B", "A", "C", "D", "E", "F"] }),
    );
    expect(backend.callsOf("session_activity")).toEqual([{ sessionId: "ses_1", fromIndex: 0, toIndex: 9 }]);

    const button = toggle(3);
    expect(button.textContent).toBe("▸4 tool calls · Read, Bash ×2, Edit");
    expect(screen.getByRole("button", { name: "4 tool calls · Read, Bash ×2, Edit" })).toBe(button);
    expect(button.getAttribute("aria-expanded")).toBe("false");
    expect(listed(3)).toEqual([]);
    // In the row of message 3, right after it, and not part of the message itself.
    expect(rowOf(button)).toBe(rowOf(message(3)));
    expect(follows(button, message(3))).toBe(true);
    expect(message(3).contains(button)).toBe(false);

    expect(toggle(5).textContent).toBe("▸1 tool call · Read");
    // Six distinct names: the first five, then "…".
    expect(toggle(7).textContent).toBe("▸7 tool calls · A ×2, B, C, D, E, …");
    expect(document.querySelectorAll(".activity")).toHaveLength(3);
  });

  it("in Chinese", async () => {
    installFakeBackend({
      state: { prefs: { language: "zh-CN" } },
      sessions: {
        sessions: [session(1, { messageCount: 6 })],
        transcripts: { ses_1: transcript(6) },
        activity: { ses_1: activity({ 2: ["Read", "Bash", "Bash"], 4: ["Edit"] }) },
      },
    });
    const app = renderApp();
    await settle();
    await app.user.click(screen.getByRole("button", { name: "会话" }));
    await settle();
    await app.user.click(within(screen.getByRole("list", { name: "会话" })).getByRole("button"));
    await tick(50);
    await settle();
    expect(toggle(2).textContent).toBe("▸3 次工具调用 · Read、Bash ×2");
    expect(toggle(4).textContent).toBe("▸1 次工具调用 · Edit");
    await app.user.click(toggle(2));
    expect(screen.getByRole("list", { name: "工具调用（按顺序）" })).not.toBeNull();
  });

  it("expands to the full ordered list by mouse and by keyboard, and collapses again", async () => {
    const { app } = await openTranscript(10, activity({ 3: ["Read", "Bash", "Read", "Edit", "Bash"] }));
    const button = toggle(3);

    await app.user.click(button);
    expect(button.getAttribute("aria-expanded")).toBe("true");
    const list = screen.getByRole("list", { name: "Tool calls, in order" });
    expect(button.getAttribute("aria-controls")).toBe(list.id);
    expect(listed(3)).toEqual(["Read", "Bash", "Read", "Edit", "Bash"]);
    await app.user.click(button);
    expect(button.getAttribute("aria-expanded")).toBe("false");
    expect(listed(3)).toEqual([]);

    button.focus();
    await app.user.keyboard("{Enter}");
    expect(toggle(3).getAttribute("aria-expanded")).toBe("true");
    expect(listed(3)).toEqual(["Read", "Bash", "Read", "Edit", "Bash"]);
    // Enter on the disclosure is the disclosure's, not "Remember…".
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(document.activeElement).toBe(toggle(3));
    await app.user.keyboard(" ");
    expect(toggle(3).getAttribute("aria-expanded")).toBe("false");
    expect(listed(3)).toEqual([]);
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("keeps message navigation and Enter-remembers working around it", async () => {
    const { app } = await openTranscript(10, activity({ 8: ["Read"], 9: ["Bash"] }));
    await app.user.click(toggle(8));
    message(9).focus();
    await app.user.keyboard("k");
    await settle();
    expect(document.activeElement).toBe(message(8));
    await app.user.keyboard("k");
    await settle();
    expect(document.activeElement).toBe(message(7));
    await app.user.keyboard("j");
    await settle();
    expect(document.activeElement).toBe(message(8));
    await app.user.keyboard("{Enter}");
    await tick(50);
    const dialog = screen.getByRole("dialog", { name: "Remember…" });
    expect((within(dialog).getByLabelText("Memory") as HTMLTextAreaElement).value).toBe("Message 8");
    expect(disclosure(8)!.querySelector("button")!.getAttribute("aria-expanded")).toBe("true");
  });

  it("shows activity before the first message above it", async () => {
    await openTranscript(4, activity({ [-1]: ["Glob", "Read"] }));
    const button = toggle(-1);
    expect(button.textContent).toBe("▸2 tool calls · Glob, Read");
    expect(rowOf(button)).toBe(rowOf(message(0)));
    expect(follows(message(0), button)).toBe(true);
  });

  it("an older page loaded by scrolling up gets the activity of its range", async () => {
    const { backend } = await openTranscript(100, activity({ [-1]: ["Glob"], 5: ["Grep"], 69: ["Edit"], 80: ["Read"] }));
    expect(backend.callsOf("session_activity")).toEqual([{ sessionId: "ses_1", fromIndex: 70, toIndex: 99 }]);
    const scroller = screen.getByRole("region", { name: "Transcript" });
    scroller.scrollTop = 0;
    fireEvent.scroll(scroller);
    await settle();
    expect(backend.callsOf("read_transcript")[1]).toMatchObject({ before: 70 });
    // Each page read gets its range asked once (here the list keeps loading to the top).
    const ranges = backend.callsOf("session_activity").map((a) => `${a.fromIndex}-${a.toIndex}`);
    expect(ranges).toContain("40-69");
    expect(new Set(ranges).size).toBe(ranges.length);
    expect(ranges).toHaveLength(backend.callsOf("read_transcript").length);
    // At the top now: the older pages' activity is shown.
    expect(renderedIndexes()).toContain(0);
    expect(toggle(-1).textContent).toBe("▸1 tool call · Glob");
    expect(toggle(5).textContent).toBe("▸1 tool call · Grep");
  });

  it("renders tool names as text", async () => {
    const { app } = await openTranscript(3, activity({ 1: ["<img src=x onerror=alert(1)>", "{{count}}", "$t(transcript.back)"] }));
    const button = toggle(1);
    expect(button.textContent).toBe("▸3 tool calls · <img src=x onerror=alert(1)>, {{count}}, $t(transcript.back)");
    await app.user.click(button);
    expect(listed(1)).toEqual(["<img src=x onerror=alert(1)>", "{{count}}", "$t(transcript.back)"]);
    expect(document.querySelector(".activity img")).toBeNull();
  });

  it("no activity: nothing is shown", async () => {
    const { backend } = await openTranscript(5, []);
    expect(backend.callsOf("session_activity")).toHaveLength(1);
    expect(document.querySelector(".activity")).toBeNull();
    expect(screen.queryByText(/tool call/)).toBeNull();
  });

  it("an error (or a backend without the command) shows no activity and the transcript works", async () => {
    const { app, backend } = await openTranscript(5, activity({ 2: ["Read"] }), (b) =>
      b.failures.set("session_activity", { code: "internal", message: "unknown command session_activity" }),
    );
    expect(backend.callsOf("session_activity")).toHaveLength(1);
    expect(document.querySelector(".activity")).toBeNull();
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.queryByText(/unknown command/)).toBeNull();
    expect(message(4).querySelector(".message-text")!.textContent).toBe("Message 4");
    message(4).focus();
    await app.user.keyboard("k");
    await settle();
    expect(document.activeElement).toBe(message(3));
  });

  it("is read again with the transcript", async () => {
    const { app, backend } = await openTranscript(5, activity({ 2: ["Read"] }));
    expect(backend.callsOf("session_activity")).toHaveLength(1);
    backend.sessionData.activity = { ses_1: activity({ 2: ["Read", "Write"] }) };
    await app.user.click(screen.getByRole("button", { name: "Back to sessions" }));
    await settle();
    await tick(31_000);
    await openFirstListedSession(app);
    expect(backend.callsOf("read_transcript")).toHaveLength(2);
    expect(backend.callsOf("session_activity")).toHaveLength(2);
    expect(toggle(2).textContent).toBe("▸2 tool calls · Read, Write");
  });

  describe("row size", () => {
    const original = Object.getOwnPropertyDescriptor(HTMLElement.prototype, "offsetHeight")!;
    afterEach(() => Object.defineProperty(HTMLElement.prototype, "offsetHeight", original));

    it("an expanded row is measured again", async () => {
      // Rows are as tall as a message plus 20 px per listed tool call.
      Object.defineProperty(HTMLElement.prototype, "offsetHeight", {
        configurable: true,
        get(this: HTMLElement) {
          return this.classList.contains("list-item") ? ROW_PX + 20 * this.querySelectorAll(".activity-list li").length : 0;
        },
      });
      const { app } = await openTranscript(5, activity({ 2: ["Read", "Bash", "Edit"] }));
      await tick(200); // the virtualiser measures once scrolling has settled
      const list = document.querySelector<HTMLElement>("ul.list")!;
      const height = () => parseFloat(list.style.height);
      expect(height()).toBe(5 * ROW_PX);
      const rowTop = () => (rowOf(message(3)) as HTMLElement).style.transform;
      expect(rowTop()).toBe(`translateY(${3 * ROW_PX}px)`);
      await app.user.click(toggle(2));
      await settle();
      expect(height()).toBe(5 * ROW_PX + 60);
      expect(rowTop()).toBe(`translateY(${3 * ROW_PX + 60}px)`);
      await app.user.click(toggle(2));
      await settle();
      // Shrinking at the end of the list, the virtualiser holds the old height until the
      // scroll it made to stay anchored has settled.
      await tick(200);
      expect(height()).toBe(5 * ROW_PX);
      expect(rowTop()).toBe(`translateY(${3 * ROW_PX}px)`);
    });
  });
});
