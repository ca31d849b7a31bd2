// Typed wrappers over the Tauri commands and event in docs/desktop-ipc.md.
// This is the only module in the UI that calls `invoke` or `listen`: the webview never
// talks HTTP, and keeping the boundary in one file keeps it reviewable against the doc.
import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";

export type Language = "en" | "zh-CN";

export type Account = { kind: "local" } | { kind: "team"; url: string; fromEnv: boolean };

export interface Org {
  id: string;
  name: string;
}

/** A session folder read besides each tool's default ones (e.g. a copy from another machine). */
export interface SessionRoot {
  /** Which tool's format the folder holds. */
  source: Source;
  /** An absolute path: the tool's data folder (e.g. `/mnt/old/.codex`). */
  path: string;
}

export interface Prefs {
  memoryEnabled: boolean;
  /** null = follow the OS language. */
  language: Language | null;
  /** Extra session folders; change them with `setSessionRoots`, not `setPrefs`. */
  sessionRoots: SessionRoot[];
}

export interface AppState {
  /** null = not signed in (team chosen but no token). */
  account: Account | null;
  user: { id: string; email: string } | null;
  orgs: Org[];
  /** null = no active org. */
  activeOrgId: string | null;
  prefs: Prefs;
}

export interface Citation {
  conversationId?: string;
  messageId?: string;
}

export interface MemoryContext {
  id: string;
  snippet: string;
  citation: Citation | null;
  origin: "active_conversation" | "searched_conversation" | null;
  createdAt: string;
}

/** How a person confirmed that a memory should exist. */
export type ConfirmedVia = "app" | "elicitation" | "cli" | "import";

export interface Memory {
  id: string;
  content: string;
  tags: string[] | null;
  source: string;
  scope: "user" | "org";
  orgId: string;
  createdAt: string;
  updatedAt: string;
  contexts: MemoryContext[];
  /** Absent on memories saved before this was recorded. */
  confirmedVia?: ConfirmedVia;
  /** The MCP client that proposed it (e.g. "claude-code"), when known. */
  proposedBy?: string;
}

export interface ListResponse {
  memories: Memory[];
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

export interface SearchResponse {
  results: (Memory & { score: number })[];
}

/** `waiting`: not sent yet (server unreachable); still hidden, retried, cancellable. */
export type DeleteOutcome = "deleted" | "not_found" | "failed" | "waiting";

/** A delete not settled yet, kept by Rust across restarts (its journal). */
export interface PendingDelete {
  id: string;
  orgId: string;
  commitAt: number;
  waiting: boolean;
  message?: string;
}

export interface DeleteSettled {
  id: string;
  orgId: string;
  outcome: DeleteOutcome;
  message?: string;
}

export type IpcErrorCode =
  | "unauthorized"
  | "organization_not_found"
  | "memory_not_found"
  | "invalid_request"
  | "unreachable"
  | "service_unavailable"
  | "keyring"
  | "no_account"
  | "internal"
  // Sessions (agent history on this machine).
  | "session_not_found"
  | "no_messages"
  | "invalid_argument"
  | "no_open_session"
  | "index"
  | "looks_like_secret"
  // The Inbox.
  | "proposal_not_found"
  | "proposal_not_pending"
  | "agent_token_cannot_confirm"
  // Settings → Agents.
  | "agent_config"
  | "agent_config_changed"
  | "cli_not_found";

/** The shape of a rejected `invoke`. */
export interface IpcError {
  code: IpcErrorCode | string;
  message: string;
}

export function isIpcError(value: unknown): value is IpcError {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as IpcError).code === "string" &&
    typeof (value as IpcError).message === "string"
  );
}

/** A human-readable message for anything a command may reject with. */
export function errorMessage(error: unknown): string {
  if (isIpcError(error)) return error.message;
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  return String(error);
}

export const getState = () => invoke<AppState>("get_state");

export const setActiveOrg = (orgId: string) => invoke<AppState>("set_active_org", { orgId });

export const setPrefs = (prefs: Partial<Prefs>) => invoke<AppState>("set_prefs", prefs);

export const signInTeam = (url: string, token: string) =>
  invoke<AppState>("sign_in_team", { url, token });

// Named "choose…" rather than "use…" so it does not read as a React hook.
export const chooseLocalAccount = () => invoke<AppState>("use_local_account");

export const signOut = () => invoke<AppState>("sign_out");

export const listMemories = (args: { orgId: string; limit?: number; cursor?: string }) =>
  invoke<ListResponse>("list_memories", args);

