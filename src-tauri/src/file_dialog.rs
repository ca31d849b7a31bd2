//! Settings → Data's file dialog: the system's save and open dialogs (Tauri's dialog
//! plugin), opened by Rust so the web view never names a path.

use std::path::PathBuf;

use memory_bank_desktop::transfer::FilePicker;
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_dialog::DialogExt as _;

/// The dialog title the end-to-end test looks for; also what a person reads.
pub const EXPORT_TITLE: &str = "Export memories";
pub const IMPORT_TITLE: &str = "Import memories";
pub const CHATS_TITLE: &str = "Import chats from ChatGPT or Claude.ai";

/// Opens the dialogs over the main window.
pub struct SystemFileDialog<R: Runtime> {
    pub app: AppHandle<R>,
}

impl<R: Runtime> SystemFileDialog<R> {
    fn builder(&self, title: &str) -> tauri_plugin_dialog::FileDialogBuilder<R> {
        self.dialog(title).add_filter("Memory Bank export (NDJSON)", &["jsonl", "ndjson"])
    }

    fn dialog(&self, title: &str) -> tauri_plugin_dialog::FileDialogBuilder<R> {
        let builder = self.app.dialog().file().set_title(title);
        match self.app.get_webview_window("main") {
            Some(window) => builder.set_parent(&window),
            None => builder,
        }
    }
}

impl<R: Runtime> FilePicker for SystemFileDialog<R> {
    fn export_path(&self, suggested_name: &str) -> Option<PathBuf> {
        self.builder(EXPORT_TITLE).set_file_name(suggested_name).blocking_save_file()?.into_path().ok()
    }

    fn import_path(&self) -> Option<PathBuf> {
        self.builder(IMPORT_TITLE).blocking_pick_file()?.into_path().ok()
    }

    fn chat_export_path(&self) -> Option<PathBuf> {
        let dialog = self.dialog(CHATS_TITLE).add_filter("ChatGPT or Claude.ai export (.zip, conversations.json)", &["zip", "json"]);
        dialog.blocking_pick_file()?.into_path().ok()
    }
}
