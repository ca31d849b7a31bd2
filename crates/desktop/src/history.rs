//! The agent sessions on this machine, for the Sessions view: the lookup actions of
//! `memory-bank-sessions` over an index in the app data folder, kept current by a file
//! watcher so new sessions appear within seconds without a restart.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use memory_bank_contract::ErrorCode;
use memory_bank_db_key::KeySource;
use memory_bank_sessions::{
    archive_path, source_folders, Activity, ActivityArgs, ActionError, DbKey, Env, Facets, ForgetArgs, LatestArgs, LatestMessage, Library,
    ListArgs, OpenArgs, ReadArgs, Roots, SearchArgs, SearchResult, SessionInfo, SessionList, Source, SourceFolders, SourceSettings, Transcript,
};
use notify::{RecursiveMode, Watcher};

use crate::DesktopError;

/// How long the watcher waits for a burst of writes to settle before refreshing.
const SETTLE: Duration = Duration::from_millis(300);
/// The least time between two progress events of one long refresh.
const PROGRESS_EVERY: Duration = Duration::from_millis(500);
/// How often roots that do not exist yet are checked for (a tool installed later).
const ROOT_POLL: Duration = Duration::from_secs(1);

/// Runs after a refresh that changed something.
type OnChange = Arc<dyn Fn() + Send + Sync>;

/// A library and the flag that stops its watcher.
struct Watched {
    library: Arc<Library>,
    stop: Arc<AtomicBool>,
}

