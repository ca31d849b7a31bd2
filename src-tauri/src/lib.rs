//! The Memory Bank desktop shell. All logic lives in `memory-bank-desktop`; this crate
//! wires it to Tauri: commands ([`commands`], routed to `memory_bank_desktop::commands`),
//! the preferences store, the events, and sending pending deletes before the process
//! exits (window closed, app quit, SIGTERM/SIGINT).

mod commands;
mod file_dialog;
pub mod navigation;
pub mod prefs_store;
#[cfg(target_os = "linux")]
mod web_memory;

include!("../app_commands.rs");

use std::sync::Arc;
use std::time::Duration;

use memory_bank_desktop::inbox;
use memory_bank_desktop::secrets::Keyring;
use memory_bank_desktop::{Core, CoreConfig, Desktop};
use tauri::{AppHandle, Builder, Emitter, Manager, RunEvent, Runtime};

/// The managed state every command receives: memories and sessions in one.
pub type DesktopState = Arc<Desktop>;

/// Event emitted when the session index picked up new or changed sessions.
pub const SESSIONS_CHANGED_EVENT: &str = memory_bank_desktop::events::SESSIONS_CHANGED;

/// Event emitted when a deferred delete settles.
pub const SETTLED_EVENT: &str = memory_bank_desktop::events::DELETE_SETTLED;

/// Event emitted when the pending proposals changed (`{ pending }`): a new one arrived
/// or one was decided, in this window or elsewhere.
pub const INBOX_CHANGED_EVENT: &str = memory_bank_desktop::events::INBOX_CHANGED;

/// Keyring service name for team-server tokens.
pub const KEYRING_SERVICE: &str = "memory-bank";

/// Most time spent sending pending deletes at exit before giving up.
const EXIT_FLUSH_LIMIT: Duration = Duration::from_secs(15);

/// Plugins, commands and start-up, shared by the real app and tests (mock runtime).
pub fn configure<R: Runtime>(builder: Builder<R>) -> Builder<R> {
    builder
        .plugin(tauri_plugin_store::Builder::default().build())
        .plugin(tauri_plugin_notification::init())
        .plugin(tauri_plugin_dialog::init())
        // Links open in the system browser; the window may open http, https and mailto
        // URLs only (capabilities/default.json), nothing else of the plugin's.
        .plugin(tauri_plugin_opener::init())
        .invoke_handler(commands::handler())
        .setup(|app| {
            let data_dir = start_core(app.handle())?;
            open_main_window(app.handle(), &data_dir)?;
            Ok(())
        })
}

/// Opens the main window (`create: false` in the config, so it is made here) with the
/// web view's own storage (caches, HSTS, local storage) inside the app's data folder,
/// so `MEMORY_BANK_DATA_DIR` moves all of it, and refusing to navigate anywhere but the
/// app's own pages ([`navigation`]). Absent from the config on the mock runtime, where
/// tests open their own window.
fn open_main_window<R: Runtime>(
    app: &AppHandle<R>,
    data_dir: &std::path::Path,
) -> tauri::Result<()> {
    let Some(config) = app
        .config()
        .app
        .windows
        .iter()
        .find(|w| w.label == "main")
        .cloned()
    else {
        return Ok(());
    };
    let dev_url = if tauri::is_dev() {
        app.config().build.dev_url.clone()
    } else {
        None
    };
    tauri::WebviewWindowBuilder::from_config(app, &config)?
        .data_directory(data_dir.join("webview"))
        .on_navigation(move |url| {
            let allowed = navigation::is_app_page(url, dev_url.as_ref());
            if !allowed {
                // The scheme only: a URL may carry a token or a person's data.
                tracing::warn!(
                    scheme = url.scheme(),
                    "refused to navigate the window away from the app"
                );
            }
            allowed
        })
        .build()?;
    Ok(())
}

/// Resolves the account, starts the local service if needed and the session history, and
/// manages them. Returns the data folder.
fn start_core<R: Runtime>(
    app: &AppHandle<R>,
) -> Result<std::path::PathBuf, Box<dyn std::error::Error>> {
    let config = CoreConfig::from_env(app.path().app_data_dir()?);
    memory_bank_desktop::private_files::secure_data_dir(&config.data_dir)?;
    let prefs = prefs_store::TauriPrefs::open(app, &config.data_dir)?;
    let (emitter, notifier) = (app.clone(), app.clone());
    let desktop = tauri::async_runtime::block_on(Desktop::start(
        config,
        Box::new(prefs),
        Box::new(Keyring::new(KEYRING_SERVICE)),
        move |settled| {
            if let Err(err) = emitter.emit(SETTLED_EVENT, settled) {
                tracing::warn!(error = %err, "could not report a settled delete");
            }
        },
        move || {
            if let Err(err) = notifier.emit(SESSIONS_CHANGED_EVENT, ()) {
                tracing::warn!(error = %err, "could not report changed sessions");
            }
        },
    ))?;
    let progress = app.clone();
    let desktop = desktop.with_files(file_dialog::SystemFileDialog { app: app.clone() }, move |step| {
        if let Err(err) = progress.emit(memory_bank_desktop::events::TRANSFER_PROGRESS, step) {
            tracing::warn!(error = %err, "could not report an export's or import's progress");
        }
    });
    let data_dir = desktop.data_dir();
    let desktop: DesktopState = Arc::new(desktop);
    app.manage::<DesktopState>(desktop.clone());
    watch_inbox(app.clone(), desktop.core().clone());
    watch_termination(app.clone());
    Ok(data_dir)
}

