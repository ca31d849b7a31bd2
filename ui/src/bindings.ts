// Generated from the Rust types of the desktop IPC (crates/desktop/src/commands.rs) by
// `UPDATE_BINDINGS=1 cargo test -p memory-bank-app --test desktop_bindings`. Do not edit.

/**
 * `accept_proposal`.
 */
export type AcceptProposalArgs = { 
/**
 * The org the request is made in.
 */
orgId: string, 
/**
 * The proposal.
 */
id: string, 
/**
 * What the person changed; absent = as proposed.
 */
edits?: ProposalEdits, };

/**
 * The account in use, as the UI sees it.
 */
export type Account = { "kind": "local" } | { "kind": "team", 
/**
 * Server URL.
 */
url: string, 
/**
 * Chosen by env variables (not the keyring).
 */
fromEnv: boolean, };

/**
 * The answer of `session_activity`.
 */
export type Activity = { 
/**
 * Ordered by `afterIndex`; only entries with at least one call.
 */
activity: Array<ActivityEntry>, };

/**
 * Arguments of `session_activity`.
 */
export type ActivityArgs = { 
/**
 * Default: the open session.
 */
sessionId?: string, 
/**
 * The first message of the range (its preceding calls are included); default 0.
 */
fromIndex?: number, 
/**
 * The last message of the range; default the last message.
 */
toIndex?: number, };

/**
 * Tool calls the agent made after one message (the answer of `session_activity`).
 */
export type ActivityEntry = { 
/**
 * The message they followed; -1 means before the first message.
 */
afterIndex: number, 
/**
 * Tool names, in call order.
 */
tools: Array<string>, };

/**
 * An agent whose own config file can hold our MCP server entry.
 */
export type Agent = "claude-code" | "codex" | "opencode" | "gemini" | "claude-desktop" | "cursor" | "vscode" | "windsurf" | "zed" | "goose";

/**
 * Install or remove.
 */
export type AgentAction = "install" | "remove";

/**
 * What an applied change did.
 */
export type AgentApplied = { 
/**
 * Whether the file was written.
 */
written: boolean, 
/**
 * The copy of the previous file, when there was one (the first file written).
 */
backup: string | null, 
/**
 * The agents as they are now.
 */
overview: AgentsOverview, };

/**
 * Something a person must know to have an agent use our server, beyond installing it.
 */
export type AgentNotice = "trust-the-folder" | "trust-the-hook";

/**
 * A planned change, as the person reviews it. The file's other contents are not sent
 * to the UI, only the diff (which has a few lines of context around our entry).
 */
export type AgentPlan = { 
/**
 * The agent.
 */
agent: Agent, 
/**
 * Install or remove.
 */
action: AgentAction, 
/**
 * The config file that would be written.
 */
configPath: string, 
/**
 * What the change does to the server entry (`create`, `add`, `update`, `remove`,
 * `already-installed`, `not-installed`).
 */
change: Change, 
/**
 * Every part that changes (the server entry, the recall hook), in the order written.
 */
parts: Array<PlannedPart>, 
/**
 * Whether anything would be written.
 */
changed: boolean, 
/**
 * The unified diff of every file written, one after the other (empty when nothing changes).
 */
diff: string, };

/**
 * What is known about one agent on this machine.
 */
export type AgentStatus = { 
/**
 * The agent.
 */
agent: Agent, 
/**
 * Its human name ([`Agent::display_name`]).
 */
displayName: string, 
/**
 * The config file we would edit.
 */
configPath: string, 
/**
 * The agent seems set up here: its config file or config folder exists, or its
 * executable is on `PATH` (existence only; it is not run).
 */
detected: boolean, 
/**
 * The file has an entry named `memory-bank`.
 */
installed: boolean, 
/**
 * That entry starts the server as [`plan_install`] would write it for the given spec
 * (the keys we own; the person's own keys beside them do not matter).
 */
entryMatches: boolean, 
/**
 * Why the file could not be read or parsed, if so (then `installed` is false).
 */
problem: string | null, 
/**
 * What the person must also do for the agent to start our server ([`Agent::notice`]).
 */
notice: AgentNotice | null, 
/**
 * Our entry starts the server with recall on (`mcp --recall`).
 */
recall: boolean, 
/**
 * For an agent with hooks ([`Agent::has_recall_hook`]): whether our recall hook is in
 * its file (as we would write it or not); `None` for an agent without hooks.
 */
recallHook: boolean | null, 
/**
 * What the person must also do for the agent to run our recall hook ([`Agent::recall_notice`]).
 */
recallNotice: AgentNotice | null, 
/**
 * Everything of ours is as the given spec would have it: the server entry, and the
 * recall hook present exactly as we write it when the spec has recall on, absent
 * when off. Install then changes nothing.
 */
upToDate: boolean, };

/**
 * The agents and the binary they would run.
 */
export type AgentsOverview = { 
/**
 * The `memory-bank` binary registered on Install.
 */
cli: CliBinary, 
/**
 * "Let agents look up relevant memories by themselves": what Install registers.
 */
recall: boolean, 
/**
 * Every agent, in [`Agent::ALL`] order, against what Install would register now.
 */
agents: Array<AgentStatus>, };

/**
 * Everything the UI needs to pick a screen.
 */
export type AppState = { 
/**
 * Null when not signed in.
 */
account: Account | null, 
/**
 * Null when not signed in.
 */
user: UserInfo | null, 
/**
 * Orgs of the user.
 */
orgs: Array<OrgInfo>, 
/**
 * Null when no org is active.
 */
activeOrgId: string | null, 
/**
 * UI preferences.
 */
prefs: UiPrefs, 
/**
 * Why the app is not signed in when connecting failed (a local bank whose key is
 * missing or does not open it, a team server that refused the token), its message
 * saying what to do; null when signed in, or signed out on purpose.
 */
connectError: DesktopError | null, 
/**
 * The local bank is in use and not encrypted, because no OS keyring answered when
 * it was opened (it is encrypted on the first start where one does). Settings says
 * so; the log says it once.
 */
localBankUnencrypted: boolean, };

/**
 * `apply_agent_change`.
 */
export type ApplyAgentChangeArgs = { 
/**
 * The agent whose config file changes.
 */
agent: Agent, 
/**
 * Install or remove.
 */
action: AgentAction, 
/**
 * The plan the person confirmed; a file that changed since is not written.
 */
diff: string, };

/**
 * `apply_recall_change`.
 */
export type ApplyRecallChangeArgs = { 
/**
 * Turn recall on or off.
 */
on: boolean, 
/**
 * The diff the person reviewed for each installed agent.
 */
reviewed: Array<ReviewedDiff>, };

