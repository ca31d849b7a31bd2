// A small in-test stand-in for the Rust command layer, installed with mockIPC at the
// IPC boundary (the only way the UI talks to the backend). It records every call,
// keeps the 6 s delete timer on the (fake) clock, as Rust does, and emits
// `memory-delete-settled` through the mocked event system.
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import type {
  AgentsOverview,
  AppState,
  DeleteOutcome,
  DeleteSettled,
  IpcError,
  ListResponse,
  Memory,
  PendingDelete,
  Revision,
  Prefs,
  Proposal,
  SearchStatus,
  SessionRoot,
} from "../src/ipc";
import { agentsOverview, inboxHandlers } from "./fakeInbox";
import { teamData, teamHandlers, type TeamData } from "./fakeTeam";
import { sessionHandlers, sourceFolders, type SessionData } from "./fakeSessions";

export const COMMIT_MS = 6000;

export interface Call {
  cmd: string;
  args: Record<string, unknown>;
}

interface Options {
  /** Merged over defaultState(); `prefs` is merged field by field. */
  state?: Partial<Omit<AppState, "prefs">> & { prefs?: Partial<Prefs> };
  memories?: Memory[];
  sessions?: SessionData;
  /** Pending proposals, newest first (see fakeInbox.ts). */
  proposals?: Proposal[];
  /** Settings → Agents (default: every agent, none installed, the CLI found). */
  agents?: AgentsOverview;
  /** Deletes Rust kept from an earlier run (its journal), as list_pending_deletes answers. */
  pendingDeletes?: PendingDelete[];
  /** The active org's team (see fakeTeam.ts); default: the person owns a team of one. */
  team?: Partial<TeamData>;
}

export type FakeBackend = ReturnType<typeof installFakeBackend>;

export function memory(n: number, extra: Partial<Memory> = {}): Memory {
  // Newest first: memory 1 is the newest.
  const created = new Date(Date.UTC(2026, 0, 1) - n * 60_000).toISOString();
  return {
    id: `mem_${String(n).padStart(4, "0")}`,
    content: `Memory number ${n}`,
    tags: null,
    source: "chat",
    scope: "user",
    orgId: "org_a",
    createdAt: created,
    updatedAt: created,
    contexts: [],
    ...extra,
  };
}

export function memories(count: number): Memory[] {
  return Array.from({ length: count }, (_, index) => memory(index + 1));
}

export function defaultState(): AppState {
  return {
    account: { kind: "local" },
    user: { id: "usr_1", email: "me@example.com" },
    orgs: [
      { id: "org_a", name: "Acme" },
      { id: "org_b", name: "Beta" },
    ],
    activeOrgId: "org_a",
    prefs: { memoryEnabled: true, language: null, sessionRoots: [], keepArchivedSessions: true, wordsOnly: false, memoryScope: "all" },
    connectError: null,
    localBankUnencrypted: false,
  };
}

function stateFrom(overrides: Options["state"] = {}): AppState {
  const base = defaultState();
  return { ...base, ...overrides, prefs: { ...base.prefs, ...overrides.prefs } };
}

/** Like the service's `scope`: mine (the person's own), team (the org's), all (absent). */
const inScope = (scope: unknown) => (m: Memory) =>
  scope === "mine" ? m.scope !== "org" : scope === "team" ? m.scope === "org" : true;

