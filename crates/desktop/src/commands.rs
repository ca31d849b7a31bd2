//! Every command the desktop UI can call, as Rust types: its name, its arguments, its
//! answer, and what it does on [`Desktop`]. The Tauri crate routes each name to
//! [`run`]; `ui/src/bindings.ts` is generated from these types (see `bindings`), so
//! the UI cannot send or expect another shape.

use std::future::Future;

use memory_bank_contract::edit::{EditMemoryRequest, RevisionListResponse};
use memory_bank_contract::wire::{
    CitingResponse, FindSimilarRequest, ListResponse, SearchStatus, Memory, ProposalListResponse, ProposalResponse, SaveMemoryRequest, SearchResponse, SimilarResponse,
};
use memory_bank_contract::teams::{AuditPage, BankScope, OrgPolicy, Role};
use memory_bank_sessions as sessions;
use crate::transfer::{ExportOutcome, ImportArgs, ImportOutcome};
use memory_bank_sessions::{ActivityArgs, LatestArgs, ListArgs, OpenArgs, ReadArgs, SearchArgs};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tracing::Instrument as _;

use crate::agents::{Agent, AgentAction, AgentApplied, AgentPlan, AgentsOverview, RecallPlan, ReviewedDiff};
use crate::deletes::PendingDelete;
use crate::inbox::ProposalEdits;
use crate::panic_guard::catch_panics;
use crate::prefs::{PrefsPatch, SessionRoot};
use crate::team::TeamMembers;
use crate::{AppState, Desktop, DesktopError, ScheduledDelete};

/// One command of the desktop IPC.
pub trait Command {
    /// The name the UI invokes (`get_state`).
    const NAME: &'static str;
    /// Its arguments: an object of camelCase fields.
    type Args: DeserializeOwned + Send;
    /// Its answer.
    type Answer: Serialize + Send;
    /// Does it.
    fn run(desktop: &Desktop, args: Self::Args) -> impl Future<Output = Result<Self::Answer, DesktopError>> + Send;
}

/// Runs command `C` with the JSON arguments the UI sent (`None`: a body that is not
/// JSON). The one rule for every command: it runs in a `command` span naming it, its
/// arguments are read as `C::Args` (`invalid_request` when they do not fit), and a
/// panic answers `internal` instead of leaving the UI waiting.
pub async fn run<C: Command>(desktop: &Desktop, args: Option<&serde_json::Value>) -> Result<C::Answer, DesktopError> {
    let span = tracing::info_span!("command", cmd = C::NAME);
    let answer = catch_panics(async {
        let args = args.ok_or_else(|| DesktopError::invalid("expected JSON arguments"))?;
        C::run(desktop, parse_args(args)?).await
    })
    .instrument(span)
    .await;
    if let Err(err) = &answer {
        tracing::debug!(cmd = C::NAME, code = %err.code, "command failed");
    }
    answer
}

/// Reads arguments as `T`; no arguments at all (`null`) are `{}`.
pub fn parse_args<T: DeserializeOwned>(args: &serde_json::Value) -> Result<T, DesktopError> {
    let empty = serde_json::Value::Object(Default::default());
    let args = if args.is_null() { &empty } else { args };
    T::deserialize(args).map_err(|e| DesktopError::invalid(format!("bad arguments: {e}")))
}

/// The arguments of a command that takes none.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NoArgs {}

/// `set_active_org`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SetActiveOrgArgs {
    /// One of the user's orgs.
    pub org_id: String,
}

/// `sign_in_team`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SignInTeamArgs {
    /// The team server's URL.
    pub url: String,
    /// The person's token there (checked with `GET /v1/me`, then kept in the OS keyring).
    pub token: String,
}

/// `list_memories`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct ListMemoriesArgs {
    /// The org to list.
    pub org_id: String,
    /// Page size (the API's default when absent).
    pub limit: Option<u32>,
    /// The `nextCursor` of the previous page.
    pub cursor: Option<String>,
    /// `mine`, `team` or `all` (the default).
    pub scope: Option<BankScope>,
}

/// `search_memories`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct SearchMemoriesArgs {
    /// The org to search.
    pub org_id: String,
    /// The query.
    pub q: String,
    /// Most results (the API's default when absent).
    pub limit: Option<u32>,
    /// `mine`, `team` or `all` (the default).
    pub scope: Option<BankScope>,
}

/// `schedule_delete`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ScheduleDeleteArgs {
    /// The org active when the person confirmed.
    pub org_id: String,
    /// The memory.
    pub id: String,
}