/**
 * What happened to a team memory or proposal.
 */
export type AuditAction = "proposed" | "accepted" | "rejected" | "saved" | "edited" | "deleted";

/**
 * One line of an org's audit log: who did what to which memory or proposal, and when.
 * Ids and a length only: never the memory's text.
 */
export type AuditEntry = { 
/**
 * Position in the org's log (increasing; the paging cursor).
 */
seq: number, 
/**
 * When.
 */
at: string, 
/**
 * Who (`usr_…`): the member, or the person whose agent proposed.
 */
actorId: string, 
/**
 * What.
 */
action: AuditAction, 
/**
 * The team memory, when there is one.
 */
memoryId?: string | null, 
/**
 * The proposal, when there is one.
 */
proposalId?: string | null, 
/**
 * Characters in the memory's sentence (or the proposed one) at that moment.
 */
contentChars?: number | null, };

/**
 * One page of an org's audit log (`GET /v1/orgs/{id}/audit`), newest first.
 */
export type AuditPage = { 
/**
 * The lines, newest first.
 */
entries: Array<AuditEntry>, 
/**
 * Pass as `before` for the next, older page; null on the last.
 */
nextBefore: number | null, };

/**
 * Which banks a read covers: the reader's own (`mine`), the active org's team bank
 * (`team`), or both (`all`, the default) — `scope` on list and search in the API, the
 * CLI's `--scope`, the MCP tools and the panel's filter.
 */
export type BankScope = "mine" | "team" | "all";

/**
 * What a plan does to the file.
 */
export type Change = "create" | "add" | "update" | "remove" | "already-installed" | "not-installed";

/**
 * `change_member_role`.
 */
export type ChangeMemberRoleArgs = { 
/**
 * The org.
 */
orgId: string, 
/**
 * The member (`usr_…`).
 */
userId: string, 
/**
 * Their new role.
 */
role: OrgRole, };

/**
 * The ids a snippet cites. Holds only the ids that were given.
 */
export type Citation = { 
/**
 * The session the snippet came from.
 */
conversationId?: string | null, 
/**
 * The message the snippet came from.
 */
messageId?: string | null, };

/**
 * `memories_citing`: which memories cite a session (the Sessions view's markers).
 */
export type CitingArgs = { 
/**
 * The org the request is made in (every memory of the user is looked at).
 */
orgId: string, 
/**
 * The session.
 */
sessionId: string, };

/**
 * Response of `GET /v1/memory/citing`: the memories that cite one session.
 */
export type CitingResponse = { 
/**
 * Newest first, with their contexts (which say the cited messages).
 */
memories: Array<Memory>, };

/**
 * Where the `memory-bank` binary is, as the agents will run it.
 */
export type CliBinary = { 
/**
 * Its absolute path; `None` when it cannot be found.
 */
path: string | null, 
/**
 * Why it cannot be found, worded for the person.
 */
problem: string | null, };

/**
 * How a person confirmed that a memory should exist: nothing becomes a memory on an
 * agent's word alone.
 */
export type ConfirmedVia = "app" | "elicitation" | "cli" | "import";

/**
 * A context in a save request.
 */
export type ContextInput = { 
/**
 * Required, 1–4000 characters after trimming.
 */
snippet: string, 
/**
 * Optional, 1–128 characters.
 */
conversationId?: string | null, 
/**
 * Optional, 1–128 characters.
 */
messageId?: string | null, 
/**
 * Optional.
 */
origin?: Origin | null, };

/**
 * An error as the UI receives it: a stable code and a readable message.
 */
export type DesktopError = { 
/**
 * Stable code, the same enum the HTTP API answers with.
 */
code: ErrorCode, 
/**
 * What went wrong and what to do.
 */
message: string, };

/**
 * `edit_memory`: the org active when the person pressed Enter, the memory, and what
 * changes.
 */
export type EditMemoryArgs = { 
/**
 * The org the request is made in.
 */
orgId: string, 
/**
 * The memory.
 */
id: string, 
/**
 * The new sentence and/or tags (`confirmedVia` is always `app`).
 */
edit: EditMemoryRequest, };

/**
 * Body of `PATCH /v1/memory/{id}`: the new sentence and/or the new tags (an empty list
 * clears them). At least one of the two.
 */
export type EditMemoryRequest = { 
/**
 * The new sentence, 1–8000 characters.
 */
content?: string | null, 
/**
 * The new tags (at most 32, 1–64 characters each); `[]` removes them all.
 */
tags?: Array<string> | null, 
/**
 * How the person confirmed the edit (`app`, `cli`, `elicitation`); the server
 * records `app` for an edit accepted from the Inbox.
 */
confirmedVia?: ConfirmedVia | null, };

/**
 * Machine-readable error code, serialized as the `error` field. One enum for every door:
 * the HTTP API answers the codes down to [`ErrorCode::Internal`]; the desktop app's
 * commands answer those too, plus the ones after it, which never leave the app.
 */
export type ErrorCode = "unauthorized" | "organization_not_found" | "memory_not_found" | "proposal_not_found" | "proposal_not_pending" | "memory_changed" | "too_many_proposals" | "agent_token_cannot_confirm" | "org_role_required" | "org_memory_disabled" | "org_agents_may_not_propose" | "member_not_found" | "org_needs_owner" | "invalid_request" | "looks_like_secret" | "quota_exceeded" | "rate_limited" | "payload_too_large" | "not_found" | "method_not_allowed" | "request_timeout" | "uri_too_long" | "headers_too_large" | "host_not_allowed" | "origin_not_allowed" | "not_acceptable" | "unsupported_media_type" | "mcp_session_not_found" | "service_unavailable" | "internal" | "unreachable" | "keyring" | "no_account" | "session_not_found" | "no_messages" | "no_open_session" | "index" | "agent_config" | "agent_config_changed" | "cli_not_found" | "file";

/**
 * `export_memories`.
 */
export type ExportArgs = { 
/**
 * The org the request is made in (every memory of the user is exported).
 */
orgId: string, };

/**
 * What an export did.
 */
export type ExportOutcome = { 
/**
 * The file written; null when the person cancelled the dialog.
 */
path: string | null, 
/**
 * Memories in it.
 */
memories: number, };

/**
 * Sessions per source and per workspace, most first.
 */
export type Facets = { 
/**
 * `{source, count}`.
 */
sources: Array<SourceCount>, 
/**
 * `{workspace, count}`.
 */
workspaces: Array<WorkspaceCount>, };

/**
 * `find_similar`: a sentence the person is about to save (or an edit of `excludeId`).
 */
