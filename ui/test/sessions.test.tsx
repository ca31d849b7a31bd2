// The Sessions view: navigation, the list, filters, content search and its states.
import { act, fireEvent, screen, within } from "@testing-library/react";
import { emit } from "@tauri-apps/api/event";
import { beforeEach, describe, expect, it } from "vitest";
import { installFakeBackend, memories } from "./fakeBackend";
import { session, transcript, type SessionData } from "./fakeSessions";
import { renderApp, settle, tick, useFakeClock } from "./render";

beforeEach(() => useFakeClock());

async function openSessions(data?: SessionData) {
  const backend = installFakeBackend({ memories: memories(2), sessions: data });
  const app = renderApp();
  await settle();
  await app.user.click(screen.getByRole("button", { name: "Sessions" }));
  await settle();
  return { app, backend };
}

const sessionsList = () => screen.getByRole("list", { name: "Sessions" });
const rowTitles = () => Array.from(document.querySelectorAll(".session-title"), (n) => n.textContent);

describe("navigation", () => {
  it("Sessions is a header section beside Memories, marked current, keyboard reachable", async () => {
    const { app } = await openSessions({ sessions: [session(1)], transcripts: {} });
    const nav = screen.getByRole("navigation", { name: "Sections" });
    const names = within(nav).getAllByRole("button").map((b) => b.textContent);
    expect(names).toEqual(["Memories", "Inbox", "Sessions", "Account settings"]);
    expect(within(nav).getByRole("button", { name: "Sessions" }).getAttribute("aria-current")).toBe("page");
    // Keyboard: back past the Inbox to Memories, Enter.
    within(nav).getByRole("button", { name: "Sessions" }).focus();
    await app.user.keyboard("{Shift>}{Tab}{Tab}{/Shift}{Enter}");
    await settle();
    expect(document.querySelector(".row-title")).not.toBeNull();
  });

  it("keeps the Sessions state (filter, search) while Memories is shown", async () => {
    const { app, backend } = await openSessions({ sessions: [session(1), session(2)], transcripts: {} });
    await app.user.selectOptions(screen.getByLabelText("Tool"), "codex");
    await settle();
    await app.user.click(screen.getByRole("button", { name: "Memories" }));
    await settle();
    await app.user.click(screen.getByRole("button", { name: "Sessions" }));
    await settle();
    expect((screen.getByLabelText("Tool") as HTMLSelectElement).value).toBe("codex");
    expect(rowTitles()).toEqual(["Session number 2"]);
    expect(backend.callsOf("list_sessions").at(-1)).toEqual({ limit: 200, source: "codex" });
  });

  it("is available when the memory panel is turned off", async () => {
    const backend = installFakeBackend({
      state: { prefs: { memoryEnabled: false, language: null } },
      sessions: { sessions: [session(1)], transcripts: {} },
    });
    const app = renderApp();
    await settle();
    expect(screen.getByText("The memory panel is turned off on this device.")).not.toBeNull();
    await app.user.click(screen.getByRole("button", { name: "Sessions" }));
    await settle();
    expect(rowTitles()).toEqual(["Session number 1"]);
    expect(backend.callsOf("list_memories")).toEqual([]);
  });
});

