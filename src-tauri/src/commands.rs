//! Tauri commands: each one hands its JSON arguments to the command of the same name in
//! [`memory_bank_desktop::commands`], which says its types and what it does;
//! [`commands::run`] gives every command the same span, argument check and panic guard.

use memory_bank_desktop::commands::{self as desktop, Command};
use memory_bank_desktop::DesktopError;
use tauri::ipc::{InvokeBody, Request};
use tauri::State;

use crate::DesktopState;

type Answer<C> = Result<<C as Command>::Answer, DesktopError>;

/// The arguments as JSON; `None` when the body is not JSON.
fn json<'a>(request: &'a Request<'_>) -> Option<&'a serde_json::Value> {
    match request.body() {
        InvokeBody::Json(args) => Some(args),
        InvokeBody::Raw(_) => None,
    }
}

/// One `#[tauri::command]` per name, and [`handler`] routing them all.
macro_rules! app_commands {
    ($($name:ident => $command:ident,)*) => {
        $(
            // The arguments are read whole by `run`: Tauri's own per-argument reading
            // would treat `"language": null` like an absent key, but null means
            // "follow the OS" there.
            #[tauri::command]
            pub async fn $name(desktop: State<'_, DesktopState>, request: Request<'_>) -> Answer<desktop::$command> {
                desktop::run::<desktop::$command>(&desktop, json(&request)).await
            }
        )*

        /// Routes every command of the app.
        pub fn handler<R: tauri::Runtime>() -> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$($name),*]
        }
    };
}

app_commands! {
    get_state => GetState,
    set_active_org => SetActiveOrg,
    set_prefs => SetPrefs,
    sign_in_team => SignInTeam,
    use_local_account => UseLocalAccount,
    sign_out => SignOut,
    list_memories => ListMemories,
    search_memories => SearchMemories,
    search_status => GetSearchStatus,
    schedule_delete => ScheduleDelete,
    undo_delete => UndoDelete,
    flush_deletes => FlushDeletes,
    list_pending_deletes => ListPendingDeletes,
    edit_memory => EditMemory,
    find_similar => FindSimilar,
    memories_citing => MemoriesCiting,
    export_memories => ExportMemories,
    import_memories => ImportMemories,
    memory_revisions => MemoryRevisions,
    restore_revision => RestoreRevision,
    list_sessions => ListSessions,
    forget_session => ForgetSession,
    session_facets => SessionFacets,
    open_session => OpenSession,
    find_session => FindSession,
    read_transcript => ReadTranscript,
    latest_message => LatestMessage,
    session_activity => SessionActivity,
    search_messages => SearchMessages,
    save_memory => SaveMemory,
    set_session_roots => SetSessionRoots,
    list_proposals => ListProposals,
    accept_proposal => AcceptProposal,
    reject_proposal => RejectProposal,
    agent_statuses => AgentStatuses,
    plan_agent_change => PlanAgentChange,
    apply_agent_change => ApplyAgentChange,
    plan_recall_change => PlanRecallChange,
    apply_recall_change => ApplyRecallChange,
    session_sources => SessionSources,
    set_source_enabled => SetSourceEnabled,
    import_chats => ImportChats,
    list_team_proposals => ListTeamProposals,
    team_members => TeamMembersOf,
    change_member_role => ChangeMemberRole,
    remove_member => RemoveMember,
    org_policy => GetOrgPolicy,
    set_org_policy => SetOrgPolicy,
    org_audit => OrgAudit,
}