export type FindSimilarArgs = { 
/**
 * The org the person is in.
 */
orgId: string, 
/**
 * The sentence, up to 8000 characters.
 */
content: string, 
/**
 * A memory to leave out (the one being edited).
 */
excludeId?: string, };

/**
 * Arguments of `forget_session`.
 */
export type ForgetArgs = { 
/**
 * Required.
 */
sessionId: string, 
/**
 * Narrows it to one tool.
 */
source?: Source, };

/**
 * `import_memories`: what to do with a memory the bank already has.
 */
export type ImportArgs = { 
/**
 * The org the import is made in.
 */
orgId: string, 
/**
 * `skip` (the default: importing a file twice changes nothing) or `overwrite`.
 */
onConflict?: "skip" | "overwrite" | undefined, };

/**
 * `import_chats`: the file read and what the import did.
 */
export type ImportChatsOutcome = { 
/**
 * The file read; null when the person cancelled the dialog.
 */
path: string | null, 
/**
 * What was kept (null when cancelled).
 */
imported: ImportedChats | null, };

/**
 * A line that could not be imported, by its number (1-based).
 */
export type ImportLineError = { 
/**
 * Line number in the file, from 1.
 */
line: number, 
/**
 * `invalid_request` or `looks_like_secret` (the line itself), `quota_exceeded`
 * (the person's memory cap was reached before this line).
 */
error: string, 
/**
 * What is wrong and what to do.
 */
message: string, };

/**
 * A line imported under a memory id other than its own.
 */
export type ImportNewId = { 
/**
 * Line number in the file, from 1.
 */
line: number, 
/**
 * The memory's id in the bank.
 */
id: string, };

/**
 * What an import did.
 */
export type ImportOutcome = { 
/**
 * The file read; null when the person cancelled the dialog.
 */
path: string | null, 
/**
 * The service's reports added up, line numbers counted over the whole file.
 */
report: ImportReport, };

/**
 * Response of `POST /v1/import`.
 */
export type ImportReport = { 
/**
 * Lines imported as new memories (under a new id for those in `newIds`).
 */
imported: number, 
/**
 * Lines whose id the caller already had, left as they were.
 */
skipped: number, 
/**
 * Lines whose id the caller already had, replaced.
 */
overwritten: number, 
/**
 * Lines not imported, each with its reason (at most [`MAX_REPORTED_LINES`]).
 */
failed: Array<ImportLineError>, 
/**
 * How many lines were not imported in all.
 */
failedCount: number, 
/**
 * Lines imported under a new memory id, because the service could not give them
 * theirs (at most [`MAX_REPORTED_LINES`]).
 */
newIds: Array<ImportNewId>, 
/**
 * How many lines were imported under a new memory id in all.
 */
newIdCount: number, };

/**
 * What an import did.
 */
export type ImportedChats = { 
/**
 * Whose export it was (the first conversation's kind decides).
 */
source: Source | null, 
/**
 * Conversations in the export.
 */
conversations: number, 
/**
 * New ones, kept now.
 */
added: number, 
/**
 * Ones kept before that the export has a later version of.
 */
updated: number, 
/**
 * Ones kept before, unchanged (or kept from a later export).
 */
unchanged: number, 
/**
 * Entries that are not a conversation of either export (read past).
 */
skipped: number, };

/**
 * What an import file claimed about a memory or one of its versions (its
 * `confirmedVia` and `proposedBy`), kept beside it: an import confirms nothing, so the
 * memory itself says `confirmedVia: "import"`.
 */
export type ImportedFrom = { 
/**
 * How the file said it was confirmed.
 */
confirmedVia?: ConfirmedVia | null, 
/**
 * The MCP client the file said proposed it.
 */
proposedBy?: string | null, };

/**
 * What changed in the Inbox since the last look.
 */
export type InboxChange = { 
/**
 * Pending proposals now (the person's own, and the org Inbox's for its admins and owners).
 */
pending: number, };

/**
 * A language the app is translated into.
 */
export type Language = "en" | "zh-CN";

/**
 * Arguments of `latest_message`.
 */
export type LatestArgs = { 
/**
 * Default: the open session.
 */
sessionId?: string, 
/**
 * Cut the text to this many characters ([`MIN_MESSAGE_CHARS`]–[`MAX_MESSAGE_CHARS`]),
 * marking it `truncated`; default: the whole text.
 */
maxChars?: number, };

/**
 * The answer of `latest_message`.
 */
export type LatestMessage = { 
/**
 * The session read.
 */
sessionId: string, 
/**
 * Absolute position of the message.
 */
index: number, 
/**
 * The id to cite.
 */
messageId: string, 
/**
 * `user` or `assistant`.
 */
role: Role, 
/**
 * The message text.
 */
text: string, 
/**
 * RFC 3339 UTC with milliseconds.
 */
timestamp: string | null, 
/**
 * The text was cut to `maxChars` characters; present only then.
 */
truncated?: boolean, 
/**
 * The session is archived (its tool deleted it); present only then.
 */
archived?: boolean, };

/**
 * Arguments of `list_sessions`.
 */
export type ListArgs = { 
/**
 * 1–200, default 30.
 */
limit?: number, 
/**
 * A workspace path or its last folder name.
 */
workspace?: string, 
/**
 * `claude-code`, `codex`, `opencode` or `gemini`.
 */
source?: Source, 
/**
 * Text in the title, workspace or id.
 */
query?: string, 
/**
 * The `nextCursor` of the previous page; default: the first page.
 */
cursor?: string, 
/**
 * `all` (default), `live` (their source is there) or `archived` (kept after their
 * tool deleted them).
 */
status?: SessionStatus, };

/**
 * `list_memories`.
 */
export type ListMemoriesArgs = { 
/**
 * The org to list.
 */
orgId: string, 
/**
 * Page size (the API's default when absent).
 */
limit?: number, 
/**
 * The `nextCursor` of the previous page.
 */
cursor?: string, 
/**
 * `mine`, `team` or `all` (the default).
 */
scope?: BankScope, };

/**
 * `list_proposals`.
 */
export type ListProposalsArgs = { 
/**
 * The org the request is made in (proposals of every org of the user are listed).
 */
orgId: string, };

/**
 * Response of `GET /v1/memory`.
 */
export type ListResponse = { 
/**
 * Newest first.
 */
memories: Array<Memory>, 
/**
 * Pass as `cursor` to get the next page; null on the last page.
 */
nextCursor: string | null, };

/**
 * Why a search hit was found: so the person and the agent can judge a weak match.
 */
export type Matched = "words" | "meaning" | "both";

