// ipc.ts sends exactly the command names and camelCase arguments of docs/desktop-ipc.md.
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import { afterEach, expect, it } from "vitest";
import * as ipc from "../src/ipc";

afterEach(() => clearMocks());

it("maps every wrapper to its command and arguments", async () => {
  const calls: [string, unknown][] = [];
  mockIPC((cmd, args) => {
    calls.push([cmd, args ?? {}]);
    return null;
  });
  await ipc.getState();
  await ipc.setActiveOrg("org_1");
  await ipc.setPrefs({ memoryEnabled: false });
  await ipc.setPrefs({ language: null });
  await ipc.signInTeam("https://m.example", "tok");
  await ipc.chooseLocalAccount();
  await ipc.signOut();
  await ipc.listMemories({ orgId: "org_1", limit: 50, cursor: "c" });
  await ipc.searchMemories({ orgId: "org_1", q: "tea", limit: 50 });
  await ipc.scheduleDelete({ orgId: "org_1", id: "mem_1" });
  await ipc.undoDelete("mem_1");
  await ipc.flushDeletes();
  expect(calls).toEqual([
    ["get_state", {}],
    ["set_active_org", { orgId: "org_1" }],
    ["set_prefs", { memoryEnabled: false }],
    ["set_prefs", { language: null }],
    ["sign_in_team", { url: "https://m.example", token: "tok" }],
    ["use_local_account", {}],
    ["sign_out", {}],
    ["list_memories", { orgId: "org_1", limit: 50, cursor: "c" }],
    ["search_memories", { orgId: "org_1", q: "tea", limit: 50 }],
    ["schedule_delete", { orgId: "org_1", id: "mem_1" }],
    ["undo_delete", { id: "mem_1" }],
    ["flush_deletes", {}],
  ]);
});

it("maps every sessions wrapper to its command and arguments", async () => {
  const calls: [string, unknown][] = [];
  mockIPC((cmd, args) => {
    calls.push([cmd, args ?? {}]);
    return null;
  });
  await ipc.listSessions({ limit: 200, source: "codex", workspace: "/w", query: "t" });
  await ipc.sessionFacets();
  await ipc.openSession({ sessionId: "s1" });
  await ipc.readTranscript({ sessionId: "s1", count: 30, before: 70 });
  await ipc.sessionActivity({ sessionId: "s1", fromIndex: 40, toIndex: 69 });
  await ipc.latestMessage({ sessionId: "s1" });
  await ipc.searchMessages({ query: "tea", limit: 50 });
  const contexts = [{ snippet: "x", conversationId: "s1", messageId: "m1", origin: "searched_conversation" as const }];
  await ipc.saveMemory({ orgId: "org_1", content: "c", tags: ["a"], contexts });
  expect(calls).toEqual([
    ["list_sessions", { limit: 200, source: "codex", workspace: "/w", query: "t" }],
    ["session_facets", {}],
    ["open_session", { sessionId: "s1" }],
    ["read_transcript", { sessionId: "s1", count: 30, before: 70 }],
    ["session_activity", { sessionId: "s1", fromIndex: 40, toIndex: 69 }],
    ["latest_message", { sessionId: "s1" }],
    ["search_messages", { query: "tea", limit: 50 }],
    ["save_memory", { orgId: "org_1", content: "c", tags: ["a"], contexts }],
  ]);
});

it("maps every Inbox and Agents wrapper to its command and arguments", async () => {
  const calls: [string, unknown][] = [];
  mockIPC((cmd, args) => {
    calls.push([cmd, args ?? {}]);
    return null;
  });
  await ipc.listProposals("org_1");
  await ipc.acceptProposal({ orgId: "org_1", id: "prop_1", edits: { content: "c", tags: [] } });
  await ipc.acceptProposal({ orgId: "org_1", id: "prop_2" });
  await ipc.rejectProposal({ orgId: "org_1", id: "prop_3" });
  await ipc.agentStatuses();
  await ipc.planAgentChange({ agent: "codex", action: "install" });
  await ipc.applyAgentChange({ agent: "codex", action: "remove", diff: "--- a" });
  expect(calls).toEqual([
    ["list_proposals", { orgId: "org_1" }],
    ["accept_proposal", { orgId: "org_1", id: "prop_1", edits: { content: "c", tags: [] } }],
    ["accept_proposal", { orgId: "org_1", id: "prop_2" }],
    ["reject_proposal", { orgId: "org_1", id: "prop_3" }],
    ["agent_statuses", {}],
    ["plan_agent_change", { agent: "codex", action: "install" }],
    ["apply_agent_change", { agent: "codex", action: "remove", diff: "--- a" }],
  ]);
});

it("passes the inbox-changed payload to the handler", async () => {
  mockIPC(() => null, { shouldMockEvents: true });
  const seen: { pending: number }[] = [];
  const unlisten = await ipc.onInboxChanged((event) => seen.push(event));
  await emit("inbox-changed", { pending: 2 });
  unlisten();
  await emit("inbox-changed", { pending: 3 });
  expect(seen).toEqual([{ pending: 2 }]);
});

it("calls the sessions-changed handler on the event", async () => {
  mockIPC(() => null, { shouldMockEvents: true });
  let seen = 0;
  const unlisten = await ipc.onSessionsChanged(() => seen++);
  await emit("sessions-changed");
  unlisten();
  await emit("sessions-changed");
  expect(seen).toBe(1);
});

it("passes the memory-delete-settled payload to the handler", async () => {
  mockIPC(() => null, { shouldMockEvents: true });
  const seen: ipc.DeleteSettled[] = [];
  const unlisten = await ipc.onDeleteSettled((event) => seen.push(event));
  const payload = { id: "mem_1", orgId: "org_1", outcome: "failed" as const, message: "nope" };
  await emit("memory-delete-settled", payload);
  unlisten();
  await emit("memory-delete-settled", payload);
  expect(seen).toEqual([payload]);
});

it("reads messages from rejected commands", () => {
  expect(ipc.errorMessage({ code: "unreachable", message: "Server unreachable" })).toBe("Server unreachable");
  expect(ipc.errorMessage(new Error("boom"))).toBe("boom");
  expect(ipc.errorMessage("plain")).toBe("plain");
});