/// `undo_delete`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct UndoDeleteArgs {
    /// The memory whose delete is cancelled.
    pub id: String,
}

/// The answer of `undo_delete`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Undone {
    /// False once the delete is being sent (its outcome is reported as usual).
    pub undone: bool,
}

/// `save_memory`: the org active when the person pressed Save, and the memory.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SaveMemoryArgs {
    /// Where it is saved.
    pub org_id: String,
    /// What is saved (`confirmedVia` is always `app`, whatever it says).
    #[serde(flatten)]
    pub memory: SaveMemoryRequest,
}

/// `find_similar`: a sentence the person is about to save (or an edit of `excludeId`).
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FindSimilarArgs {
    /// The org the person is in.
    pub org_id: String,
    /// The sentence, and the memory to leave out.
    #[serde(flatten)]
    pub request: FindSimilarRequest,
}

/// `edit_memory`: the org active when the person pressed Enter, the memory, and what
/// changes.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct EditMemoryArgs {
    /// The org the request is made in.
    pub org_id: String,
    /// The memory.
    pub id: String,
    /// The new sentence and/or tags (`confirmedVia` is always `app`).
    pub edit: EditMemoryRequest,
}

/// `memory_revisions`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MemoryRevisionsArgs {
    /// The org the request is made in.
    pub org_id: String,
    /// The memory.
    pub id: String,
}

/// `restore_revision`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RestoreRevisionArgs {
    /// The org the request is made in.
    pub org_id: String,
    /// The memory.
    pub id: String,
    /// The revision to make current again.
    pub revision_id: String,
}

/// `set_session_roots`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SetSessionRootsArgs {
    /// Replaces the extra session folders (absolute paths, at most 20).
    pub roots: Vec<SessionRoot>,
}

/// `set_source_enabled`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SetSourceEnabledArgs {
    /// The tool.
    pub source: sessions::Source,
    /// Read its sessions (true) or not.
    pub enabled: bool,
}

/// `list_proposals`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ListProposalsArgs {
    /// The org the request is made in (proposals of every org of the user are listed).
    pub org_id: String,
}

/// `search_status`: whether search reads meaning, and how far (the panel's note).
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SearchStatusArgs {
    /// The org the request is made in.
    pub org_id: String,
}

/// `memories_citing`: which memories cite a session (the Sessions view's markers).
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CitingArgs {
    /// The org the request is made in (every memory of the user is looked at).
    pub org_id: String,
    /// The session.
    pub session_id: String,
}

/// `export_memories`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ExportArgs {
    /// The org the request is made in (every memory of the user is exported).
    pub org_id: String,
}

/// `accept_proposal`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct AcceptProposalArgs {
    /// The org the request is made in.
    pub org_id: String,
    /// The proposal.
    pub id: String,
    /// What the person changed; absent = as proposed.
    pub edits: Option<ProposalEdits>,
}

/// `reject_proposal`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RejectProposalArgs {
    /// The org the request is made in.
    pub org_id: String,
    /// The proposal.
    pub id: String,
}

/// A command about one org's team (its org Inbox, members, policy or audit log).
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct OrgArgs {
    /// The org.
    pub org_id: String,
}

/// `change_member_role`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ChangeMemberRoleArgs {
    /// The org.
    pub org_id: String,
    /// The member (`usr_…`).
    pub user_id: String,
    /// Their new role.
    pub role: Role,
}

/// `remove_member`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RemoveMemberArgs {
    /// The org.
    pub org_id: String,
    /// The member (`usr_…`).
    pub user_id: String,
}

/// `set_org_policy`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SetOrgPolicyArgs {
    /// The org.
    pub org_id: String,
    /// The whole policy (it replaces the one in force).
    pub policy: OrgPolicy,
}

/// `org_audit`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct OrgAuditArgs {
    /// The org.
    pub org_id: String,
    /// The previous page's `nextBefore`; absent: the newest lines.
    pub before: Option<i64>,
}

/// `plan_agent_change`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlanAgentChangeArgs {
    /// The agent whose config file changes.
    pub agent: Agent,
    /// Install or remove.
    pub action: AgentAction,
}

/// `apply_agent_change`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ApplyAgentChangeArgs {
    /// The agent whose config file changes.
    pub agent: Agent,
    /// Install or remove.
    pub action: AgentAction,
    /// The plan the person confirmed; a file that changed since is not written.
    pub diff: String,
}

