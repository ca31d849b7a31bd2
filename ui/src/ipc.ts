// Typed wrappers over the Tauri commands and events (behaviour: docs/desktop-ipc.md).
// This is the only module in the UI that calls `invoke` or `listen` (or a plugin that
// does: the opener): the webview never talks HTTP, and keeping the boundary in one file
// keeps it reviewable. Every shape comes from ./bindings.ts, generated from the Rust
// types, so nothing here can drift from Rust.
import { invoke, type InvokeArgs } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import { openUrl } from "@tauri-apps/plugin-opener";
import type {
  ActivityEntry,
  Activity,
  Change,
  CommandTypes,
  ContextInput,
  DesktopError,
  ErrorCode,
  EventTypes,
  OrgInfo,
  Outcome,
  PrefsPatch,
  Settled,
  UiPrefs,
} from "./bindings";
import type { COMMANDS } from "./bindings";

export type {
  AcceptProposalArgs,
  Account,
  Agent,
  AgentAction,
  AgentApplied,
  AgentNotice,
  AgentPlan,
  AgentsOverview,
  AgentStatus,
  AppState,
  ApplyAgentChangeArgs,
  AuditAction,
  AuditEntry,
  AuditPage,
  BankScope,
  Citation,
  ConfirmedVia,
  EditMemoryRequest,
  Facets,
  Language,
  LatestArgs,
  LatestMessage,
  ListArgs,
  ListMemoriesArgs,
  ListResponse,
  Matched,
  MeaningState,
  SearchStatus,
  Memory,
  MemoryContext,
  MemoryVersion,
  MessageSearchResult,
  OpenArgs,
  PendingDelete,
  Part,
  PlanAgentChangeArgs,
  PlannedPart,
  PrefsPatch,
  Proposal,
  ProposalAction,
  ProposalEdits,
  ProposalListResponse,
  ProposalResponse,
  ProposalStatus,
  ProposedContext,
  ReadArgs,
  RecallPlan,
  RejectProposalArgs,
  ReviewedDiff,
  Revision,
  RevisionListResponse,
  OrgMember,
  OrgPolicy,
  OrgRole,
  Role,
  SaveMemoryArgs,
  Scope,
  ScheduleDeleteArgs,
  ScheduledDelete,
  SearchArgs,
  SearchHit,
  SearchMemoriesArgs,
  SearchResponse,
  SessionInfo,
  SessionList,
  SessionRoot,
  SessionStatus,
  SetSourceEnabledArgs,
  SourceFolder,
  SourceFolders,
  TeamMembers,
  ForgetArgs,
  SimilarMemory,
  Source,
  ExportOutcome,
  ImportChatsOutcome,
  ImportedChats,
  ImportOutcome,
  ImportReport,
  TransferProgress,
  Transcript,
  TranscriptMessage,
  Undone,
} from "./bindings";

// The UI's names for generated types whose Rust name says less out of context.
export type Org = OrgInfo;
export type Prefs = UiPrefs;
export type DeleteOutcome = Outcome;
export type DeleteSettled = Settled;
export type ToolActivity = ActivityEntry;
export type SessionActivity = Activity;
export type AgentChange = Change;
export type SaveContext = ContextInput;

/** Every code a rejected command carries (Rust's `ErrorCode`). */
export type IpcErrorCode = ErrorCode;

/** The shape of a rejected `invoke` (Rust's `DesktopError`). */
export interface IpcError extends Omit<DesktopError, "code"> {
  code: IpcErrorCode | string;
}

type Command = keyof CommandTypes;
type ArgsOf<C extends Command> = CommandTypes[C]["args"];
type AnswerOf<C extends Command> = CommandTypes[C]["answer"];

// Every command the window may call has its argument and answer types: a command missing
// from CommandTypes fails `tsc` here.
type Assert<T extends true> = T;
type Untyped = Exclude<(typeof COMMANDS)[number], Command>;
export type EveryCommandIsTyped = Assert<[Untyped] extends [never] ? true : false>;

/** Invokes `command` with its typed arguments (optional where every field is). */
function call<C extends Command>(
  command: C,
  ...args: {} extends ArgsOf<C> ? [args?: ArgsOf<C>] : [args: ArgsOf<C>]
): Promise<AnswerOf<C>> {
  return invoke<AnswerOf<C>>(command, args[0] as InvokeArgs | undefined);
}

