// The Sessions half of the fake backend: list/facets/open/read/search over in-memory
// sessions, and save_memory, which adds a memory the memory panel then lists.
import type {
  IpcError,
  Memory,
  SearchHit,
  SessionInfo,
  SessionList,
  SessionActivity,
  Source,
  SourceFolders,
  ToolActivity,
  Transcript,
  TranscriptMessage,
} from "../src/ipc";

export interface SessionData {
  sessions: SessionInfo[];
  /** Messages by session id, oldest first, index = position. */
  transcripts: Record<string, TranscriptMessage[]>;
  /** Reported total when the list is capped (default: the number that match). */
  total?: number;
  /** Tool calls by session id (session_activity); none when absent. */
  activity?: Record<string, ToolActivity[]>;
}

const SOURCES: Source[] = ["claude-code", "codex", "opencode", "gemini"];

/** session_sources' answer: every source, the first four found in their default folders. */
export function sourceFolders(): SourceFolders[] {
  const defaults: Partial<Record<Source, string>> = {
    "claude-code": "/home/me/.claude",
    codex: "/home/me/.codex",
    opencode: "/home/me/.local/share/opencode",
    gemini: "/home/me/.gemini/tmp",
    "qwen-code": "/home/me/.qwen",
    windsurf: "/home/me/.codeium/windsurf/cascade",
  };
  // Every source in the backend's order (Source::ALL); Windsurf is here but kept encrypted.
  const all: Source[] = [
    "claude-code", "codex", "opencode", "gemini", "qwen-code", "cursor", "copilot-cli", "amp", "goose", "crush", "zed",
    "aider", "cline", "roo-code", "windsurf", "antigravity", "chatgpt", "claude-ai",
  ];
  return all.map((source) => {
    const path = defaults[source];
    const found = SOURCES.includes(source) || source === "windsurf";
    const folders = path ? [{ path, exists: found, added: false }] : [];
    if (source === "windsurf")
      return { source, enabled: true, found, folders, unreadable: "Windsurf keeps its Cascade conversations encrypted" };
    return { source, enabled: true, found, folders };
  });
}

export function session(n: number, extra: Partial<SessionInfo> = {}): SessionInfo {
  const updated = new Date(Date.UTC(2026, 0, 1) - n * 3_600_000).toISOString();
  return {
    sessionId: `ses_${n}`,
    source: SOURCES[(n - 1) % SOURCES.length],
    title: `Session number ${n}`,
    workspace: `/home/me/project-${n % 2 === 0 ? "even" : "odd"}`,
    createdAt: updated,
    updatedAt: updated,
    messageCount: 4,
    ...extra,
  };
}

export function transcript(count: number, text = (i: number) => `Message ${i}`): TranscriptMessage[] {
  return Array.from({ length: count }, (_, index) => ({
    index,
    messageId: `msg_${index}`,
    role: index % 2 === 0 ? "user" : "assistant",
    text: text(index),
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString(),
  }));
}

/** Activity fixture: `{ 3: ["Read", "Bash"] }` → tools after message 3 (-1: before the first). */
export function activity(byIndex: Record<number, string[]>): ToolActivity[] {
  return Object.entries(byIndex).map(([afterIndex, tools]) => ({ afterIndex: Number(afterIndex), tools }));
}

interface Backend {
  sessionData: SessionData;
  memories: Memory[];
  sessionsError: IpcError | null;
  sessionsGate: Promise<void> | null;
  sources: SourceFolders[];
  saveError: IpcError | null;
}

const notFound = (id: string): IpcError => ({ code: "session_not_found", message: `No session ${id}` });