export const searchMemories = (args: { orgId: string; q: string; limit?: number }) =>
  invoke<SearchResponse>("search_memories", args);

/** Starts the 6 s commit timer in Rust; `orgId` is the org active when the person confirmed. */
export const scheduleDelete = (args: { orgId: string; id: string }) =>
  invoke<{ id: string; commitAt: number }>("schedule_delete", args);

export const undoDelete = (id: string) => invoke<{ undone: boolean }>("undo_delete", { id });

export const flushDeletes = () => invoke<null>("flush_deletes");

export const listPendingDeletes = () => invoke<PendingDelete[]>("list_pending_deletes");

export const DELETE_SETTLED_EVENT = "memory-delete-settled";

export function onDeleteSettled(handler: (event: DeleteSettled) => void): Promise<UnlistenFn> {
  return listen<DeleteSettled>(DELETE_SETTLED_EVENT, (event) => handler(event.payload));
}

// Sessions: the agent history on this machine (docs/desktop-ipc.md, "Sessions").

export type Source = "claude-code" | "codex" | "opencode" | "gemini";

export type Role = "user" | "assistant";

export interface SessionInfo {
  sessionId: string;
  source: Source;
  /** The tool's title, else the full first user message. */
  title: string;
  workspace: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  messageCount: number;
}

/** Newest first; `total` counts every match, `sessions` is capped by `limit`. */
export interface SessionList {
  total: number;
  sessions: SessionInfo[];
}

export interface TranscriptMessage {
  index: number;
  messageId: string;
  role: Role;
  text: string;
  timestamp: string | null;
}

/** Oldest first. */
export interface Transcript {
  sessionId: string;
  title: string;
  messageCount: number;
  returned: number;
  messages: TranscriptMessage[];
}

/** Tool calls the agent made after message `afterIndex` (-1: before the first message). */
export interface ToolActivity {
  afterIndex: number;
  /** Tool names in call order; untrusted text from the session file. */
  tools: string[];
}

/** Only entries with at least one call, for `afterIndex` from `fromIndex - 1` to `toIndex`. */
export interface SessionActivity {
  activity: ToolActivity[];
}

export interface LatestMessage {
  sessionId: string;
  index: number;
  messageId: string;
  role: Role;
  text: string;
  timestamp: string | null;
}

export interface SearchHit {
  sessionId: string;
  source: Source;
  title: string;
  messageId: string;
  index: number;
  role: Role;
  snippet: string;
}

/** Most sessions first. */
export interface Facets {
  sources: { source: Source; count: number }[];
  workspaces: { workspace: string; count: number }[];
}

export interface SaveContext {
  snippet: string;
  conversationId: string;
  messageId: string;
  origin: "active_conversation" | "searched_conversation";
}

export const listSessions = (args: {
  limit?: number;
  workspace?: string;
  source?: Source;
  query?: string;
}) => invoke<SessionList>("list_sessions", args);

export const sessionFacets = () => invoke<Facets>("session_facets");

/** Like openSession, but does not make it the open session (citation checks). */
export const findSession = (args: { sessionId: string; source?: Source }) =>
  invoke<SessionInfo>("find_session", args);

/** Also makes it the open session on the Rust side. */
export const openSession = (args: { sessionId: string; source?: Source }) =>
  invoke<SessionInfo>("open_session", args);

/** Pages backwards: no `before` = the last `count` messages. */
export const readTranscript = (args: { sessionId?: string; count?: number; before?: number }) =>
  invoke<Transcript>("read_transcript", args);

/** Tool calls between the messages `fromIndex`..`toIndex` (and just before `fromIndex`). */
export const sessionActivity = (args: { sessionId: string; fromIndex: number; toIndex: number }) =>
  invoke<SessionActivity>("session_activity", args);

export const latestMessage = (args: { sessionId?: string } = {}) =>
  invoke<LatestMessage>("latest_message", args);

export const searchMessages = (args: { query: string; limit?: number }) =>
  invoke<{ hits: SearchHit[] }>("search_messages", args);

/** Replaces the extra session folders (absolute paths, at most 20) with `roots`. */
export const setSessionRoots = (roots: SessionRoot[]) =>
  invoke<AppState>("set_session_roots", { roots });

/** `orgId` is the org active when the person pressed Save. */
export const saveMemory = (args: {
  orgId: string;
  content: string;
  tags?: string[];
  contexts?: SaveContext[];
}) => invoke<Memory>("save_memory", args);