describe("list", () => {
  it("shows icon, shortened title with the full text as tooltip, workspace, time and count", async () => {
    const long = `Please help me ${"refactor the importer ".repeat(20)}\nand then the exporter`;
    await openSessions({
      sessions: [session(1, { title: long, messageCount: 12, updatedAt: new Date(Date.now() - 3 * 3_600_000).toISOString() })],
      transcripts: {},
    });
    const row = within(sessionsList()).getByRole("button");
    expect(within(row).getByRole("img", { name: "Claude Code" })).not.toBeNull();
    const title = row.querySelector(".session-title")!.textContent!;
    expect(Array.from(title)).toHaveLength(120);
    expect(title.endsWith("…")).toBe(true);
    expect(title).not.toContain("\n");
    expect(row.getAttribute("title")).toBe(long);
    expect(row.textContent).toContain("/home/me/project-odd");
    expect(row.textContent).toContain("12 messages");
    expect(row.querySelector("time")!.textContent).toBe("3 hours ago");
  });

  it("a distinct labelled icon per source", async () => {
    await openSessions({ sessions: [1, 2, 3, 4].map((n) => session(n)), transcripts: {} });
    const labels = within(sessionsList()).getAllByRole("img").map((img) => img.getAttribute("aria-label"));
    expect(labels).toEqual(["Claude Code", "Codex", "opencode", "Gemini CLI"]);
    const shapes = Array.from(document.querySelectorAll(".session-row svg"), (svg) => svg.innerHTML);
    expect(new Set(shapes).size).toBe(4);
  });

  it("says how many are shown when the list is capped", async () => {
    const sessions = Array.from({ length: 200 }, (_, i) => session(i + 1));
    const { backend } = await openSessions({ sessions, transcripts: {}, total: 1234 });
    expect(backend.callsOf("list_sessions")[0]).toEqual({ limit: 200 });
    expect(screen.getByText("Showing 200 of 1,234")).not.toBeNull();
  });

  it("filters by source and workspace from session_facets", async () => {
    const { app, backend } = await openSessions({ sessions: [1, 2, 3].map((n) => session(n)), transcripts: {} });
    expect(backend.callsOf("session_facets")).toHaveLength(1);
    const workspace = screen.getByLabelText("Workspace") as HTMLSelectElement;
    expect(Array.from(workspace.options, (o) => o.textContent)).toEqual([
      "All workspaces",
      "/home/me/project-odd (2)",
      "/home/me/project-even (1)",
    ]);
    await app.user.selectOptions(workspace, "/home/me/project-odd");
    await settle();
    expect(backend.callsOf("list_sessions").at(-1)).toEqual({ limit: 200, workspace: "/home/me/project-odd" });
    expect(rowTitles()).toEqual(["Session number 1", "Session number 3"]);
    await app.user.selectOptions(screen.getByLabelText("Tool"), "opencode");
    await settle();
    expect(backend.callsOf("list_sessions").at(-1)).toEqual({ limit: 200, source: "opencode", workspace: "/home/me/project-odd" });
    expect(rowTitles()).toEqual(["Session number 3"]);
  });

  it("empty: says which tools are read and where", async () => {
    await openSessions({ sessions: [], transcripts: {} });
    expect(screen.getByRole("heading", { name: "No sessions found" })).not.toBeNull();
    // The folders the backend reads on this computer, found or not.
    for (const path of ["/home/me/.claude", "/home/me/.codex", "/home/me/.local/share/opencode", "/home/me/.gemini/tmp"])
      expect(screen.getByText(path)).not.toBeNull();
    expect(screen.getByText("/home/me/.qwen").closest("li")?.textContent).toContain("(not found on this computer)");
  });

  it("loading: skeleton rows until list_sessions answers", async () => {
    const backend = installFakeBackend({ sessions: { sessions: [session(1)], transcripts: {} } });
    let open = () => {};
    backend.sessionsGate = new Promise((resolve) => (open = resolve));
    const app = renderApp();
    await settle();
    await app.user.click(screen.getByRole("button", { name: "Sessions" }));
    await settle();
    expect(screen.getByText("Loading sessions…")).not.toBeNull();
    expect(document.querySelectorAll(".skeleton-row")).toHaveLength(3);
    await act(async () => open());
    await settle();
    expect(rowTitles()).toEqual(["Session number 1"]);
  });

  it("error: the message and a retry", async () => {
    const backend = installFakeBackend({ sessions: { sessions: [session(1)], transcripts: {} } });
    backend.sessionsError = { code: "index", message: "The session index is unavailable" };
    const app = renderApp();
    await settle();
    await app.user.click(screen.getByRole("button", { name: "Sessions" }));
    await settle();
    const alert = screen.getByRole("alert");
    expect(within(alert).getByText("Could not load sessions")).not.toBeNull();
    expect(within(alert).getByText("The session index is unavailable")).not.toBeNull();
    backend.sessionsError = null;
    await app.user.click(within(alert).getByRole("button", { name: "Retry" }));
    await settle();
    expect(rowTitles()).toEqual(["Session number 1"]);
  });

  it("refetches on sessions-changed", async () => {
    const { backend } = await openSessions({ sessions: [session(1)], transcripts: {} });
    backend.sessionData.sessions = [session(5, { title: "A new one" }), session(1)];
    await act(async () => emit("sessions-changed"));
    await settle();
    expect(rowTitles()).toEqual(["A new one", "Session number 1"]);
    expect(backend.callsOf("session_facets")).toHaveLength(2);
  });

  it("renders titles, workspaces and snippets as text: no element from an XSS payload", async () => {
    const payload = "<img src=x onerror=alert(1)>";
    const { app } = await openSessions({
      sessions: [session(1, { title: payload, workspace: payload })],
      transcripts: { ses_1: transcript(2, () => payload) },
    });
    expect(rowTitles()).toEqual([payload]);
    expect(document.querySelector("main img")).toBeNull();
    await app.user.type(screen.getByRole("searchbox", { name: "Search messages" }), "onerror");
    await tick(300);
    await settle();
    expect(within(screen.getByRole("list", { name: "Messages found" })).getAllByRole("button")).toHaveLength(2);
    expect(document.querySelector("main img")).toBeNull();
    await app.user.click(within(screen.getByRole("list", { name: "Messages found" })).getAllByRole("button")[0]);
    await settle();
    expect(document.querySelectorAll(".message-text")[0].textContent).toBe(payload);
    expect(document.querySelector("main img")).toBeNull();
  });
});