impl Drop for Watched {
    fn drop(&mut self) {
        // The watcher notices within one poll interval and exits.
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The session history and its watcher.
pub struct History {
    index_path: PathBuf,
    /// The archive's key, found once at start (a keyring lookup), for every library
    /// started over this index.
    archive_key: Option<DbKey>,
    on_change: OnChange,
    current: RwLock<Watched>,
    /// "Keep sessions after the tool deletes them", carried over to the library that
    /// replaces the current one when the extra roots change.
    keep_archived: AtomicBool,
}

impl History {
    /// Opens the index at `data_dir/sessions-index.sqlite` over the tools' default folders
    /// (from the process environment) plus `extra_roots`, refreshes it in the background,
    /// and watches the folders; `on_change` runs after a refresh that changed something.
    /// The archive of deleted sessions beside the index is encrypted with the key from
    /// `bank_key`, the bank's key source (see [`KeySource::for_archive`]): the same key
    /// file, or its own keyring entry.
    pub fn start(
        data_dir: &Path,
        extra_roots: &[(Source, PathBuf)],
        bank_key: &KeySource,
        on_change: impl Fn() + Send + Sync + 'static,
    ) -> Result<History, DesktopError> {
        let index_path = data_dir.join("sessions-index.sqlite");
        let archive = archive_path(&index_path);
        let source = bank_key.for_archive(&archive);
        let failed = |e: memory_bank_db_key::KeyError| DesktopError::new(ErrorCode::Index, format!("Cannot open the session archive: {e}."));
        let archive_key = memory_bank_db_key::resolve_key(&archive, &source).map_err(failed)?;
        // An archive still under a key `db rekey` replaced in the key file moves to its new key.
        if let Some(key) = &archive_key {
            let retired = source.retired_keys().map_err(failed)?;
            memory_bank_sessions::rekey_archive(&archive, key, &retired).map_err(ActionError::from)?;
        }
        let on_change: OnChange = Arc::new(on_change);
        let current = RwLock::new(start_watched(&index_path, extra_roots, archive_key.clone(), on_change.clone(), true)?);
        Ok(History { index_path, archive_key, on_change, current, keep_archived: AtomicBool::new(true) })
    }

    /// The preference "Keep sessions after the tool deletes them" (on by default): see
    /// [`Library::set_keep_archived`].
    pub fn set_keep_archived(&self, keep: bool) {
        self.keep_archived.store(keep, Ordering::Relaxed);
        self.library().set_keep_archived(keep);
    }

    /// `forget_session`: the session leaves the index and the archive until its tool adds
    /// to it (see [`Library::forget_session`]).
    pub async fn forget_session(&self, args: ForgetArgs) -> Result<SessionInfo, DesktopError> {
        self.blocking(move |l| l.forget_session(args)).await
    }

    /// Every source with its folders (the defaults and `extra_roots`), found or not, and
    /// whether the person turned it off (see `memory_bank_sessions::source_folders`).
    pub fn sources(&self, extra_roots: &[(Source, PathBuf)]) -> Result<Vec<SourceFolders>, DesktopError> {
        Ok(source_folders(&Env::from_process(), extra_roots, &self.source_settings()?))
    }

    /// Turns `source` on or off for every door (the choice is kept in the data folder, where
    /// `memory-bank sessions` and `memory-bank mcp` read it too), and reads accordingly from
    /// now on: a source turned off is not read, its sessions hidden, not archived.
    pub fn set_source_enabled(&self, source: Source, enabled: bool, extra_roots: &[(Source, PathBuf)]) -> Result<(), DesktopError> {
        let settings = self.source_settings()?.with(source, enabled);
        settings.save(self.data_dir()).map_err(|message| DesktopError::new(ErrorCode::Index, message))?;
        self.set_extra_roots(extra_roots)
    }

    fn data_dir(&self) -> &Path {
        self.index_path.parent().unwrap_or(Path::new("."))
    }

    fn source_settings(&self) -> Result<SourceSettings, DesktopError> {
        SourceSettings::load(self.data_dir()).map_err(|message| DesktopError::new(ErrorCode::Index, message))
    }

    /// Reads `extra_roots` (besides the default folders) from now on.
    pub fn set_extra_roots(&self, extra_roots: &[(Source, PathBuf)]) -> Result<(), DesktopError> {
        let keep = self.keep_archived.load(Ordering::Relaxed);
        let next = start_watched(&self.index_path, extra_roots, self.archive_key.clone(), self.on_change.clone(), keep)?;
        // The old watcher stops when its `Watched` is dropped here.
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = next;
        Ok(())
    }

    /// The library in use, for callers that run the actions themselves.
    pub fn library(&self) -> Arc<Library> {
        self.current.read().unwrap_or_else(|p| p.into_inner()).library.clone()
    }

    /// `list_sessions`.
    pub async fn list_sessions(&self, args: ListArgs) -> Result<SessionList, DesktopError> {
        self.blocking(move |l| l.list_sessions(args)).await
    }

    /// Sessions per tool and workspace.
    pub async fn facets(&self) -> Result<Facets, DesktopError> {
        self.blocking(|l| l.facets()).await
    }

    /// `open`; the session becomes the one `read_transcript` reads by default.
    pub async fn open_session(&self, args: OpenArgs) -> Result<SessionInfo, DesktopError> {
        self.blocking(move |l| l.open_session(args)).await
    }

    /// A session's metadata without opening it.
    pub async fn session_info(&self, args: OpenArgs) -> Result<SessionInfo, DesktopError> {
        self.blocking(move |l| l.session_info(args)).await
    }

    /// `read_transcript`.
    pub async fn read_transcript(&self, args: ReadArgs) -> Result<Transcript, DesktopError> {
        self.blocking(move |l| l.read_transcript(args)).await
    }

    /// `latest_message`.
    pub async fn latest_message(&self, args: LatestArgs) -> Result<LatestMessage, DesktopError> {
        self.blocking(move |l| l.latest_message(args)).await
    }

    /// The tool calls between messages (shown collapsed in the transcript).
    pub async fn session_activity(&self, args: ActivityArgs) -> Result<Activity, DesktopError> {
        self.blocking(move |l| l.session_activity(args)).await
    }

    /// `search_messages`.
    pub async fn search_messages(&self, args: SearchArgs) -> Result<SearchResult, DesktopError> {
        self.blocking(move |l| l.search_messages(args)).await
    }

    /// SQLite work runs off the async threads.
    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Library) -> Result<T, ActionError> + Send + 'static,
    ) -> Result<T, DesktopError> {
        let library = self.library();
        tokio::task::spawn_blocking(move || f(&library))
            .await
            .map_err(|e| DesktopError::new(ErrorCode::Internal, format!("session lookup failed: {e}")))?
            .map_err(DesktopError::from)
    }
}

