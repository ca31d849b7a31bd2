//! Tauri commands: each one adapts a call on [`Core`] and nothing more. Each body runs
//! under [`catch_panics`], so a fault answers an `internal` error instead of leaving the
//! UI waiting on a command that will never answer.

use memory_bank_contract::wire::{ListResponse, Memory, ProposalListResponse, ProposalResponse, SaveMemoryRequest, SearchResponse};
use memory_bank_desktop::agents::{Agent, AgentAction, AgentApplied, AgentPlan, AgentsOverview};
use memory_bank_desktop::inbox::ProposalEdits;
use memory_bank_desktop::panic_guard::catch_panics;
use memory_bank_desktop::prefs::{PrefsPatch, SessionRoot};
use memory_bank_desktop::{AppState, DesktopError};
use serde::Serialize;
use tauri::ipc::InvokeBody;
use tauri::State;

use crate::CoreState as Core;
use crate::HistoryState as History;
use memory_bank_sessions::{Activity, Facets, LatestMessage, SearchResult, SessionInfo, SessionList, Transcript};

type Result<T> = std::result::Result<T, DesktopError>;

#[tauri::command]
pub async fn get_state(core: State<'_, Core>) -> Result<AppState> {
    catch_panics(async move { Ok(core.state().await) }).await
}

#[tauri::command]
pub async fn set_active_org(core: State<'_, Core>, org_id: String) -> Result<AppState> {
    catch_panics(async move { core.set_active_org(&org_id).await }).await
}

/// Reads the raw arguments: Tauri treats `"language": null` like an absent key, but
/// null means "follow the OS" here.
#[tauri::command]
pub async fn set_prefs(
    core: State<'_, Core>,
    request: tauri::ipc::Request<'_>,
) -> Result<AppState> {
    catch_panics(async move {
        let InvokeBody::Json(args) = request.body() else {
            return Err(DesktopError::new("invalid_request", "expected JSON"));
        };
        core.set_prefs(PrefsPatch::from_json(args)?).await
    })
    .await
}

#[tauri::command]
pub async fn sign_in_team(core: State<'_, Core>, url: String, token: String) -> Result<AppState> {
    catch_panics(async move { core.sign_in_team(&url, &token).await }).await
}

#[tauri::command]
pub async fn use_local_account(core: State<'_, Core>) -> Result<AppState> {
    catch_panics(async move { core.use_local().await }).await
}

#[tauri::command]
pub async fn sign_out(core: State<'_, Core>) -> Result<AppState> {
    catch_panics(async move { core.sign_out().await }).await
}

#[tauri::command]
pub async fn list_memories(
    core: State<'_, Core>,
    org_id: String,
    limit: Option<u32>,
    cursor: Option<String>,
) -> Result<ListResponse> {
    catch_panics(async move { core.list(&org_id, limit, cursor.as_deref()).await }).await
}

#[tauri::command]
pub async fn search_memories(
    core: State<'_, Core>,
    org_id: String,
    q: String,
    limit: Option<u32>,
) -> Result<SearchResponse> {
    catch_panics(async move { core.search(&org_id, &q, limit).await }).await
}

#[tauri::command]
pub async fn schedule_delete(
    core: State<'_, Core>,
    org_id: String,
    id: String,
) -> Result<memory_bank_desktop::ScheduledDelete> {
    catch_panics(async move { core.schedule_delete(&org_id, &id).await }).await
}

#[derive(Serialize)]
pub struct Undone {
    undone: bool,
}

#[tauri::command]
pub async fn undo_delete(core: State<'_, Core>, id: String) -> Result<Undone> {
    catch_panics(async move {
        Ok(Undone {
            undone: core.undo_delete(&id)?,
        })
    })
    .await
}

#[tauri::command]
pub async fn list_pending_deletes(core: State<'_, Core>) -> Result<Vec<memory_bank_desktop::deletes::PendingDelete>> {
    catch_panics(async move { Ok(core.pending_deletes()) }).await
}

#[tauri::command]
pub async fn flush_deletes(core: State<'_, Core>) -> Result<()> {
    catch_panics(async move {
        core.flush_deletes().await;
        Ok(())
    })
    .await
}

// Session history: the arguments are read as raw JSON, so the lookup actions apply their
// own lenient rules (e.g. a `count` that is not a number means 10), exactly as for the CLI.

