// Screens, rows, toolbar and paging of the memory panel.
import { act, fireEvent, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { PAGE_SIZE } from "../src/memory/useMemories";
import { AGENT_PROMPTS } from "../src/memory/agentPrompt";
import { installFakeBackend, memories, memory } from "./fakeBackend";
import { renderApp, rowFor, rowTitles, settle, tick, useFakeClock } from "./render";
import { VIEWPORT_PX } from "./setup";

beforeEach(() => useFakeClock());

async function start() {
  const app = renderApp();
  await settle();
  return app;
}

describe("screens", () => {
  it("not signed in: a prompt and a button to account settings", async () => {
    installFakeBackend({ state: { account: null, user: null, orgs: [], activeOrgId: null } });
    const app = await start();
    expect(screen.getByRole("heading", { name: "You are not signed in" })).not.toBeNull();
    await app.user.click(screen.getByRole("button", { name: "Open account settings" }));
    expect(screen.getByRole("heading", { name: "Account" })).not.toBeNull();
  });

  it("signed out because connecting failed: the reason and its fix instead of the sign-in prompt", async () => {
    const message =
      "the bank /data/memory.db is encrypted but its key is missing from the OS keyring (database-key:/data/memory.db); restore that entry, or point MEMORY_BANK_DB_KEY_FILE at a copy of the key. The bank was not changed";
    installFakeBackend({
      state: { account: null, user: null, orgs: [], activeOrgId: null, connectError: { code: "keyring", message } },
    });
    await start();
    expect(screen.getByRole("heading", { name: "You are not signed in" })).not.toBeNull();
    expect(screen.getByRole("alert").textContent).toBe(`Memory Bank could not open your account: ${message}`);
    expect(screen.queryByText(/Sign in to a team server/)).toBeNull();
  });

  it("no active org: a notice and an org picker that calls set_active_org", async () => {
    const backend = installFakeBackend({ state: { activeOrgId: null }, memories: memories(2) });
    const app = await start();
    expect(screen.getByRole("heading", { name: "No active organization" })).not.toBeNull();
    await app.user.selectOptions(screen.getByLabelText("Organization"), "org_b");
    await settle();
    expect(backend.callsOf("set_active_org")).toEqual([{ orgId: "org_b" }]);
    expect(rowTitles()).toEqual(["Memory number 1", "Memory number 2"]);
  });

  it("loading: skeleton rows while the first page is on its way", async () => {
    const backend = installFakeBackend({ memories: memories(2) });
    let open = () => {};
    backend.listGate = new Promise((resolve) => (open = resolve));
    await start();
    const status = screen.getByRole("status", { name: "" , busy: true });
    expect(within(status).getByText("Loading memories…")).not.toBeNull();
    expect(document.querySelectorAll(".skeleton-row")).toHaveLength(3);
    open();
    await settle();
    expect(rowTitles()).toHaveLength(2);
  });

  it("error: the message and a retry that refetches", async () => {
    const backend = installFakeBackend({ memories: memories(1) });
    backend.listError = { code: "unreachable", message: "The memory service is unreachable" };
    const app = await start();
    const alert = screen.getByRole("alert");
    expect(within(alert).getByText("The memory service is unreachable")).not.toBeNull();
    backend.listError = null;
    await app.user.click(within(alert).getByRole("button", { name: "Retry" }));
    await settle();
    expect(rowTitles()).toEqual(["Memory number 1"]);
  });

  it("empty: an explanation and how to save a first memory", async () => {
    installFakeBackend({ memories: [] });
    await start();
    expect(screen.getByRole("heading", { name: "No memories yet" })).not.toBeNull();
    expect(screen.getByText(/To save your first one/)).not.toBeNull();
  });

  it("list: one row per memory", async () => {
    installFakeBackend({ memories: memories(2) });
    await start();
    expect(rowTitles()).toEqual(["Memory number 1", "Memory number 2"]);
  });

  it("memory flag off: no panel, a pointer to settings", async () => {
    const backend = installFakeBackend({
      state: { prefs: { memoryEnabled: false, language: null } },
      memories: memories(2),
    });
    await start();
    expect(rowTitles()).toEqual([]);
    expect(screen.getByText("The memory panel is turned off on this device.")).not.toBeNull();
    expect(backend.callsOf("list_memories")).toEqual([]);
  });
});

describe("rows", () => {
  it("renders content as text: an XSS payload creates no element", async () => {
    const payload = "<img src=x onerror=alert(1)>";
    installFakeBackend({
      memories: [memory(1, { content: payload, contexts: [{ id: "mctx_1", snippet: "<b>bold</b>", citation: null, origin: null, createdAt: "2026-01-01T00:00:00Z" }], tags: ["<script>x</script>"] })],
    });
    await start();
    expect(rowTitles()).toEqual([payload]);
    expect(document.querySelector("main img, main b, main script")).toBeNull();
    expect(screen.getByText("<script>x</script>")).not.toBeNull();
  });

  it("shows provenance, cited ids, tags and a localised date", async () => {
    installFakeBackend({
      memories: [
        memory(1, {
          content: "Prefers tabs",
          tags: ["style", "editor"],
          createdAt: "2026-03-04T05:06:07.000Z",
          contexts: [
            { id: "c1", snippet: "I use tabs", citation: { conversationId: "ses_1", messageId: "msg_9" }, origin: "active_conversation", createdAt: "2026-03-04T05:06:07.000Z" },
            { id: "c2", snippet: "tabs, always", citation: { conversationId: "ses_2" }, origin: null, createdAt: "2026-03-04T05:06:07.000Z" },
          ],
        }),
      ],
    });
    await start();
    const row = rowFor("Prefers tabs");
    expect(row.querySelector(".row-provenance")?.textContent).toBe(
      "From: I use tabs · tabs, always (Cites: session ses_1, message msg_9 · session ses_2)",
    );
    expect(within(row).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["style", "editor"]);
    const time = row.querySelector("time")!;
    expect(time.getAttribute("datetime")).toBe("2026-03-04T05:06:07.000Z");
    expect(time.textContent).toMatch(/2026/);
  });

  it("reaches every memory by scrolling: the next cursor page loads near the end", async () => {
    const backend = installFakeBackend({ memories: memories(PAGE_SIZE * 2 + 5) });
    await start();
    expect(backend.callsOf("list_memories")).toEqual([{ orgId: "org_a", limit: PAGE_SIZE }]);
    expect(rowTitles()).not.toContain(`Memory number ${PAGE_SIZE}`); // virtualised

    const scroller = screen.getByRole("region", { name: "Memories" });
    // Scroll to the end as the list knows it (rows not yet measured count at their
    // estimated height), the way a person drags the scrollbar down.
    const scrollToEnd = async () => {
      const total = parseFloat((scroller.firstElementChild as HTMLElement).style.height);
      scroller.scrollTop = total - VIEWPORT_PX;
      fireEvent.scroll(scroller);
      await settle();
    };
    await scrollToEnd();
    expect(backend.callsOf("list_memories")[1]).toEqual({ orgId: "org_a", limit: PAGE_SIZE, cursor: String(PAGE_SIZE) });
    await scrollToEnd();
    expect(backend.callsOf("list_memories")).toHaveLength(3);
    await scrollToEnd();
    await scrollToEnd();
    expect(rowTitles()).toContain(`Memory number ${2 * PAGE_SIZE + 5}`);
    expect(backend.callsOf("list_memories")).toHaveLength(3); // no page after the last
  });
});

describe("toolbar", () => {
  it("searches on the server after a 250 ms pause, not on every key", async () => {
    const backend = installFakeBackend({ memories: [memory(1, { content: "likes green tea" }), memory(2)] });
    const app = await start();
    await app.user.type(screen.getByRole("searchbox", { name: "Search memories" }), "tea");
    await tick(249);
    expect(backend.callsOf("search_memories")).toEqual([]);
    await tick(1);
    await settle();
    expect(backend.callsOf("search_memories")).toEqual([{ orgId: "org_a", q: "tea", limit: 50 }]);
    expect(rowTitles()).toEqual(["likes green tea"]);
    expect(screen.getByRole("region", { name: "Search results" })).not.toBeNull();
  });

  it("shows how far search by meaning is while the backfill runs, then nothing", async () => {
    const backend = installFakeBackend({ memories: memories(3) });
    backend.searchStatus = { meaning: "on", memories: 3000, withVector: 1200 };
    await start();
    expect(
      screen.getByText("Search by meaning: 1200 of 3000 memories ready; the rest are found by their words meanwhile."),
    ).not.toBeNull();
    backend.searchStatus = { meaning: "on", memories: 3000, withVector: 3000 };
    await tick(3000);
    await settle();
    expect(screen.queryByText(/Search by meaning:/)).toBeNull();
    const polls = backend.callsOf("search_status").length;
    await tick(9000);
    await settle();
    expect(backend.callsOf("search_status").length, "no polling once ready").toBe(polls);
  });

  it("says when search is by words only for now, and why", async () => {
    const backend = installFakeBackend({ memories: memories(1) });
    backend.searchStatus = { meaning: "unavailable", memories: 1, withVector: 0, reason: "the model file is missing" };
    await start();
    expect(screen.getByText("Search is by words only for now: the model file is missing")).not.toBeNull();
  });

  it("says why each search result was found, and nothing of the kind in the list", async () => {
    installFakeBackend({ memories: [memory(1, { content: "likes green tea" }), memory(2)] });
    const app = await start();
    expect(screen.queryByText("Matched words")).toBeNull();
    await app.user.type(screen.getByRole("searchbox", { name: "Search memories" }), "tea");
    await tick(250);
    await settle();
    expect(rowTitles()).toEqual(["likes green tea"]);
    expect(screen.getAllByText("Matched words")).toHaveLength(1);
  });

  it("is IME-safe: no search while composing, one at compositionend", async () => {
    const backend = installFakeBackend({ memories: [memory(1, { content: "喜欢绿茶" })] });
    await start();
    const box = screen.getByRole("searchbox", { name: "Search memories" });
    fireEvent.compositionStart(box);
    for (const text of ["l", "lv", "lvc", "lvcha"]) {
      fireEvent.change(box, { target: { value: text } });
      await tick(300);
    }
    expect(backend.callsOf("search_memories")).toEqual([]);
    fireEvent.change(box, { target: { value: "绿茶" } });
    fireEvent.compositionEnd(box, { data: "绿茶" });
    await tick(300);
    await settle();
    expect(backend.callsOf("search_memories")).toEqual([{ orgId: "org_a", q: "绿茶", limit: 50 }]);
    expect(rowTitles()).toEqual(["喜欢绿茶"]);
  });

  it("Copy prompt copies the agent instructions and says Copied for 2 s", async () => {
    installFakeBackend({ memories: memories(1) });
    const writeText = vi.fn(() => Promise.resolve());
    Object.assign(navigator.clipboard, { writeText });
    const app = await start();
    await app.user.click(screen.getByRole("button", { name: "Copy prompt" }));
    await settle();
    expect(writeText).toHaveBeenCalledWith(AGENT_PROMPTS.en);
    expect(screen.getByRole("button", { name: "Copied" })).not.toBeNull();
    await tick(1999);
    expect(screen.getByRole("button", { name: "Copied" })).not.toBeNull();
    await tick(1);
    expect(screen.getByRole("button", { name: "Copy prompt" })).not.toBeNull();
  });

  it("Copy prompt failure shows an error toast", async () => {
    installFakeBackend({ memories: memories(1) });
    Object.assign(navigator.clipboard, { writeText: () => Promise.reject(new Error("denied")) });
    const app = await start();
    await app.user.click(screen.getByRole("button", { name: "Copy prompt" }));
    await settle();
    expect(screen.getByText("Could not copy the prompt: denied")).not.toBeNull();
  });

  it("refresh spins and is disabled while fetching", async () => {
    const backend = installFakeBackend({ memories: memories(1) });
    const app = await start();
    let open = () => {};
    backend.listGate = new Promise((resolve) => (open = resolve));
    await app.user.click(screen.getByRole("button", { name: "Refresh" }));
    await settle();
    const busy = screen.getByRole("button", { name: "Refreshing" }) as HTMLButtonElement;
    expect(busy.disabled).toBe(true);
    expect(busy.querySelector("svg.spin")).not.toBeNull();
    await act(async () => open());
    await settle();
    expect((screen.getByRole("button", { name: "Refresh" }) as HTMLButtonElement).disabled).toBe(false);
  });

  it("switching org lists that org under its own key", async () => {
    const backend = installFakeBackend({ memories: memories(2) });
    const app = await start();
    await app.user.selectOptions(screen.getByLabelText("Organization"), "org_b");
    await settle();
    expect(backend.callsOf("list_memories").map((args) => args.orgId)).toEqual(["org_a", "org_b"]);
    expect(app.client.getQueryData(["memory", "org_b", "all"])).toBeDefined();
  });
});