fn start_watched(
    index: &Path,
    extra_roots: &[(Source, PathBuf)],
    archive_key: Option<DbKey>,
    on_change: OnChange,
    keep_archived: bool,
) -> Result<Watched, DesktopError> {
    // The person's choice of sources, kept beside the index for every door.
    let data_dir = index.parent().unwrap_or(Path::new("."));
    let settings = SourceSettings::load(data_dir).map_err(|message| DesktopError::new(ErrorCode::Index, message))?;
    // The chat exports imported into this data folder, wherever the environment says the
    // app's data folder is (the app's own may differ from it in tests and portable setups).
    let mut roots_wanted = extra_roots.to_vec();
    roots_wanted.extend(memory_bank_sessions::import_folders(data_dir));
    let roots = Roots::enabled(&Env::from_process(), &roots_wanted, &settings);
    let library = Arc::new(Library::open(Some(index), roots, archive_key)?);
    library.set_keep_archived(keep_archived);
    // A first index of a big history commits every 64 MB: the list fills as it goes
    // instead of appearing all at the end (at most one event per PROGRESS_EVERY; the
    // watcher sends one more when the refresh ends).
    library.on_progress({
        let on_change = on_change.clone();
        let last = std::sync::Mutex::new(None::<std::time::Instant>);
        move || {
            let mut last = last.lock().unwrap_or_else(|p| p.into_inner());
            if last.is_none_or(|t| t.elapsed() >= PROGRESS_EVERY) {
                *last = Some(std::time::Instant::now());
                on_change();
            }
        }
    });
    let stop = Arc::new(AtomicBool::new(false));
    {
        let (library, stop) = (library.clone(), stop.clone());
        std::thread::Builder::new()
            .name("session-watcher".into())
            .spawn(move || watch(&library, &stop, || on_change()))
            .map_err(|e| DesktopError::new(ErrorCode::Internal, format!("cannot start the session watcher: {e}")))?;
    }
    Ok(Watched { library, stop })
}

/// Refreshes once, then again whenever something changes under a root.
fn watch(library: &Library, stop: &AtomicBool, on_change: impl Fn()) {
    let refresh = |library: &Library| match library.refresh() {
        Ok(report) => {
            for problem in &report.problems {
                tracing::debug!(path = %problem.path.display(), "unreadable session file: {}", problem.message);
            }
            report.units_read > 0 || report.units_removed > 0
        }
        Err(err) => {
            tracing::warn!("session index refresh failed: {err}");
            false
        }
    };
    if refresh(library) {
        on_change();
    }
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let mut watcher = match notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if event.is_ok_and(|e| !e.kind.is_access()) {
            let _ = tx.send(());
        }
    }) {
        Ok(w) => Some(w),
        Err(err) => {
            tracing::warn!("cannot watch session folders ({err}); polling instead");
            None
        }
    };
    let mut watched: Vec<PathBuf> = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        if let Some(w) = watcher.as_mut() {
            for (_, root) in &library.roots().0 {
                // A root may be a file (Aider's history in the home folder), watched alone.
                let mode = if root.is_dir() { RecursiveMode::Recursive } else { RecursiveMode::NonRecursive };
                if !watched.contains(root) && root.exists() && w.watch(root, mode).is_ok() {
                    watched.push(root.clone());
                }
            }
        }
        let changed = match rx.recv_timeout(ROOT_POLL) {
            Ok(()) => {
                // Let a burst of writes settle, then drain it.
                std::thread::sleep(SETTLE);
                while rx.try_recv().is_ok() {}
                true
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                // A root that just appeared, or no watcher at all: look again.
                watcher.is_none() || library.roots().0.iter().any(|(_, r)| !watched.contains(r) && r.exists())
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return,
        };
        if changed && !stop.load(Ordering::Relaxed) && refresh(library) {
            on_change();
        }
    }
}