/**
 * Whether search reads meaning ([`SearchStatus::meaning`]).
 */
export type MeaningState = "on" | "off" | "unavailable";

/**
 * One memory: a plain sentence plus optional provenance.
 */
export type Memory = { 
/**
 * `mem_…`, time-sortable.
 */
id: string, 
/**
 * The sentence, trimmed, exactly as stored.
 */
content: string, 
/**
 * Tags as given (trimmed), `[]` if an empty list was sent, null if none.
 */
tags: Array<string> | null, 
/**
 * Who wrote it; always `chat` today.
 */
source: string, 
/**
 * `user`: the reader's own bank; `org`: the team bank of `orgId`.
 */
scope: Scope, 
/**
 * The org that was active when it was saved.
 */
orgId: string, 
/**
 * Creation time.
 */
createdAt: string, 
/**
 * Last change (equal to `createdAt`: memories are not edited).
 */
updatedAt: string, 
/**
 * Provenance, in the order it was given.
 */
contexts: Array<MemoryContext>, 
/**
 * How a person confirmed it; absent for memories saved before this was recorded.
 */
confirmedVia?: ConfirmedVia | null, 
/**
 * The MCP client that proposed it (its name from `initialize`, e.g. `claude-code`).
 */
proposedBy?: string | null, 
/**
 * For an imported memory (`confirmedVia: "import"`): what the import file said
 * about how it had been confirmed, kept as the file's claim, never as a confirmation.
 */
importedFrom?: ImportedFrom | null, 
/**
 * A team memory's author (`scope: org`): the member who saved or proposed it, by
 * user id; kept when they leave the org. Absent in a personal bank.
 */
savedBy?: string | null, 
/**
 * A team memory's confirmer: the admin or owner who saved or accepted it, by user
 * id. Absent in a personal bank.
 */
confirmedBy?: string | null, };

/**
 * Provenance of a memory: a snippet and what it cites.
 */
export type MemoryContext = { 
/**
 * `mctx_…`
 */
id: string, 
/**
 * The excerpt the memory was drawn from.
 */
snippet: string, 
/**
 * The session/message ids the snippet cites, or null.
 */
citation: Citation | null, 
/**
 * Where the snippet came from, or null.
 */
origin: Origin | null, 
/**
 * When it was saved (same instant as its memory).
 */
createdAt: string, };

/**
 * `memory_revisions`.
 */
export type MemoryRevisionsArgs = { 
/**
 * The org the request is made in.
 */
orgId: string, 
/**
 * The memory.
 */
id: string, };

/**
 * One version of a memory's words: what a proposal was made against, or what it says now.
 */
export type MemoryVersion = { 
/**
 * The sentence.
 */
content: string, 
/**
 * Its tags, or null.
 */
tags: Array<string> | null, };

/**
 * The answer of `search_messages`.
 */
export type MessageSearchResult = { 
/**
 * Newest first.
 */
hits: Array<SearchHit>, 
/**
 * Pass as `cursor` to get the hits after these; absent on the last page.
 */
nextCursor?: string | null, };

/**
 * The arguments of a command that takes none.
 */
export type NoArgs = Record<symbol, never>;

/**
 * Arguments of `open`.
 */
export type OpenArgs = { 
/**
 * Required.
 */
sessionId: string, 
/**
 * Narrows the lookup to one tool.
 */
source?: Source, };

/**
 * A command about one org's team (its org Inbox, members, policy or audit log).
 */
export type OrgArgs = { 
/**
 * The org.
 */
orgId: string, };

/**
 * `org_audit`.
 */
export type OrgAuditArgs = { 
/**
 * The org.
 */
orgId: string, 
/**
 * The previous page's `nextBefore`; absent: the newest lines.
 */
before?: number, };

/**
 * An org the user can act in.
 */
export type OrgInfo = { 
/**
 * `org_…`
 */
id: string, 
/**
 * Name.
 */
name: string, };

/**
 * A member of an org, as its admins see the list.
 */
export type OrgMember = { 
/**
 * `usr_…`
 */
userId: string, 
/**
 * Their email.
 */
email: string, 
/**
 * Their role.
 */
role: OrgRole, 
/**
 * When they joined.
 */
joinedAt: string, };

/**
 * An org's policy, enforced by the server. The defaults are an org that never set one.
 */
export type OrgPolicy = { 
/**
 * Memory on for this org, both banks (off: every memory route answers 403
 * `org_memory_disabled`).
 */
memoryEnabled: boolean, 
/**
 * Members' agents may propose to the team bank.
 */
agentsMayPropose: boolean, 
/**
 * The most memories the team bank may hold; none: no cap beyond the service's own.
 */
maxMemories: number | null, };

/**
 * A member's role in an org.
 */
export type OrgRole = "member" | "admin" | "owner";

/**
 * Where a context snippet came from.
 */
export type Origin = "active_conversation" | "searched_conversation";

/**
 * How a delete stands after an attempt.
 */
export type Outcome = "deleted" | "not_found" | "failed" | "waiting";

/**
 * What of ours a plan changes.
 */
export type Part = "server" | "recall-hook";

/**
 * A delete not settled yet, as the UI lists it (to keep its row hidden and show the
 * waiting ones).
 */
export type PendingDelete = { 
/**
 * Memory id.
 */
id: string, 
/**
 * The org captured when the person confirmed.
 */
orgId: string, 
/**
 * When the undo window ends (or ended), ms since the epoch.
 */
commitAt: number, 
/**
 * True once it failed to reach the server (or waits for its account).
 */
waiting: boolean, 
/**
 * Why it waits.
 */
message?: string, };

/**
 * `plan_agent_change`.
 */
export type PlanAgentChangeArgs = { 
/**
 * The agent whose config file changes.
 */
agent: Agent, 
/**
 * Install or remove.
 */
action: AgentAction, };

/**
 * `plan_recall_change`.
 */
export type PlanRecallChangeArgs = { 
/**
 * Turn recall on or off.
 */
on: boolean, };

/**
 * One file a planned change writes, and what it does there.
 */
export type PlannedPart = { 
/**
 * The server entry or the recall hook.
 */
part: Part, 
/**
 * The file.
 */
configPath: string, 
/**
 * What changes there.
 */
change: Change, };

/**
 * A change to the UI preferences, as the UI sends it (`set_prefs`): an absent field is
 * left as it is; `"language": null` means "follow the OS again".
 */