export const SESSIONS_CHANGED_EVENT = "sessions-changed";

export function onSessionsChanged(handler: () => void): Promise<UnlistenFn> {
  return listen<null>(SESSIONS_CHANGED_EVENT, () => handler());
}

// The Inbox: what agents proposed, waiting for the person (docs/desktop-ipc.md, "Inbox").

export type ProposalAction = "save" | "delete";

export type ProposalStatus = "pending" | "accepted" | "rejected" | "expired";

export interface ProposedContext {
  snippet: string;
  citation: Citation | null;
  origin: "active_conversation" | "searched_conversation" | null;
}

export interface Proposal {
  id: string;
  action: ProposalAction;
  status: ProposalStatus;
  /** Save: the drafted sentence. Delete: the memory's content when it was proposed. */
  content: string;
  tags: string[] | null;
  contexts: ProposedContext[];
  /** Delete: the memory to delete. Save, once accepted: the memory saved. */
  memoryId: string | null;
  /** The MCP client's name (e.g. "claude-code"), when known. */
  proposedBy: string | null;
  /** The org the memory is saved in (or deleted from). */
  orgId: string;
  createdAt: string;
  expiresAt: string;
  decidedAt: string | null;
}

/** Newest first; `nextCursor` is set when more than the listed ones are pending. */
export interface ProposalListResponse {
  proposals: Proposal[];
  nextCursor: string | null;
}

export interface ProposalResponse {
  proposal: Proposal;
  /** Accepted saves: the memory saved. */
  memory?: Memory;
}

/** What the person changed before accepting; absent = as proposed. */
export interface ProposalEdits {
  content?: string;
  tags?: string[];
}

/** Pending proposals of the signed-in user (every org; each names its own). */
export const listProposals = (orgId: string) => invoke<ProposalListResponse>("list_proposals", { orgId });

/** Accepts as the person (`confirmedVia: app`); edited text that looks secret is refused. */
export const acceptProposal = (args: { orgId: string; id: string; edits?: ProposalEdits }) =>
  invoke<ProposalResponse>("accept_proposal", args);

export const rejectProposal = (args: { orgId: string; id: string }) =>
  invoke<ProposalResponse>("reject_proposal", args);

export const INBOX_CHANGED_EVENT = "inbox-changed";

/** Emitted when the pending proposals changed (a new one, or one decided anywhere). */
export function onInboxChanged(handler: (event: { pending: number }) => void): Promise<UnlistenFn> {
  return listen<{ pending: number }>(INBOX_CHANGED_EVENT, (event) => handler(event.payload));
}

// Settings → Agents: the Memory Bank MCP server in each agent's own config file.

export type Agent = "claude-code" | "codex" | "opencode" | "gemini";

export type AgentAction = "install" | "remove";

export interface AgentStatus {
  agent: Agent;
  displayName: string;
  /** The config file Install or Remove edits. */
  configPath: string;
  /** Its config file or folder exists, or its program is on PATH. */
  detected: boolean;
  /** The file has a `memory-bank` entry. */
  installed: boolean;
  /** That entry is exactly what Install writes now. */
  entryMatches: boolean;
  /** Why the file could not be read, if so. */
  problem: string | null;
}

export interface AgentsOverview {
  /** The `memory-bank` binary agents will run (`<path> mcp`); null path = not found. */
  cli: { path: string | null; problem: string | null };
  agents: AgentStatus[];
}

export type AgentChange = "create" | "add" | "update" | "remove" | "already-installed" | "not-installed";

export interface AgentPlan {
  agent: Agent;
  action: AgentAction;
  configPath: string;
  change: AgentChange;
  /** false: nothing would be written. */
  changed: boolean;
  /** Unified diff of the file; "" when unchanged. */
  diff: string;
}

export interface AgentApplied {
  written: boolean;
  /** The previous file's copy, when there was one. */
  backup: string | null;
  overview: AgentsOverview;
}

export const agentStatuses = () => invoke<AgentsOverview>("agent_statuses");

/** The exact change Install/Remove would make; nothing is written. */
export const planAgentChange = (args: { agent: Agent; action: AgentAction }) =>
  invoke<AgentPlan>("plan_agent_change", args);

/** Writes the change only if it is still `diff`, the one the person confirmed. */
export const applyAgentChange = (args: { agent: Agent; action: AgentAction; diff: string }) =>
  invoke<AgentApplied>("apply_agent_change", args);