describe("content search", () => {
  const data = (): SessionData => ({
    sessions: [session(1), session(2)],
    transcripts: { ses_1: transcript(3, (i) => (i === 1 ? "we use 绿茶 tokens" : `m${i}`)), ses_2: transcript(2) },
  });

  it("debounces, then calls search_messages and lists hits with title, role and snippet", async () => {
    const { app, backend } = await openSessions(data());
    await app.user.type(screen.getByRole("searchbox", { name: "Search messages" }), "tokens");
    await tick(249);
    expect(backend.callsOf("search_messages")).toEqual([]);
    await tick(1);
    await settle();
    expect(backend.callsOf("search_messages")).toEqual([{ query: "tokens", limit: 50 }]);
    const hit = within(screen.getByRole("list", { name: "Messages found" })).getByRole("button");
    expect(hit.textContent).toContain("Session number 1");
    expect(hit.querySelector(".hit-snippet")!.textContent).toBe("Agent: we use 绿茶 tokens");
  });

  it("is IME-safe: nothing is searched while composing", async () => {
    const { backend } = await openSessions(data());
    const box = screen.getByRole("searchbox", { name: "Search messages" });
    fireEvent.compositionStart(box);
    for (const text of ["l", "lv", "lvcha"]) {
      fireEvent.change(box, { target: { value: text } });
      await tick(300);
    }
    expect(backend.callsOf("search_messages")).toEqual([]);
    fireEvent.change(box, { target: { value: "绿茶" } });
    fireEvent.compositionEnd(box, { data: "绿茶" });
    await tick(300);
    await settle();
    expect(backend.callsOf("search_messages")).toEqual([{ query: "绿茶", limit: 50 }]);
  });

  it("no hits: says so", async () => {
    const { app } = await openSessions(data());
    await app.user.type(screen.getByRole("searchbox", { name: "Search messages" }), "zebra");
    await tick(300);
    await settle();
    expect(screen.getByText("No messages match “zebra”.")).not.toBeNull();
  });
});