export function sessionHandlers(backend: Backend): Record<string, (args: Record<string, unknown>) => unknown> {
  const find = (id: unknown) => backend.sessionData.sessions.find((s) => s.sessionId === id);
  return {
    list_sessions: async (args) => {
      if (backend.sessionsGate) await backend.sessionsGate;
      if (backend.sessionsError) throw backend.sessionsError;
      const status = (args.status as string | undefined) ?? "all";
      const matching = backend.sessionData.sessions.filter(
        (s) =>
          (!args.source || s.source === args.source) &&
          (!args.workspace || s.workspace === args.workspace) &&
          (status === "all" || (status === "archived") === Boolean(s.archived)),
      );
      const limit = (args.limit as number | undefined) ?? 30;
      return {
        total: backend.sessionData.total ?? matching.length,
        sessions: matching.slice(0, limit),
      } satisfies SessionList;
    },
    session_sources: () => backend.sources,
    set_source_enabled: (args) => {
      backend.sources = backend.sources.map((s) => (s.source === args.source ? { ...s, enabled: Boolean(args.enabled) } : s));
      return backend.sources;
    },
    forget_session: (args) => {
      const found = backend.sessionData.sessions.find((s) => s.sessionId === args.sessionId);
      if (!found) throw { code: "session_not_found", message: `no session ${String(args.sessionId)}` };
      backend.sessionData.sessions = backend.sessionData.sessions.filter((s) => s !== found);
      return found;
    },
    session_facets: () => {
      const count = <K extends string>(keys: (K | null)[]) => {
        const map = new Map<K, number>();
        for (const key of keys) if (key) map.set(key, (map.get(key) ?? 0) + 1);
        return [...map].sort((a, b) => b[1] - a[1]);
      };
      const all = backend.sessionData.sessions;
      return {
        sources: count(all.map((s) => s.source)).map(([source, n]) => ({ source, count: n })),
        workspaces: count(all.map((s) => s.workspace)).map(([workspace, n]) => ({ workspace, count: n })),
      };
    },
    open_session: (args) => {
      const found = find(args.sessionId);
      if (!found) throw notFound(String(args.sessionId));
      return found;
    },
    find_session: (args) => {
      const found = find(args.sessionId);
      if (!found) throw notFound(String(args.sessionId));
      return found;
    },
    read_transcript: (args) => {
      const found = find(args.sessionId);
      if (!found) throw notFound(String(args.sessionId));
      const all = backend.sessionData.transcripts[found.sessionId] ?? [];
      const before = args.before as number | undefined;
      const count = (args.count as number | undefined) ?? 10;
      const older = before === undefined ? all : all.filter((m) => m.index < before);
      const messages = older.slice(Math.max(0, older.length - count));
      return {
        sessionId: found.sessionId,
        title: found.title,
        messageCount: all.length,
        returned: messages.length,
        messages,
      } satisfies Transcript;
    },
    session_activity: (args) => {
      // Like Rust: the calls after messages fromIndex - 1 .. toIndex, only non-empty ones.
      const found = find(args.sessionId);
      if (!found) throw notFound(String(args.sessionId));
      const from = args.fromIndex as number;
      const to = args.toIndex as number;
      if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from)
        throw { code: "invalid_request", message: `bad range ${from}..${to}` } satisfies IpcError;
      const entries = backend.sessionData.activity?.[found.sessionId] ?? [];
      return {
        activity: entries
          .filter((e) => e.afterIndex >= from - 1 && e.afterIndex <= to && e.tools.length > 0)
          .sort((a, b) => a.afterIndex - b.afterIndex),
      } satisfies SessionActivity;
    },
    search_messages: (args) => {
      const query = String(args.query).toLowerCase();
      const hits: SearchHit[] = [];
      for (const s of backend.sessionData.sessions)
        for (const m of backend.sessionData.transcripts[s.sessionId] ?? [])
          if (m.text.toLowerCase().includes(query))
            hits.push({ sessionId: s.sessionId, source: s.source, title: s.title, messageId: m.messageId, index: m.index, role: m.role, snippet: m.text });
      return { hits: hits.slice(0, (args.limit as number | undefined) ?? 20) };
    },
    save_memory: (args) => {
      if (backend.saveError) throw backend.saveError;
      const now = new Date().toISOString();
      const contexts = (args.contexts as { snippet: string; conversationId: string; messageId: string; origin: "searched_conversation" }[] | undefined) ?? [];
      const saved: Memory = {
        id: `mem_saved_${backend.memories.length + 1}`,
        content: String(args.content),
        tags: (args.tags as string[] | undefined) ?? null,
        source: "desktop",
        scope: "user",
        orgId: String(args.orgId),
        createdAt: now,
        updatedAt: now,
        contexts: contexts.map((c, i) => ({
          id: `mctx_${i}`,
          snippet: c.snippet,
          citation: { conversationId: c.conversationId, messageId: c.messageId },
          origin: c.origin,
          createdAt: now,
        })),
      };
      backend.memories = [saved, ...backend.memories];
      return saved;
    },
  };
}