/// Polls the Inbox while the app runs ([`inbox::INBOX_POLL`]): every change is emitted as
/// [`INBOX_CHANGED_EVENT`] (the UI refetches), and new proposals raise a desktop
/// notification when the main window is not focused (when it is, the Inbox's live region
/// announces them). The notification is sent from Rust, so the web view needs no
/// notification permission. Where no notification service answers (no D-Bus session, as
/// under Xvfb) the plugin drops it: nothing else depends on it.
fn watch_inbox<R: Runtime>(app: AppHandle<R>, core: Arc<Core>) {
    let language_of = core.clone();
    let report = move |change: inbox::InboxChange| {
        if let Err(err) = app.emit(INBOX_CHANGED_EVENT, &change) {
            tracing::warn!(error = %err, "could not report the inbox");
        }
        let focused = app.get_webview_window("main").and_then(|w| w.is_focused().ok()).unwrap_or(false);
        let language = inbox::notification_language(language_of.language().as_deref());
        let Some((title, body)) = inbox::notification_text(&change.new, &language).filter(|_| !focused) else {
            return;
        };
        use tauri_plugin_notification::NotificationExt as _;
        match app.notification().builder().title(title).body(body).show() {
            Ok(()) => tracing::info!(new = change.new.len(), "desktop notification of new proposals"),
            Err(err) => tracing::debug!(error = %err, "no desktop notification"),
        }
    };
    tauri::async_runtime::spawn(inbox::watch_inbox(core, inbox::INBOX_POLL, report));
}

/// Sends pending deletes and stops the local service; bounded so exit cannot hang.
pub fn shutdown<R: Runtime>(app: &AppHandle<R>) {
    if let Some(desktop) = app.try_state::<DesktopState>() {
        let desktop = desktop.inner().clone();
        tauri::async_runtime::block_on(async move {
            if tokio::time::timeout(EXIT_FLUSH_LIMIT, desktop.shutdown()).await.is_err() {
                tracing::error!("gave up sending pending deletes at exit");
            }
        });
    }
}

/// On SIGTERM/SIGINT (logout, shutdown, Ctrl-C), send pending deletes, then exit.
fn watch_termination<R: Runtime>(app: AppHandle<R>) {
    #[cfg(unix)]
    tauri::async_runtime::spawn(async move {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else {
            tracing::warn!("cannot watch for termination signals");
            return;
        };
        tokio::select! { _ = term.recv() => {}, _ = int.recv() => {} }
        if let Some(desktop) = app.try_state::<DesktopState>() {
            let desktop = desktop.inner().clone();
            let _ = tokio::time::timeout(EXIT_FLUSH_LIMIT, desktop.shutdown()).await;
        }
        app.exit(0);
    });
    #[cfg(not(unix))]
    let _ = app;
}

/// Without a GPU (a VM, a remote desktop, Xvfb) WebKitGTK's GL compositing runs on the
/// CPU through llvmpipe: measured here, frames took 6× longer, start-up 2× longer and the
/// web process used ~200 MB more (BENCHMARKS.md). Our UI needs no GPU effects, so
/// compositing is turned off when there is no DRM render node, unless the person chose
/// otherwise by setting the variable themselves.
#[cfg(target_os = "linux")]
fn avoid_software_compositing() {
    const VAR: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
    let has_gpu = std::fs::read_dir("/dev/dri")
        .map(|dir| {
            dir.filter_map(Result::ok)
                .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
        })
        .unwrap_or(false);
    if !has_gpu && std::env::var_os(VAR).is_none() {
        // SAFETY: called first thing in `run`, before any other thread exists.
        unsafe { std::env::set_var(VAR, "1") };
    }
}

/// Runs the desktop app.
pub fn run() {
    // Before any thread exists: everything the app writes is private to this user.
    memory_bank_desktop::private_files::restrict_new_files();
    // Still before any thread: the embedding model's thread count, read once.
    memory_bank_desktop::meaning::prepare_process();
    #[cfg(target_os = "linux")]
    {
        avoid_software_compositing();
        web_memory::small_javascript_heap();
    }
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("MEMORY_BANK_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let app = match configure(tauri::Builder::default()).build(tauri::generate_context!()) {
        Ok(app) => app,
        Err(err) => {
            eprintln!("memory-bank-app: cannot start: {err}");
            std::process::exit(1);
        }
    };
    app.run(|handle, event| {
        // Closing the last window or quitting: pending deletes go out first.
        if matches!(event, RunEvent::ExitRequested { .. } | RunEvent::Exit) {
            shutdown(handle);
        }
    });
}