export type PrefsPatch = { 
/**
 * Show or hide the memory panel.
 */
memoryEnabled?: boolean, 
/**
 * Keep sessions after their tool deletes them (Settings → Session history).
 */
keepArchivedSessions?: boolean, 
/**
 * Search by words only (Settings → Search).
 */
wordsOnly?: boolean, 
/**
 * The memory panel's Mine / Team / All.
 */
memoryScope?: BankScope, 
/**
 * `Some(None)` = follow the OS; `Some(Some(Language::ZhCn))` = that language.
 */
language?: Language | null, };

/**
 * Something an agent asked for that waits for a person: a memory to save, or one to
 * delete. Owned by one user like a memory.
 */
export type Proposal = { 
/**
 * `prop_…`
 */
id: string, 
/**
 * Save or delete.
 */
action: ProposalAction, 
/**
 * Where it stands.
 */
status: ProposalStatus, 
/**
 * Save: the drafted sentence. Delete: the memory's content when it was proposed.
 */
content: string, 
/**
 * Save: the drafted tags.
 */
tags: Array<string> | null, 
/**
 * Save: what the memory would cite.
 */
contexts: Array<ProposedContext>, 
/**
 * Delete: the memory to delete. Save, once accepted: the memory saved.
 */
memoryId: string | null, 
/**
 * The MCP client that proposed it, when known.
 */
proposedBy: string | null, 
/**
 * The org that was active.
 */
orgId: string, 
/**
 * When it was proposed.
 */
createdAt: string, 
/**
 * When it expires if nobody decides.
 */
expiresAt: string, 
/**
 * When a person accepted or rejected it.
 */
decidedAt: string | null, 
/**
 * A pending save or edit: the memories of its bank (the user's own, or the team's)
 * worded much like it, as they stand when read (empty otherwise).
 */
similar: Array<SimilarMemory>, 
/**
 * An edit or a delete: the memory as it was when the agent proposed it.
 */
proposedAgainst?: MemoryVersion | null, 
/**
 * Which bank it changes: `user` (the proposer's own; their Inbox) or `org` (the team
 * bank of `orgId`; the org Inbox, answered by its admins and owners).
 */
scope: Scope, 
/**
 * A team proposal's proposer: the member (by user id) who, or whose agent,
 * proposed it. Absent for a personal proposal, which only its owner sees.
 */
proposer?: string | null, 
/**
 * A pending edit or delete whose memory changed since it was proposed: the memory as
 * it is now. Accepting it then needs this version in the accept's `memoryNow`, so a
 * change the person has not seen is never overwritten or deleted.
 */
memoryNow?: MemoryVersion | null, };

/**
 * What a proposal asks for.
 */
export type ProposalAction = "save" | "delete" | "edit";

/**
 * The person's edits when accepting a save proposal; what is absent stays as proposed.
 */
export type ProposalEdits = { 
/**
 * The sentence as the person edited it.
 */
content?: string, 
/**
 * The tags as the person edited them (`[]` removes them all).
 */
tags?: Array<string>, 
/**
 * A save only: rewrite this memory (one of the proposal's `similar`) with the
 * sentence instead of saving a new one.
 */
editInstead?: string, 
/**
 * An edit or delete whose memory changed since it was proposed: the memory as the
 * person saw it now (the proposal's `memoryNow`), to apply it over that anyway.
 */
memoryNow?: MemoryVersion, };

/**
 * Answer of `GET /v1/proposals`.
 */
export type ProposalListResponse = { 
/**
 * Newest first.
 */
proposals: Array<Proposal>, 
/**
 * Pass as `cursor` for the next page; null on the last page.
 */
nextCursor: string | null, 
/**
 * `scope=team` only: the caller's role in the org, which says what the list is. An
 * admin's or owner's is the whole org Inbox, theirs to decide; a member's holds only
 * the team proposals they (or their agents) made, to follow, not to decide.
 */
yourRole?: OrgRole, };

/**
 * Answer of the proposal routes.
 */
export type ProposalResponse = { 
/**
 * The proposal as it stands now.
 */
proposal: Proposal, 
/**
 * Accepted saves: the memory saved.
 */
memory?: Memory | null, 
/**
 * The memories of its bank (the user's own, or the team's) worded much like it: for a
 * pending save or edit (as in `proposal.similar`), or, once accepted, like the memory
 * saved or edited.
 */
similar: Array<SimilarMemory>, };

/**
 * Where a proposal stands. `expired` is a pending proposal past its `expiresAt`.
 */
export type ProposalStatus = "pending" | "accepted" | "rejected" | "expired";

/**
 * A context of a proposal: what the drafted memory cites.
 */
export type ProposedContext = { 
/**
 * The excerpt.
 */
snippet: string, 
/**
 * The session/message ids it cites, or null.
 */
citation: Citation | null, 
/**
 * Where it came from, or null.
 */
origin: Origin | null, };

/**
 * Arguments of `read_transcript`.
 */
export type ReadArgs = { 
/**
 * Default: the open session.
 */
sessionId?: string, 
/**
 * Clamped to 1–30; anything that is not a number means 10.
 */
count?: number, 
/**
 * Read messages with a smaller index; default: the end.
 */
before?: number, 
/**
 * Cut each text to this many characters ([`MIN_MESSAGE_CHARS`]–[`MAX_MESSAGE_CHARS`]),
 * marking it `truncated`; default: whole texts.
 */
maxCharsPerMessage?: number, };

/**
 * What turning recall on or off would change: every agent our server is installed in.
 */
export type RecallPlan = { 
/**
 * On or off.
 */
on: boolean, 
/**
 * One reviewed change per installed agent (those with nothing to change included).
 */
agents: Array<AgentPlan>, };

/**
 * `reject_proposal`.
 */
export type RejectProposalArgs = { 
/**
 * The org the request is made in.
 */
orgId: string, 
/**
 * The proposal.
 */
id: string, };

/**
 * `remove_member`.
 */
export type RemoveMemberArgs = { 
/**
 * The org.
 */
orgId: string, 
/**
 * The member (`usr_…`).
 */
userId: string, };

/**
 * `restore_revision`.
 */
export type RestoreRevisionArgs = { 
/**
 * The org the request is made in.
 */
orgId: string, 
/**
 * The memory.
 */
id: string, 
/**
 * The revision to make current again.
 */
revisionId: string, };

/**
 * An agent and the diff the person reviewed for it.
 */
export type ReviewedDiff = { 
/**
 * The agent.
 */
agent: Agent, 
/**
 * The diff shown for it.
 */
diff: string, };

/**
 * One earlier version of a memory.
 */
export type Revision = { 
/**
 * `mrev_…`
 */
id: string, 
/**
 * The memory it is a version of.
 */
memoryId: string, 
/**
 * The sentence as it was.
 */
content: string, 
/**
 * The tags as they were.
 */
tags: Array<string> | null, 
/**
 * When this version was written (saved, or the edit that made it).
 */
createdAt: string, 
/**
 * When an edit replaced it.
 */
replacedAt: string, 
/**
 * How the person had confirmed this version.
 */
confirmedVia?: ConfirmedVia | null, };