fn args<T: serde::de::DeserializeOwned>(request: &tauri::ipc::Request<'_>) -> Result<T> {
    let value = match request.body() {
        InvokeBody::Json(value) => value.clone(),
        InvokeBody::Raw(_) => {
            return Err(DesktopError::new(
                "invalid_argument",
                "expected JSON arguments",
            ))
        }
    };
    let value = if value.is_null() { serde_json::json!({}) } else { value };
    serde_json::from_value(value).map_err(|e| DesktopError::new("invalid_argument", format!("bad arguments: {e}")))
}

#[tauri::command]
pub async fn list_sessions(
    history: State<'_, History>,
    request: tauri::ipc::Request<'_>,
) -> Result<SessionList> {
    catch_panics(async move { history.list_sessions(args(&request)?).await }).await
}

#[tauri::command]
pub async fn session_facets(history: State<'_, History>) -> Result<Facets> {
    catch_panics(async move { history.facets().await }).await
}

#[tauri::command]
pub async fn open_session(
    history: State<'_, History>,
    request: tauri::ipc::Request<'_>,
) -> Result<SessionInfo> {
    catch_panics(async move { history.open_session(args(&request)?).await }).await
}

#[tauri::command]
pub async fn find_session(
    history: State<'_, History>,
    request: tauri::ipc::Request<'_>,
) -> Result<SessionInfo> {
    catch_panics(async move { history.session_info(args(&request)?).await }).await
}

#[tauri::command]
pub async fn read_transcript(
    history: State<'_, History>,
    request: tauri::ipc::Request<'_>,
) -> Result<Transcript> {
    catch_panics(async move { history.read_transcript(args(&request)?).await }).await
}

#[tauri::command]
pub async fn latest_message(
    history: State<'_, History>,
    request: tauri::ipc::Request<'_>,
) -> Result<LatestMessage> {
    catch_panics(async move { history.latest_message(args(&request)?).await }).await
}

#[tauri::command]
pub async fn session_activity(
    history: State<'_, History>,
    request: tauri::ipc::Request<'_>,
) -> Result<Activity> {
    catch_panics(async move { history.session_activity(args(&request)?).await }).await
}

#[tauri::command]
pub async fn search_messages(
    history: State<'_, History>,
    request: tauri::ipc::Request<'_>,
) -> Result<SearchResult> {
    catch_panics(async move { history.search_messages(args(&request)?).await }).await
}

/// `{ orgId, content, tags?, contexts? }`: the org active when the person pressed Save.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SaveArgs {
    org_id: String,
    #[serde(flatten)]
    memory: SaveMemoryRequest,
}

#[tauri::command]
pub async fn save_memory(
    core: State<'_, Core>,
    request: tauri::ipc::Request<'_>,
) -> Result<Memory> {
    catch_panics(async move {
        let SaveArgs { org_id, memory } = args(&request)?;
        core.save(&org_id, memory).await
    })
    .await
}

#[tauri::command]
pub async fn set_session_roots(
    core: State<'_, Core>,
    history: State<'_, History>,
    roots: Vec<SessionRoot>,
) -> Result<AppState> {
    catch_panics(async move {
        let state = core.set_session_roots(roots).await?;
        history.set_extra_roots(&core.session_roots())?;
        Ok(state)
    })
    .await
}

// The Inbox: proposals from agents, decided by the person.

#[tauri::command]
pub async fn list_proposals(core: State<'_, Core>, org_id: String) -> Result<ProposalListResponse> {
    catch_panics(async move { core.list_proposals(&org_id).await }).await
}

#[tauri::command]
pub async fn accept_proposal(core: State<'_, Core>, org_id: String, id: String, edits: Option<ProposalEdits>) -> Result<ProposalResponse> {
    catch_panics(async move { core.accept_proposal(&org_id, &id, edits.unwrap_or_default()).await }).await
}

#[tauri::command]
pub async fn reject_proposal(core: State<'_, Core>, org_id: String, id: String) -> Result<ProposalResponse> {
    catch_panics(async move { core.reject_proposal(&org_id, &id).await }).await
}

// Settings → Agents: the MCP server in each agent's own config file.

#[tauri::command]
pub async fn agent_statuses(core: State<'_, Core>) -> Result<AgentsOverview> {
    catch_panics(async move { core.agent_statuses().await }).await
}

#[tauri::command]
pub async fn plan_agent_change(core: State<'_, Core>, agent: Agent, action: AgentAction) -> Result<AgentPlan> {
    catch_panics(async move { core.plan_agent_change(agent, action).await }).await
}

/// `diff` is the plan the person confirmed; a file that changed since is not written.
#[tauri::command]
pub async fn apply_agent_change(core: State<'_, Core>, agent: Agent, action: AgentAction, diff: String) -> Result<AgentApplied> {
    catch_panics(async move { core.apply_agent_change(agent, action, &diff).await }).await
}
