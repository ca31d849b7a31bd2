//! Tauri commands: each one adapts a call on [`Core`] and nothing more.

use memory_bank_contract::wire::{ListResponse, SearchResponse};
use memory_bank_desktop::{AppState, DesktopError};
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

#[tauri::command]
pub async fn set_prefs(core: State<'_, Core>, memory_enabled: Option<bool>, language: Option<Option<String>>) -> Result<AppState> {
    core.set_prefs(memory_enabled, language).await
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