/**
 * Response of `GET /v1/memory/{id}/revisions`: newest first.
 */
export type RevisionListResponse = { 
/**
 * Earlier versions, the most recently replaced first.
 */
revisions: Array<Revision>, };

/**
 * Who wrote a message.
 */
export type Role = "user" | "assistant";

/**
 * `save_memory`: the org active when the person pressed Save, and the memory.
 */
export type SaveMemoryArgs = { 
/**
 * Where it is saved.
 */
orgId: string, 
/**
 * Required, 1–8000 characters after trimming.
 */
content: string, 
/**
 * Optional, at most 32 tags of 1–64 characters.
 */
tags?: Array<string> | null, 
/**
 * Optional, at most 16.
 */
contexts?: Array<ContextInput> | null, 
/**
 * How the person confirmed it (`app`, `cli`, `import`); optional.
 */
confirmedVia?: ConfirmedVia | null, 
/**
 * Which bank: `user` (the caller's own, the default) or `org` (the `X-Org-Id`
 * org's team bank, for its admins and owners).
 */
scope?: Scope | null, };

/**
 * `schedule_delete`.
 */
export type ScheduleDeleteArgs = { 
/**
 * The org active when the person confirmed.
 */
orgId: string, 
/**
 * The memory.
 */
id: string, };

/**
 * A scheduled delete.
 */
export type ScheduledDelete = { 
/**
 * Memory id.
 */
id: string, 
/**
 * When it will be sent, ms since the epoch.
 */
commitAt: number, };

/**
 * Which bank a memory belongs to. Today the server only writes `user`.
 */
export type Scope = "user" | "org";

/**
 * Arguments of `search_messages`.
 */
export type SearchArgs = { 
/**
 * Required: text a message must contain (case-insensitive).
 */
query: string, 
/**
 * 1–200, default 20.
 */
limit?: number, 
/**
 * Only sessions of this tool: `claude-code`, `codex`, `opencode` or `gemini`.
 */
source?: Source, 
/**
 * Only sessions in this workspace (a path or its last folder name).
 */
workspace?: string, 
/**
 * The `nextCursor` of the previous page; default: the first page.
 */
cursor?: string, };

/**
 * One hit of `search_messages`.
 */
export type SearchHit = { 
/**
 * The session the message belongs to.
 */
sessionId: string, 
/**
 * Its tool.
 */
source: Source, 
/**
 * Its title.
 */
title: string, 
/**
 * The id to cite.
 */
messageId: string, 
/**
 * Absolute position of the message.
 */
index: number, 
/**
 * `user` or `assistant`.
 */
role: Role, 
/**
 * The text around the first match, on one line: up to [`SNIPPET_BEFORE`] characters
 * before it, the match, up to [`SNIPPET_AFTER`] after, and `…` where the text was cut.
 */
snippet: string, 
/**
 * The session is archived (its tool deleted it); present only then.
 */
archived?: boolean, };

/**
 * `search_memories`.
 */
export type SearchMemoriesArgs = { 
/**
 * The org to search.
 */
orgId: string, 
/**
 * The query.
 */
q: string, 
/**
 * Most results (the API's default when absent).
 */
limit?: number, 
/**
 * `mine`, `team` or `all` (the default).
 */
scope?: BankScope, };

/**
 * Response of `GET /v1/memory/search`.
 */
export type SearchResponse = { 
/**
 * Best first; newest first among equal scores. Empty when nothing matches.
 */
results: Array<SearchResult>, };

/**
 * One search hit.
 */
export type SearchResult = { 
/**
 * Relevance, higher is better; comparable within one response only.
 */
score: number, 
/**
 * Whether it matched the query's words, its meaning, or both (`words` from a
 * service older than this field).
 */
matched: Matched, 
/**
 * `mem_…`, time-sortable.
 */
id: string, 
/**
 * The sentence, trimmed, exactly as stored.
 */
content: string, 
/**
 * Tags as given (trimmed), `[]` if an empty list was sent, null if none.
 */
tags: Array<string> | null, 
/**
 * Who wrote it; always `chat` today.
 */
source: string, 
/**
 * `user`: the reader's own bank; `org`: the team bank of `orgId`.
 */
scope: Scope, 
/**
 * The org that was active when it was saved.
 */
orgId: string, 
/**
 * Creation time.
 */
createdAt: string, 
/**
 * Last change (equal to `createdAt`: memories are not edited).
 */
updatedAt: string, 
/**
 * Provenance, in the order it was given.
 */
contexts: Array<MemoryContext>, 
/**
 * How a person confirmed it; absent for memories saved before this was recorded.
 */
confirmedVia?: ConfirmedVia | null, 
/**
 * The MCP client that proposed it (its name from `initialize`, e.g. `claude-code`).
 */
proposedBy?: string | null, 
/**
 * For an imported memory (`confirmedVia: "import"`): what the import file said
 * about how it had been confirmed, kept as the file's claim, never as a confirmation.
 */
importedFrom?: ImportedFrom | null, 
/**
 * A team memory's author (`scope: org`): the member who saved or proposed it, by
 * user id; kept when they leave the org. Absent in a personal bank.
 */
savedBy?: string | null, 
/**
 * A team memory's confirmer: the admin or owner who saved or accepted it, by user
 * id. Absent in a personal bank.
 */
confirmedBy?: string | null, };

/**
 * Whether search reads meaning too, and how far the caller's vectors are made:
 * `GET /v1/memory/search/status` (the panel shows it while the backfill runs).
 */
export type SearchStatus = { 
/**
 * `on`: by words and meaning; `off`: by words only (chosen); `unavailable`: by
 * words for now, the model cannot be used (`reason` says why).
 */
meaning: MeaningState, 
/**
 * The caller's memories.
 */
memories: number, 
/**
 * Of them, those found by meaning already (the rest once the backfill reaches them).
 */
withVector: number, 
/**
 * Why the model cannot be used, when `unavailable`.
 */
reason?: string, };

/**
 * `search_status`: whether search reads meaning, and how far (the panel's note).
 */
export type SearchStatusArgs = { 
/**
 * The org the request is made in.
 */
orgId: string, };

/**
 * One session in a listing.
 */
