//! Tauri commands: each one adapts a call on [`Core`] and nothing more.

use memory_bank_contract::wire::{ListResponse, SearchResponse};
use memory_bank_desktop::prefs::PrefsPatch;
use memory_bank_desktop::{AppState, DesktopError};
use tauri::ipc::InvokeBody;
use serde::Serialize;
use tauri::State;

use crate::CoreState as Core;

type Result<T> = std::result::Result<T, DesktopError>;

#[tauri::command]
pub async fn get_state(core: State<'_, Core>) -> Result<AppState> {
    Ok(core.state().await)
}

#[tauri::command]
pub async fn set_active_org(core: State<'_, Core>, org_id: String) -> Result<AppState> {
    core.set_active_org(&org_id).await
}

/// Reads the raw arguments: Tauri treats `"language": null` like an absent key, but
/// null means "follow the OS" here.
#[tauri::command]
pub async fn set_prefs(core: State<'_, Core>, request: tauri::ipc::Request<'_>) -> Result<AppState> {
    let InvokeBody::Json(args) = request.body() else { return Err(DesktopError::new("invalid_request", "expected JSON")) };
    core.set_prefs(PrefsPatch::from_json(args)?).await
}

#[tauri::command]
pub async fn sign_in_team(core: State<'_, Core>, url: String, token: String) -> Result<AppState> {
    core.sign_in_team(&url, &token).await
}

#[tauri::command]
pub async fn use_local_account(core: State<'_, Core>) -> Result<AppState> {
    core.use_local().await
}

#[tauri::command]
pub async fn sign_out(core: State<'_, Core>) -> Result<AppState> {
    core.sign_out().await
}

#[tauri::command]
pub async fn list_memories(core: State<'_, Core>, org_id: String, limit: Option<u32>, cursor: Option<String>) -> Result<ListResponse> {
    core.list(&org_id, limit, cursor.as_deref()).await
}

#[tauri::command]
pub async fn search_memories(core: State<'_, Core>, org_id: String, q: String, limit: Option<u32>) -> Result<SearchResponse> {
    core.search(&org_id, &q, limit).await
}

#[tauri::command]
pub async fn schedule_delete(core: State<'_, Core>, org_id: String, id: String) -> Result<memory_bank_desktop::ScheduledDelete> {
    core.schedule_delete(&org_id, &id).await
}

#[derive(Serialize)]
pub struct Undone {
    undone: bool,
}

#[tauri::command]
pub async fn undo_delete(core: State<'_, Core>, id: String) -> Result<Undone> {
    Ok(Undone { undone: core.undo_delete(&id) })
}

#[tauri::command]
pub async fn flush_deletes(core: State<'_, Core>) -> Result<()> {
    core.flush_deletes().await;
    Ok(())
}