/// `plan_recall_change`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlanRecallChangeArgs {
    /// Turn recall on or off.
    pub on: bool,
}

/// `apply_recall_change`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ApplyRecallChangeArgs {
    /// Turn recall on or off.
    pub on: bool,
    /// The diff the person reviewed for each installed agent.
    pub reviewed: Vec<ReviewedDiff>,
}

/// Declares each command: a marker type implementing [`Command`], and [`NAMES`].
macro_rules! commands {
    ($(
        $(#[$doc:meta])*
        $marker:ident = $name:literal ($desktop:ident, $args:ident: $Args:ty) -> $Answer:ty $body:block
    )*) => {
        $(
            $(#[$doc])*
            pub enum $marker {}

            impl Command for $marker {
                const NAME: &'static str = $name;
                type Args = $Args;
                type Answer = $Answer;
                async fn run($desktop: &Desktop, $args: $Args) -> Result<$Answer, DesktopError> $body
            }
        )*

        /// Every command's name, in declaration order.
        pub const NAMES: &[&str] = &[$($name),*];

        /// Every command's TypeScript signature.
        #[cfg(feature = "ts")]
        pub(crate) fn signatures() -> Vec<crate::bindings::Signature> {
            vec![$(crate::bindings::Signature::of::<$marker>()),*]
        }
    };
}

commands! {
    /// Everything the UI needs to pick a screen.
    GetState = "get_state" (desktop, _args: NoArgs) -> AppState { Ok(desktop.core().state().await) }
    /// Makes one of the user's orgs the active one.
    SetActiveOrg = "set_active_org" (desktop, args: SetActiveOrgArgs) -> AppState {
        desktop.core().set_active_org(&args.org_id).await
    }
    /// Changes UI preferences; `language: null` follows the OS again.
    SetPrefs = "set_prefs" (desktop, args: PrefsPatch) -> AppState { desktop.set_prefs(args).await }
    /// Signs in to a team server.
    SignInTeam = "sign_in_team" (desktop, args: SignInTeamArgs) -> AppState {
        desktop.core().sign_in_team(&args.url, &args.token).await
    }
    /// Switches to the embedded local service.
    UseLocalAccount = "use_local_account" (desktop, _args: NoArgs) -> AppState { desktop.core().use_local().await }
    /// Signs out of the team server (deletes the keyring token).
    SignOut = "sign_out" (desktop, _args: NoArgs) -> AppState { desktop.core().sign_out().await }
    /// One page of memories.
    ListMemories = "list_memories" (desktop, args: ListMemoriesArgs) -> ListResponse {
        desktop.core().list_scoped(&args.org_id, args.limit, args.cursor.as_deref(), args.scope).await
    }
    /// Whether search reads meaning, and how far the person's vectors are made.
    GetSearchStatus = "search_status" (desktop, args: SearchStatusArgs) -> SearchStatus {
        desktop.core().search_status(&args.org_id).await
    }
    /// Searches memories.
    SearchMemories = "search_memories" (desktop, args: SearchMemoriesArgs) -> SearchResponse {
        desktop.core().search_scoped(&args.org_id, &args.q, args.limit, args.scope).await
    }
    /// Starts a delete's undo window (journaled before it answers).
    ScheduleDelete = "schedule_delete" (desktop, args: ScheduleDeleteArgs) -> ScheduledDelete {
        desktop.core().schedule_delete(&args.org_id, &args.id).await
    }
    /// Cancels a pending delete.
    UndoDelete = "undo_delete" (desktop, args: UndoDeleteArgs) -> Undone {
        Ok(Undone { undone: desktop.core().undo_delete(&args.id)? })
    }
    /// Sends every pending delete now and waits for them.
    FlushDeletes = "flush_deletes" (desktop, _args: NoArgs) -> () {
        desktop.core().flush_deletes().await;
        Ok(())
    }
    /// Deletes not settled yet.
    ListPendingDeletes = "list_pending_deletes" (desktop, _args: NoArgs) -> Vec<PendingDelete> {
        Ok(desktop.core().pending_deletes())
    }
    /// Agent sessions, newest first.
    ListSessions = "list_sessions" (desktop, args: ListArgs) -> sessions::SessionList {
        desktop.history()?.list_sessions(args).await
    }
    /// Removes a session from the history (index, search, archive) until its tool adds to it.
    ForgetSession = "forget_session" (desktop, args: sessions::ForgetArgs) -> sessions::SessionInfo {
        desktop.history()?.forget_session(args).await
    }
    /// Sessions per tool and workspace.
    SessionFacets = "session_facets" (desktop, _args: NoArgs) -> sessions::Facets { desktop.history()?.facets().await }
    /// A session's metadata; it becomes the open session.
    OpenSession = "open_session" (desktop, args: OpenArgs) -> sessions::SessionInfo {
        desktop.history()?.open_session(args).await
    }
    /// A session's metadata without opening it (citation links).
    FindSession = "find_session" (desktop, args: OpenArgs) -> sessions::SessionInfo {
        desktop.history()?.session_info(args).await
    }
    /// Messages of a session, paging backwards.
    ReadTranscript = "read_transcript" (desktop, args: ReadArgs) -> sessions::Transcript {
        desktop.history()?.read_transcript(args).await
    }
    /// The last message of a session.
    LatestMessage = "latest_message" (desktop, args: LatestArgs) -> sessions::LatestMessage {
        desktop.history()?.latest_message(args).await
    }
    /// The tool calls between messages.
    SessionActivity = "session_activity" (desktop, args: ActivityArgs) -> sessions::Activity {
        desktop.history()?.session_activity(args).await
    }
    /// Messages containing a text, newest first.
    SearchMessages = "search_messages" (desktop, args: SearchArgs) -> sessions::SearchResult {
        desktop.history()?.search_messages(args).await
    }
    /// Saves a memory the person wrote or picked (refusing secrets).
    SaveMemory = "save_memory" (desktop, args: SaveMemoryArgs) -> Memory {
        desktop.core().save(&args.org_id, args.memory).await
    }
    /// The person's memories worded much like a sentence (hints; never merged).
    FindSimilar = "find_similar" (desktop, args: FindSimilarArgs) -> SimilarResponse {
        desktop.core().find_similar(&args.org_id, args.request).await
    }
    /// Edits a memory in place (the old version is kept as a revision).
    EditMemory = "edit_memory" (desktop, args: EditMemoryArgs) -> Memory {
        desktop.core().edit_memory(&args.org_id, &args.id, args.edit).await
    }
    /// The person's memories that cite a session, newest first.
    MemoriesCiting = "memories_citing" (desktop, args: CitingArgs) -> CitingResponse {
        desktop.core().memories_citing(&args.org_id, &args.session_id).await
    }
    /// Asks where (the system's file dialog), then writes every memory there as NDJSON.
    ExportMemories = "export_memories" (desktop, args: ExportArgs) -> ExportOutcome {
        desktop.export_memories(&args.org_id).await
    }
    /// Asks which export file (the system's file dialog), then imports it.
    ImportMemories = "import_memories" (desktop, args: ImportArgs) -> ImportOutcome {
        desktop.import_memories(args).await
    }
    /// Settings → Data → Import chats: a ChatGPT or Claude.ai export into the session history.
    ImportChats = "import_chats" (desktop, _args: NoArgs) -> crate::transfer::ImportChatsOutcome {
        desktop.import_chats().await
    }
    /// A memory's earlier versions, most recently replaced first.
    MemoryRevisions = "memory_revisions" (desktop, args: MemoryRevisionsArgs) -> RevisionListResponse {
        desktop.core().memory_revisions(&args.org_id, &args.id).await
    }
    /// Makes an earlier version current again (itself an edit).
    RestoreRevision = "restore_revision" (desktop, args: RestoreRevisionArgs) -> Memory {
        desktop.core().restore_revision(&args.org_id, &args.id, &args.revision_id).await
    }
    /// Replaces the extra session folders, and reads them from now on.
    SetSessionRoots = "set_session_roots" (desktop, args: SetSessionRootsArgs) -> AppState {
        desktop.set_session_roots(args.roots).await
    }
    /// Every session source: found here or not, the folders it is read from, on or off.
    SessionSources = "session_sources" (desktop, _args: NoArgs) -> Vec<sessions::SourceFolders> {
        desktop.session_sources()
    }
    /// Turns a session source on or off, for the app and for `memory-bank sessions`/`mcp`.
    SetSourceEnabled = "set_source_enabled" (desktop, args: SetSourceEnabledArgs) -> Vec<sessions::SourceFolders> {
        desktop.set_source_enabled(args.source, args.enabled)
    }
    /// The pending proposals of the signed-in user.
    ListProposals = "list_proposals" (desktop, args: ListProposalsArgs) -> ProposalListResponse {
        desktop.core().list_proposals(&args.org_id).await
    }
    /// Accepts a proposal as the person.
    AcceptProposal = "accept_proposal" (desktop, args: AcceptProposalArgs) -> ProposalResponse {
        desktop.core().accept_proposal(&args.org_id, &args.id, args.edits.unwrap_or_default()).await
    }
    /// Rejects a proposal.
    RejectProposal = "reject_proposal" (desktop, args: RejectProposalArgs) -> ProposalResponse {
        desktop.core().reject_proposal(&args.org_id, &args.id).await
    }
    /// The org Inbox: an admin's or owner's pending proposals to decide, or a member's own
    /// team proposals to follow (`yourRole` says which).
    ListTeamProposals = "list_team_proposals" (desktop, args: OrgArgs) -> Option<ProposalListResponse> {
        desktop.core().list_team_proposals(&args.org_id).await
    }
    /// The caller's role in the org and, for admins and owners, its members.
    TeamMembersOf = "team_members" (desktop, args: OrgArgs) -> TeamMembers {
        desktop.core().team_members(&args.org_id).await
    }
    /// Gives a member another role (the server's rules; a refusal says why).
    ChangeMemberRole = "change_member_role" (desktop, args: ChangeMemberRoleArgs) -> TeamMembers {
        desktop.core().change_member_role(&args.org_id, &args.user_id, args.role).await
    }
    /// Removes a member from the org.
    RemoveMember = "remove_member" (desktop, args: RemoveMemberArgs) -> TeamMembers {
        desktop.core().remove_member(&args.org_id, &args.user_id).await
    }
    /// The org's policy.
    GetOrgPolicy = "org_policy" (desktop, args: OrgArgs) -> OrgPolicy {
        desktop.core().org_policy(&args.org_id).await
    }
    /// Replaces the org's policy (owners).
    SetOrgPolicy = "set_org_policy" (desktop, args: SetOrgPolicyArgs) -> OrgPolicy {
        desktop.core().set_org_policy(&args.org_id, &args.policy).await
    }
    /// One page of the org's audit log, newest first; null for a member.
    OrgAudit = "org_audit" (desktop, args: OrgAuditArgs) -> Option<AuditPage> {
        desktop.core().org_audit(&args.org_id, args.before).await
    }
    /// The agents and the binary they would run.
    AgentStatuses = "agent_statuses" (desktop, _args: NoArgs) -> AgentsOverview { desktop.core().agent_statuses().await }
    /// The exact change Install or Remove would make; nothing is written.
    PlanAgentChange = "plan_agent_change" (desktop, args: PlanAgentChangeArgs) -> AgentPlan {
        desktop.core().plan_agent_change(args.agent, args.action).await
    }
    /// Writes the change only if it is still the one the person confirmed.
    ApplyAgentChange = "apply_agent_change" (desktop, args: ApplyAgentChangeArgs) -> AgentApplied {
        desktop.core().apply_agent_change(args.agent, args.action, &args.diff).await
    }
    /// What turning recall on or off would change in each installed agent; nothing is written.
    PlanRecallChange = "plan_recall_change" (desktop, args: PlanRecallChangeArgs) -> RecallPlan {
        desktop.core().plan_recall_change(args.on).await
    }
    /// Turns recall on or off: the reviewed changes written, the setting kept.
    ApplyRecallChange = "apply_recall_change" (desktop, args: ApplyRecallChangeArgs) -> AgentApplied {
        desktop.core().apply_recall_change(args.on, args.reviewed).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use memory_bank_contract::ErrorCode;
    use serde_json::json;

    #[test]
    fn arguments_are_typed_and_a_bad_one_is_invalid_request() {
        let args: ListMemoriesArgs = parse_args(&json!({"orgId": "org_1", "limit": 5})).unwrap();
        assert_eq!((args.org_id.as_str(), args.limit, args.cursor), ("org_1", Some(5), None));
        let none: NoArgs = parse_args(&serde_json::Value::Null).unwrap();
        let _ = none;
        for bad in [json!({"orgId": 7}), json!({"limit": 5}), json!([1]), json!("org_1")] {
            let err = parse_args::<ListMemoriesArgs>(&bad).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidRequest, "{bad}");
            assert!(err.message.starts_with("bad arguments: "), "{}", err.message);
        }
        assert_eq!(parse_args::<NoArgs>(&json!([1])).unwrap_err().code, ErrorCode::InvalidRequest);
    }

    #[test]
    fn every_command_has_one_name() {
        let mut names = NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), NAMES.len(), "a command name is declared twice");
    }
}
