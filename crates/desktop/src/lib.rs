//! Everything the desktop app does, without a window, so it tests like any library.
//!
//! The Tauri crate (`src-tauri`) only routes each command of [`commands`] to [`Desktop`]
//! and forwards events: [`Core`] resolves the account (a team server from env variables
//! or the keyring, or the embedded [`local`] service), keeps preferences through a
//! [`prefs::PrefsStore`], calls the memory API with the org the caller passes, and owns
//! deferred deletes ([`deletes::DeleteScheduler`]) so that they reach the server even if
//! the page goes; [`history::History`] reads the agent sessions on this machine.

pub mod agents;
#[cfg(feature = "ts")]
pub mod bindings;
pub mod commands;
mod core;
pub mod deletes;
mod desktop;
mod error;
pub mod events;
pub mod history;
pub mod inbox;
pub mod local;
pub mod panic_guard;
pub mod prefs;
pub use memory_bank_access::private_files;
pub use memory_bank_access::meaning;
pub mod secrets;
pub mod team;
pub mod transfer;

pub use crate::core::{Account, AppState, Core, CoreConfig, OrgInfo, ScheduledDelete, UiPrefs, UserInfo};
pub use desktop::Desktop;
pub use error::DesktopError;