export function installFakeBackend(options: Options = {}) {
  const backend = {
    state: stateFrom(options.state),
    memories: [...(options.memories ?? [])],
    calls: [] as Call[],
    /** Deletes that reached the "server", with the org they were sent for. */
    committed: [] as { id: string; orgId: string }[],
    pending: new Map<string, { orgId: string; timer: ReturnType<typeof setTimeout> }>(),
    /** Outcome the "server" gives a delete, by id (default: deleted). */
    outcomes: new Map<string, { outcome: DeleteOutcome; message?: string }>(),
    /** Commands that reject, with the error they reject with. */
    failures: new Map<string, IpcError>(),
    /** When set, list_memories rejects with it. */
    listError: null as IpcError | null,
    /** When set, schedule_delete's answer waits for it (the timer starts at once). */
    scheduleGate: null as Promise<void> | null,
    /** When set, list_memories waits for this promise first (to hold the loading state). */
    listGate: null as Promise<void> | null,
    /** Sessions on "this machine" (see fakeSessions.ts). */
    sessionData: options.sessions ?? ({ sessions: [], transcripts: {} } as SessionData),
    /** When set, list_sessions rejects with it / waits for it. */
    sessionsError: null as IpcError | null,
    sources: sourceFolders(),
    sessionsGate: null as Promise<void> | null,
    /** Earlier versions of edited memories, newest first. */
    revisions: [] as Revision[],
    /** What search_status answers; null: every memory found by meaning already. */
    searchStatus: null as SearchStatus | null,
    /** When set, edit_memory rejects with it. */
    editError: null as IpcError | null,
    /** When set, save_memory rejects with it. */
    saveError: null as IpcError | null,
    /** Settings → Data: the file the "dialog" picks (null: cancelled), and a gate that
     * holds an export or import after its first progress step. */
    pickedFile: "/home/me/memory-bank-export.jsonl" as string | null,
    transferGate: null as Promise<void> | null,
    /** What the picked file holds for import_memories: lines, which are refused, and
     * which the service imports under a new id. */
    importFile: { lines: 0, refused: [] } as {
      lines: number;
      refused: { line: number; error: string; message: string }[];
      newIds?: { line: number; id: string }[];
    },
    /** The Inbox and the agents' config files (see fakeInbox.ts). */
    proposals: [...(options.proposals ?? [])],
    agents: options.agents ?? agentsOverview(),
    agentFileVersion: 1,
    /** The team bank's side: members, roles, policy, audit log, org Inbox (fakeTeam.ts). */
    team: null as unknown as TeamData,
    callsOf(cmd: string) {
      return this.calls.filter((call) => call.cmd === cmd).map((call) => call.args);
    },
    /** Deletes that could not reach the "server": kept, like Rust's journal. */
    waiting: new Map<string, PendingDelete>((options.pendingDeletes ?? []).map((p) => [p.id, p])),
    async commit(id: string) {
      const entry = this.pending.get(id);
      if (!entry) return;
      clearTimeout(entry.timer);
      this.pending.delete(id);
      const { outcome, message } = this.outcomes.get(id) ?? { outcome: "deleted" };
      if (outcome === "waiting") {
        this.waiting.set(id, { id, orgId: entry.orgId, commitAt: Date.now(), waiting: true, message });
        await emit("memory-delete-settled", { id, orgId: entry.orgId, outcome, message } satisfies DeleteSettled);
        return;
      }
      this.committed.push({ id, orgId: entry.orgId });
      if (outcome !== "failed") this.memories = this.memories.filter((m) => m.id !== id);
      const payload: DeleteSettled = { id, orgId: entry.orgId, outcome, ...(message ? { message } : {}) };
      await emit("memory-delete-settled", payload);
    },
  };

  backend.team = teamData(backend.state, options.team);

  const handlers: Record<string, (args: Record<string, unknown>) => unknown> = {
    get_state: () => backend.state,
    set_active_org: (args) => (backend.state = { ...backend.state, activeOrgId: args.orgId as string }),
    set_prefs: (args) =>
      (backend.state = { ...backend.state, prefs: { ...backend.state.prefs, ...args } }),
    set_session_roots: (args) => {
      // Like Rust: absolute paths only (trimmed; `/…`, or a drive or UNC path as on
      // Windows), at most 20, duplicates dropped.
      const roots = args.roots as SessionRoot[];
      if (roots.length > 20)
        throw { code: "invalid_request", message: "at most 20 session folders can be added" };
      const clean: SessionRoot[] = [];
      for (const root of roots) {
        const path = root.path.trim();
        if (!/^(\/|[A-Za-z]:[\\/]|\\\\)/.test(path))
          throw {
            code: "invalid_request",
            message: `"${path}" is not an absolute path; give the full path of the tool's folder`,
          };
        if (!clean.some((r) => r.source === root.source && r.path === path))
          clean.push({ source: root.source, path });
      }
      return (backend.state = { ...backend.state, prefs: { ...backend.state.prefs, sessionRoots: clean } });
    },
    sign_in_team: (args) =>
      (backend.state = {
        ...backend.state,
        account: { kind: "team", url: args.url as string, fromEnv: false },
      }),
    use_local_account: () => (backend.state = { ...backend.state, account: { kind: "local" } }),
    sign_out: () => (backend.state = { ...backend.state, account: null, user: null }),
    list_memories: async (args) => {
      if (backend.listGate) await backend.listGate;
      if (backend.listError) throw backend.listError;
      const start = args.cursor ? Number(args.cursor) : 0;
      const limit = (args.limit as number | undefined) ?? 20;
      const shown = backend.memories.filter(inScope(args.scope));
      const page = shown.slice(start, start + limit);
      const next = start + limit < shown.length ? String(start + limit) : null;
      return { memories: page, nextCursor: next } satisfies ListResponse;
    },
    search_status: () =>
      backend.searchStatus ?? { meaning: "on" as const, memories: backend.memories.length, withVector: backend.memories.length },
    search_memories: (args) => ({
      results: backend.memories
        .filter(inScope(args.scope))
        .filter((m) => m.content.toLowerCase().includes(String(args.q).toLowerCase()))
        .map((m) => ({ ...m, score: 1, matched: "words" as const })),
    }),
    schedule_delete: async (args) => {
      const id = args.id as string;
      const orgId = args.orgId as string;
      const timer = setTimeout(() => void backend.commit(id), COMMIT_MS);
      backend.pending.set(id, { orgId, timer });
      const commitAt = Date.now() + COMMIT_MS;
      if (backend.scheduleGate) await backend.scheduleGate;
      return { id, commitAt };
    },
    // Edits, as the service makes them: same id and createdAt, the old version kept.
    edit_memory: (args) => {
      const { id, edit } = args as { id: string; edit: { content?: string; tags?: string[] } };
      if (backend.editError) throw backend.editError;
      const index = backend.memories.findIndex((m) => m.id === id);
      if (index < 0) throw { code: "memory_not_found", message: "memory not found" };
      const old = backend.memories[index];
      const updatedAt = new Date(Date.parse(old.updatedAt) + 60_000 * (backend.revisions.length + 1)).toISOString();
      backend.revisions.unshift({
        id: `mrev_${backend.revisions.length + 1}`,
        memoryId: id,
        content: old.content,
        tags: old.tags,
        createdAt: old.updatedAt,
        replacedAt: updatedAt,
      });
      const tags = edit.tags === undefined ? old.tags : edit.tags.length ? edit.tags : null;
      const next = { ...old, content: edit.content ?? old.content, tags, updatedAt, confirmedVia: "app" as const };
      backend.memories[index] = next;
      return next;
    },
    export_memories: async () => {
      if (backend.pickedFile === null) return { path: null, memories: 0 };
      await emit("transfer-progress", { kind: "export", done: 1, total: null });
      if (backend.transferGate) await backend.transferGate;
      await emit("transfer-progress", { kind: "export", done: backend.memories.length, total: null });
      return { path: backend.pickedFile, memories: backend.memories.length };
    },
    import_memories: async () => {
      if (backend.pickedFile === null)
        return { path: null, report: { imported: 0, skipped: 0, overwritten: 0, failed: [], failedCount: 0, newIds: [], newIdCount: 0 } };
      const { lines, refused, newIds = [] } = backend.importFile;
      await emit("transfer-progress", { kind: "import", done: 0, total: lines });
      if (backend.transferGate) await backend.transferGate;
      const good = lines - refused.length;
      const added = Array.from({ length: good }, (_, i) => memory(1000 + i, { content: `Imported ${i + 1}` }));
      backend.memories = [...added, ...backend.memories];
      await emit("transfer-progress", { kind: "import", done: lines, total: lines });
      const report = { imported: good, skipped: 0, overwritten: 0, failed: refused, failedCount: refused.length, newIds, newIdCount: newIds.length };
      return { path: backend.pickedFile, report };
    },
    memories_citing: (args) => ({
      memories: backend.memories.filter((m) => m.contexts.some((c) => c.citation?.conversationId === args.sessionId)),
    }),
    // Duplicate hints, roughly as the service finds them: half the words in common.
    find_similar: (args) => {
      const words = (text: string) => new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean));
      const wanted = words(String(args.content));
      const similar = backend.memories
        .filter((m) => m.id !== args.excludeId)
        .filter((m) => {
          const have = words(m.content);
          const shared = [...wanted].filter((w) => have.has(w)).length;
          return shared / new Set([...wanted, ...have]).size >= 0.5;
        })
        .slice(0, 3)
        .map((m) => ({ id: m.id, content: m.content }));
      return { similar };
    },
    memory_revisions: (args) => ({ revisions: backend.revisions.filter((r) => r.memoryId === args.id) }),
    restore_revision: (args) => {
      const revision = backend.revisions.find((r) => r.id === args.revisionId && r.memoryId === args.id);
      if (!revision) throw { code: "memory_not_found", message: "memory not found" };
      return handlers.edit_memory({ id: args.id, edit: { content: revision.content, tags: revision.tags ?? [] } });
    },
    list_pending_deletes: () => [
      ...[...backend.pending.entries()].map(([id, p]) => ({ id, orgId: p.orgId, commitAt: Date.now(), waiting: false })),
      ...backend.waiting.values(),
    ],
    undo_delete: (args) => {
      if (backend.waiting.delete(args.id as string)) return { undone: true };
      const entry = backend.pending.get(args.id as string);
      if (!entry) return { undone: false };
      clearTimeout(entry.timer);
      backend.pending.delete(args.id as string);
      return { undone: true };
    },
    ...sessionHandlers(backend),
    ...inboxHandlers(backend),
    ...teamHandlers(backend, inboxHandlers(backend)),
    // tauri-plugin-opener: Rust hands the URL to the system browser and answers null.
    "plugin:opener|open_url": () => null,
    flush_deletes: async () => {
      await Promise.all([...backend.pending.keys()].map((id) => backend.commit(id)));
      return null;
    },
  };

  mockIPC(
    (cmd, args) => {
      const record = (args ?? {}) as Record<string, unknown>;
      backend.calls.push({ cmd, args: record });
      const failure = backend.failures.get(cmd);
      if (failure) throw failure;
      const handler = handlers[cmd];
      if (!handler) throw { code: "internal", message: `unknown command ${cmd}` };
      return handler(record);
    },
    { shouldMockEvents: true },
  );
  return backend;
}

export { clearMocks };