export type SessionInfo = { 
/**
 * The tool's own session id.
 */
sessionId: string, 
/**
 * Which tool recorded it.
 */
source: Source, 
/**
 * The tool's title, else the first user message in full.
 */
title: string, 
/**
 * The directory the agent worked in, when known.
 */
workspace: string | null, 
/**
 * RFC 3339 UTC with milliseconds.
 */
createdAt: string | null, 
/**
 * RFC 3339 UTC with milliseconds.
 */
updatedAt: string | null, 
/**
 * User and assistant messages with text.
 */
messageCount: number, 
/**
 * Its tool deleted it and the index kept it (since `archivedAt`); present only then.
 */
archived?: boolean, 
/**
 * When the index saw its source gone (RFC 3339 UTC with milliseconds); present only
 * for an archived session.
 */
archivedAt?: string | null, };

/**
 * The answer of `list_sessions`.
 */
export type SessionList = { 
/**
 * How many sessions matched before the limit, so a cap is never silent.
 */
total: number, 
/**
 * Newest first.
 */
sessions: Array<SessionInfo>, 
/**
 * Pass as `cursor` to get the sessions after these; absent on the last page.
 */
nextCursor?: string | null, };

/**
 * A folder of agent sessions added in settings (e.g. a copy from another machine).
 */
export type SessionRoot = { 
/**
 * Which tool's format the folder holds.
 */
source: Source, 
/**
 * An absolute path: the tool's data folder (e.g. `/mnt/old/.codex`).
 */
path: string, };

/**
 * Which sessions a listing shows: those whose source is there (live), those kept after
 * it was deleted (archived), or both.
 */
export type SessionStatus = "all" | "live" | "archived";

/**
 * `set_active_org`.
 */
export type SetActiveOrgArgs = { 
/**
 * One of the user's orgs.
 */
orgId: string, };

/**
 * `set_org_policy`.
 */
export type SetOrgPolicyArgs = { 
/**
 * The org.
 */
orgId: string, 
/**
 * The whole policy (it replaces the one in force).
 */
policy: OrgPolicy, };

/**
 * `set_session_roots`.
 */
export type SetSessionRootsArgs = { 
/**
 * Replaces the extra session folders (absolute paths, at most 20).
 */
roots: Array<SessionRoot>, };

/**
 * `set_source_enabled`.
 */
export type SetSourceEnabledArgs = { 
/**
 * The tool.
 */
source: Source, 
/**
 * Read its sessions (true) or not.
 */
enabled: boolean, };

/**
 * Reported after every attempt (and when a restored delete waits for its account).
 */
export type Settled = { 
/**
 * Memory id.
 */
id: string, 
/**
 * The org captured when the person confirmed.
 */
orgId: string, 
/**
 * How it stands.
 */
outcome: Outcome, 
/**
 * For `failed` and `waiting`: what went wrong.
 */
message?: string, };

/**
 * `sign_in_team`.
 */
export type SignInTeamArgs = { 
/**
 * The team server's URL.
 */
url: string, 
/**
 * The person's token there (checked with `GET /v1/me`, then kept in the OS keyring).
 */
token: string, };

/**
 * One of the caller's memories (or, for a team save or proposal, the team's) whose words
 * overlap strongly with a sentence being saved, proposed or accepted: a hint that it may already be remembered. Never merged
 * automatically; the person may edit that memory instead.
 */
export type SimilarMemory = { 
/**
 * `mem_…`
 */
id: string, 
/**
 * Its sentence as stored.
 */
content: string, };

/**
 * Answer of `POST /v1/memory/similar`.
 */
export type SimilarResponse = { 
/**
 * Most alike first; empty when nothing is alike.
 */
similar: Array<SimilarMemory>, };

/**
 * The agent tool a session was recorded by.
 */
export type Source = "claude-code" | "codex" | "opencode" | "gemini" | "qwen-code" | "cursor" | "copilot-cli" | "amp" | "goose" | "crush" | "zed" | "aider" | "cline" | "roo-code" | "windsurf" | "antigravity" | "chatgpt" | "claude-ai";

/**
 * A facet entry.
 */
export type SourceCount = { 
/**
 * The tool.
 */
source: Source, 
/**
 * Its listed sessions.
 */
count: number, };

/**
 * One folder a source is read from.
 */
export type SourceFolder = { 
/**
 * The folder.
 */
path: string, 
/**
 * Whether it exists.
 */
exists: boolean, 
/**
 * Added in settings (else one of the tool's default folders).
 */
added: boolean, };

/**
 * One source on this machine.
 */
export type SourceFolders = { 
/**
 * The tool.
 */
source: Source, 
/**
 * Whether its sessions are read (Settings → Session history).
 */
enabled: boolean, 
/**
 * Whether any of its folders exists here.
 */
found: boolean, 
/**
 * Where its sessions are looked for: its default folders on this system, then the
 * folders added in settings.
 */
folders: Array<SourceFolder>, 
/**
 * Why its sessions cannot be read, when they cannot (English; the app translates it
 * by source).
 */
unreadable?: string, };

/**
 * Settings → Team: the caller's role in the org and, for its admins and owners, its
 * members.
 */
export type TeamMembers = { 
/**
 * The caller's role: what the page offers them.
 */
yourRole: OrgRole, 
/**
 * Owners first, then admins, then members; null for a member (the server shows
 * the list to admins and owners only).
 */
members: Array<OrgMember> | null, };

/**
 * The answer of `read_transcript`.
 */
export type Transcript = { 
/**
 * The session read.
 */
sessionId: string, 
/**
 * Its title.
 */
title: string, 
/**
 * Messages in the whole session.
 */
messageCount: number, 
/**
 * Messages in this answer.
 */
returned: number, 
/**
 * Oldest first.
 */
messages: Array<TranscriptMessage>, 
/**
 * The session is archived (its tool deleted it); present only then.
 */
archived?: boolean, };

/**
 * One message of a transcript.
 */
export type TranscriptMessage = { 
/**
 * Absolute position in the session, from 0.
 */
index: number, 
/**
 * The id to cite: the tool's own message id, or `L<line>` where it stores none.
 */
messageId: string, 
/**
 * `user` or `assistant`.
 */
role: Role, 
/**
 * The message text.
 */
text: string, 
/**
 * RFC 3339 UTC with milliseconds, when the tool recorded one.
 */
timestamp: string | null, 
/**
 * The text was cut to the requested number of characters (`maxCharsPerMessage`);
 * present only then.
 */
truncated?: boolean, };

/**
 * Export or import.
 */
export type TransferKind = "export" | "import";

/**
 * How far an export or import is (the `transfer-progress` event).
 */
export type TransferProgress = { 
/**
 * Which one.
 */
kind: TransferKind, 
/**
 * Memories written (export) or lines sent (import) so far.
 */
done: number, 
/**
 * Lines in the file (import); unknown (null) for an export.
 */
total: number | null, };