/** Listens to `event`; the handler gets its typed payload. */
function on<E extends keyof EventTypes & string>(event: E, handler: (payload: EventTypes[E]) => void): Promise<UnlistenFn> {
  return listen<EventTypes[E]>(event, (message) => handler(message.payload));
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

export const getState = () => call("get_state");

export const setActiveOrg = (orgId: string) => call("set_active_org", { orgId });

export const setPrefs = (prefs: PrefsPatch) => call("set_prefs", prefs);

export const signInTeam = (url: string, token: string) => call("sign_in_team", { url, token });

// Named "choose…" rather than "use…" so it does not read as a React hook.
export const chooseLocalAccount = () => call("use_local_account");

export const signOut = () => call("sign_out");

export const listMemories = (args: ArgsOf<"list_memories">) => call("list_memories", args);

export const searchMemories = (args: ArgsOf<"search_memories">) => call("search_memories", args);

/** Whether search reads meaning, and how far the person's vectors are made. */
export const searchStatus = (args: ArgsOf<"search_status">) => call("search_status", args);

/** Starts the 6 s commit timer in Rust; `orgId` is the org active when the person confirmed. */
export const scheduleDelete = (args: ArgsOf<"schedule_delete">) => call("schedule_delete", args);

export const undoDelete = (id: string) => call("undo_delete", { id });

export const flushDeletes = () => call("flush_deletes");

export const listPendingDeletes = () => call("list_pending_deletes");

export const editMemory = (args: ArgsOf<"edit_memory">) => call("edit_memory", args);

/** The person's memories worded much like a sentence: hints, never merged. */
export const findSimilar = (args: ArgsOf<"find_similar">) => call("find_similar", args);

/** The person's memories that cite a session, newest first (the Sessions view's markers). */
export const memoriesCiting = (args: ArgsOf<"memories_citing">) => call("memories_citing", args);

export const memoryRevisions = (args: ArgsOf<"memory_revisions">) => call("memory_revisions", args);

export const restoreRevision = (args: ArgsOf<"restore_revision">) => call("restore_revision", args);

export const DELETE_SETTLED_EVENT = "memory-delete-settled" satisfies keyof EventTypes;

export function onDeleteSettled(handler: (event: DeleteSettled) => void): Promise<UnlistenFn> {
  return on(DELETE_SETTLED_EVENT, handler);
}

// Sessions: the agent history on this machine (docs/desktop-ipc.md, "Sessions").

export const listSessions = (args: ArgsOf<"list_sessions"> = {}) => call("list_sessions", args);

export const sessionFacets = () => call("session_facets");

/** Removes a session from the history (index, search, archive) until its tool adds to it. */
export const forgetSession = (args: ArgsOf<"forget_session">) => call("forget_session", args);

/** Like openSession, but does not make it the open session (citation checks). */
export const findSession = (args: ArgsOf<"find_session">) => call("find_session", args);

/** Also makes it the open session on the Rust side. */
export const openSession = (args: ArgsOf<"open_session">) => call("open_session", args);

/** Pages backwards: no `before` = the last `count` messages. */
export const readTranscript = (args: ArgsOf<"read_transcript">) => call("read_transcript", args);

/** Tool calls between the messages `fromIndex`..`toIndex` (and just before `fromIndex`). */
export const sessionActivity = (args: ArgsOf<"session_activity">) => call("session_activity", args);

export const latestMessage = (args: ArgsOf<"latest_message"> = {}) => call("latest_message", args);

export const searchMessages = (args: ArgsOf<"search_messages">) => call("search_messages", args);

/** Replaces the extra session folders (absolute paths, at most 20) with `roots`. */
export const setSessionRoots = (roots: ArgsOf<"set_session_roots">["roots"]) => call("set_session_roots", { roots });

/** `orgId` is the org active when the person pressed Save. */
export const saveMemory = (args: ArgsOf<"save_memory">) => call("save_memory", args);

export const SESSIONS_CHANGED_EVENT = "sessions-changed" satisfies keyof EventTypes;

export function onSessionsChanged(handler: () => void): Promise<UnlistenFn> {
  return on(SESSIONS_CHANGED_EVENT, () => handler());
}

// The Inbox: what agents proposed, waiting for the person (docs/desktop-ipc.md, "Inbox").

/** Pending proposals of the signed-in user (every org; each names its own). */
export const listProposals = (orgId: string) => call("list_proposals", { orgId });

/** Accepts as the person (`confirmedVia: app`); edited text that looks secret is refused. */
export const acceptProposal = (args: ArgsOf<"accept_proposal">) => call("accept_proposal", args);

export const rejectProposal = (args: ArgsOf<"reject_proposal">) => call("reject_proposal", args);

// Team banks (docs/teams.md): the org Inbox, and Settings → Team. A read the person's
// role does not allow answers null (a member: nothing to show), never an error; a refused
// change rejects with the server's own sentence as its message.

/** The org Inbox: pending proposals to the team bank; null for a member. */
export const listTeamProposals = (orgId: string) => call("list_team_proposals", { orgId });

/** The person's role in the org and, for admins and owners, its members. */
export const teamMembers = (orgId: string) => call("team_members", { orgId });

export const changeMemberRole = (args: ArgsOf<"change_member_role">) => call("change_member_role", args);

export const removeMember = (args: ArgsOf<"remove_member">) => call("remove_member", args);

export const orgPolicy = (orgId: string) => call("org_policy", { orgId });

/** Owners only; the whole policy replaces the one in force. */
export const setOrgPolicy = (args: ArgsOf<"set_org_policy">) => call("set_org_policy", args);

/** One page of the audit log, newest first; null for a member. */
export const orgAudit = (args: ArgsOf<"org_audit">) => call("org_audit", args);

// Settings → Data: Rust opens the system's file dialog (the web view never names a path)
// and reports progress as `transfer-progress`.

/** Asks where, then writes every memory there; `path` is null when the person cancelled. */
export const exportMemories = (orgId: string) => call("export_memories", { orgId });

/** Asks which export file, then imports it; `path` is null when the person cancelled. */
export const importMemories = (args: ArgsOf<"import_memories">) => call("import_memories", args);

export const TRANSFER_PROGRESS_EVENT = "transfer-progress" satisfies keyof EventTypes;

export function onTransferProgress(handler: (event: EventTypes[typeof TRANSFER_PROGRESS_EVENT]) => void): Promise<UnlistenFn> {
  return on(TRANSFER_PROGRESS_EVENT, handler);
}

export const INBOX_CHANGED_EVENT = "inbox-changed" satisfies keyof EventTypes;

/** Emitted when the pending proposals changed (a new one, or one decided anywhere). */
export function onInboxChanged(handler: (event: EventTypes[typeof INBOX_CHANGED_EVENT]) => void): Promise<UnlistenFn> {
  return on(INBOX_CHANGED_EVENT, handler);
}

// Session sources: every tool's sessions, found here or not, the folders read, on or off.

/** Settings → Data → Import chats: Rust opens the dialog, keeps the export's conversations. */
export const importChats = () => call("import_chats");

/** Every source, in display order, with its folders and whether it is read. */
export const sessionSources = () => call("session_sources");

/** Turns a source on or off, for the app and for `memory-bank sessions` and `mcp`. */
export const setSourceEnabled = (args: ArgsOf<"set_source_enabled">) => call("set_source_enabled", args);

// Settings → Agents: the Memory Bank MCP server in each agent's own config file.

export const agentStatuses = () => call("agent_statuses");

/** The exact change Install/Remove would make; nothing is written. */
export const planAgentChange = (args: ArgsOf<"plan_agent_change">) => call("plan_agent_change", args);

/** Writes the change only if it is still `diff`, the one the person confirmed. */
export const applyAgentChange = (args: ArgsOf<"apply_agent_change">) => call("apply_agent_change", args);

/** What turning recall on or off would change in each agent Memory Bank is installed in. */
export const planRecallChange = (args: ArgsOf<"plan_recall_change">) => call("plan_recall_change", args);

/** Writes each agent's change only if it is still the reviewed diff, then keeps the setting. */
export const applyRecallChange = (args: ArgsOf<"apply_recall_change">) => call("apply_recall_change", args);

/**
 * Opens `url` in the system browser (or mail client) through tauri-plugin-opener, never in
 * the web view. The window's capability lets it open http, https and mailto URLs only;
 * callers pass URLs already checked by `safeHref` (sessions/markdown/links.ts).
 */
export const openInBrowser = (url: string) => openUrl(url);