/**
 * The preferences the UI reads.
 */
export type UiPrefs = { 
/**
 * Shows the memory panel.
 */
memoryEnabled: boolean, 
/**
 * Null to follow the OS.
 */
language: Language | null, 
/**
 * Session folders read besides the tools' default ones.
 */
sessionRoots: Array<SessionRoot>, 
/**
 * Keep a session in the history after its tool deletes it.
 */
keepArchivedSessions: boolean, 
/**
 * Search by words only, never by meaning.
 */
wordsOnly: boolean, 
/**
 * The memory panel's filter: `mine`, `team` or `all`.
 */
memoryScope: BankScope, };

/**
 * `undo_delete`.
 */
export type UndoDeleteArgs = { 
/**
 * The memory whose delete is cancelled.
 */
id: string, };

/**
 * The answer of `undo_delete`.
 */
export type Undone = { 
/**
 * False once the delete is being sent (its outcome is reported as usual).
 */
undone: boolean, };

/**
 * The signed-in user.
 */
export type UserInfo = { 
/**
 * `usr_…`
 */
id: string, 
/**
 * Email.
 */
email: string, };

/**
 * A facet entry.
 */
export type WorkspaceCount = { 
/**
 * The workspace path.
 */
workspace: string, 
/**
 * Its listed sessions.
 */
count: number, };

/** Each command's arguments and answer. */
export type CommandTypes = {
  get_state: { args: NoArgs; answer: AppState };
  set_active_org: { args: SetActiveOrgArgs; answer: AppState };
  set_prefs: { args: PrefsPatch; answer: AppState };
  sign_in_team: { args: SignInTeamArgs; answer: AppState };
  use_local_account: { args: NoArgs; answer: AppState };
  sign_out: { args: NoArgs; answer: AppState };
  list_memories: { args: ListMemoriesArgs; answer: ListResponse };
  search_status: { args: SearchStatusArgs; answer: SearchStatus };
  search_memories: { args: SearchMemoriesArgs; answer: SearchResponse };
  schedule_delete: { args: ScheduleDeleteArgs; answer: ScheduledDelete };
  undo_delete: { args: UndoDeleteArgs; answer: Undone };
  flush_deletes: { args: NoArgs; answer: null };
  list_pending_deletes: { args: NoArgs; answer: Array<PendingDelete> };
  list_sessions: { args: ListArgs; answer: SessionList };
  forget_session: { args: ForgetArgs; answer: SessionInfo };
  session_facets: { args: NoArgs; answer: Facets };
  open_session: { args: OpenArgs; answer: SessionInfo };
  find_session: { args: OpenArgs; answer: SessionInfo };
  read_transcript: { args: ReadArgs; answer: Transcript };
  latest_message: { args: LatestArgs; answer: LatestMessage };
  session_activity: { args: ActivityArgs; answer: Activity };
  search_messages: { args: SearchArgs; answer: MessageSearchResult };
  save_memory: { args: SaveMemoryArgs; answer: Memory };
  find_similar: { args: FindSimilarArgs; answer: SimilarResponse };
  edit_memory: { args: EditMemoryArgs; answer: Memory };
  memories_citing: { args: CitingArgs; answer: CitingResponse };
  export_memories: { args: ExportArgs; answer: ExportOutcome };
  import_memories: { args: ImportArgs; answer: ImportOutcome };
  import_chats: { args: NoArgs; answer: ImportChatsOutcome };
  memory_revisions: { args: MemoryRevisionsArgs; answer: RevisionListResponse };
  restore_revision: { args: RestoreRevisionArgs; answer: Memory };
  set_session_roots: { args: SetSessionRootsArgs; answer: AppState };
  session_sources: { args: NoArgs; answer: Array<SourceFolders> };
  set_source_enabled: { args: SetSourceEnabledArgs; answer: Array<SourceFolders> };
  list_proposals: { args: ListProposalsArgs; answer: ProposalListResponse };
  accept_proposal: { args: AcceptProposalArgs; answer: ProposalResponse };
  reject_proposal: { args: RejectProposalArgs; answer: ProposalResponse };
  list_team_proposals: { args: OrgArgs; answer: ProposalListResponse | null };
  team_members: { args: OrgArgs; answer: TeamMembers };
  change_member_role: { args: ChangeMemberRoleArgs; answer: TeamMembers };
  remove_member: { args: RemoveMemberArgs; answer: TeamMembers };
  org_policy: { args: OrgArgs; answer: OrgPolicy };
  set_org_policy: { args: SetOrgPolicyArgs; answer: OrgPolicy };
  org_audit: { args: OrgAuditArgs; answer: AuditPage | null };
  agent_statuses: { args: NoArgs; answer: AgentsOverview };
  plan_agent_change: { args: PlanAgentChangeArgs; answer: AgentPlan };
  apply_agent_change: { args: ApplyAgentChangeArgs; answer: AgentApplied };
  plan_recall_change: { args: PlanRecallChangeArgs; answer: RecallPlan };
  apply_recall_change: { args: ApplyRecallChangeArgs; answer: AgentApplied };
};

/** Each event's payload (crates/desktop/src/events.rs). */
export type EventTypes = {
  "memory-delete-settled": Settled;
  "sessions-changed": null;
  "inbox-changed": InboxChange;
  "transfer-progress": TransferProgress;
};

/** Every command the window may call (src-tauri/app_commands.rs). */
export const COMMANDS = [
  "get_state",
  "set_active_org",
  "set_prefs",
  "sign_in_team",
  "use_local_account",
  "sign_out",
  "list_memories",
  "search_memories",
  "search_status",
  "schedule_delete",
  "undo_delete",
  "flush_deletes",
  "list_pending_deletes",
  "edit_memory",
  "find_similar",
  "memories_citing",
  "export_memories",
  "import_memories",
  "memory_revisions",
  "restore_revision",
  "list_sessions",
  "forget_session",
  "session_facets",
  "open_session",
  "find_session",
  "read_transcript",
  "latest_message",
  "session_activity",
  "search_messages",
  "save_memory",
  "set_session_roots",
  "list_proposals",
  "accept_proposal",
  "reject_proposal",
  "agent_statuses",
  "plan_agent_change",
  "apply_agent_change",
  "plan_recall_change",
  "apply_recall_change",
  "session_sources",
  "set_source_enabled",
  "import_chats",
  "list_team_proposals",
  "team_members",
  "change_member_role",
  "remove_member",
  "org_policy",
  "set_org_policy",
  "org_audit",
] as const;
