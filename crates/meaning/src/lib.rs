//! The bank's sentence-embedding model on this machine ([`LocalModel`]), as
//! `memory_bank_store::Embed`: what the desktop app, `memory-bank serve` and
//! `memory-bank mcp` give their bank so it searches by meaning.
//!
//! # Why
//!
//! The model takes ≈ 100 MiB once loaded, and most of the time nobody is searching.
//! So it is loaded when first needed (≈ 150 ms, the first search or the first save
//! after a pause pays it) and let go after [`IDLE`] without use, and a desktop app at
//! rest holds none of it. A model that cannot load (files missing or damaged) is
//! reported in words and tried again a minute later, so fetching it does not need a
//! restart; meanwhile the bank searches by words.

// One call into the C allocator (heap.rs) is allowed by name; nothing else may be unsafe.
#![deny(unsafe_code)]

mod heap;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use memory_bank_embed::{EmbedError, Embedder, DIMENSIONS};

/// The model is let go after this long without use.
pub const IDLE: Duration = Duration::from_secs(120);

/// After a failed load, the next try waits this long (each call meanwhile gets the
/// same reason at once).
const RETRY_AFTER: Duration = Duration::from_secs(60);

/// The name stored with every vector: the model and how its text is made, so a
/// change to either makes every vector again.
pub const MODEL_ID: &str = "all-minilm-l6-v2/1";

/// all-MiniLM-L6-v2 from the folder [`memory_bank_embed::default_model_dir`] finds (or
/// one given), loaded on demand.
pub struct LocalModel {
    dir: Option<PathBuf>,
    state: Arc<Mutex<State>>,
    idle: Duration,
}

enum State {
    Unloaded,
    Loaded { model: Arc<Embedder>, from: PathBuf, used: Instant },
    Failed { reason: String, at: Instant },
}

impl LocalModel {
    /// The model wherever it is installed or fetched to (see
    /// `memory_bank_embed::model_dir_candidates`). Nothing is read until it is needed.
    pub fn installed() -> Self {
        Self::with(None, IDLE)
    }

    /// The model in `dir`, let go after `idle` without use.
    pub fn with(dir: Option<PathBuf>, idle: Duration) -> Self {
        LocalModel { dir, state: Arc::new(Mutex::new(State::Unloaded)), idle }
    }

    /// Whether the model is in memory now.
    pub fn is_loaded(&self) -> bool {
        matches!(*lock(&self.state), State::Loaded { .. })
    }

    /// The loaded model, loading it if need be (blocking: call off the async threads).
    fn get(&self) -> Result<(Arc<Embedder>, PathBuf), String> {
        let mut state = lock(&self.state);
        match &mut *state {
            State::Loaded { model, from, used } => {
                *used = Instant::now();
                return Ok((model.clone(), from.clone()));
            }
            State::Failed { reason, at } if at.elapsed() < RETRY_AFTER => return Err(reason.clone()),
            _ => {}
        }
        let loaded = match self.dir.clone().or_else(memory_bank_embed::default_model_dir) {
            None => Err(EmbedError::NotFound { searched: memory_bank_embed::model_dir_candidates() }.to_string()),
            Some(dir) => Embedder::load(&dir).map(|model| (model, dir)).map_err(|e| e.to_string()),
        };
        match loaded {
            Ok((model, from)) => {
                let model = Arc::new(model);
                tracing::info!(from = %from.display(), "meaning.model_loaded");
                *state = State::Loaded { model: model.clone(), from: from.clone(), used: Instant::now() };
                drop(state);
                release_when_idle(Arc::downgrade(&self.state), self.idle);
                Ok((model, from))
            }
            Err(reason) => {
                tracing::warn!(%reason, "meaning.model_unavailable");
                *state = State::Failed { reason: reason.clone(), at: Instant::now() };
                Err(reason)
            }
        }
    }
}

fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// Watches the model from a thread of its own and drops it once unused for `idle`;
/// the thread ends with it (or with the [`LocalModel`]).
fn release_when_idle(state: Weak<Mutex<State>>, idle: Duration) {
    let tick = (idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(15));
    let spawned = std::thread::Builder::new().name("meaning-idle".into()).spawn(move || loop {
        std::thread::sleep(tick);
        let Some(state) = state.upgrade() else { return };
        let mut state = lock(&state);
        match &*state {
            State::Loaded { used, .. } if used.elapsed() >= idle => {
                *state = State::Unloaded;
                drop(state);
                heap::return_freed_memory();
                tracing::info!(idle_s = idle.as_secs(), "meaning.model_released");
                return;
            }
            State::Loaded { .. } => {}
            _ => return,
        }
    });
    if let Err(err) = spawned {
        tracing::warn!(%err, "could not start the thread that lets the model go when idle; it stays loaded");
    }
}

#[async_trait]
impl memory_bank_store::Embed for LocalModel {
    fn model(&self) -> &str {
        MODEL_ID
    }

    fn dimensions(&self) -> usize {
        DIMENSIONS
    }

    async fn embed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, String> {
        let this = self.handle();
        tokio::task::spawn_blocking(move || {
            let (model, _) = this.get()?;
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            model.embed(&texts).map_err(|e| e.to_string())
        })
        .await
        .map_err(|e| format!("the model stopped: {e}"))?
    }

    fn problem(&self) -> Option<String> {
        match &*lock(&self.state) {
            State::Failed { reason, .. } => Some(reason.clone()),
            _ => None,
        }
    }

    async fn check(&self) -> Result<String, String> {
        let this = self.handle();
        tokio::task::spawn_blocking(move || this.get().map(|(_, from)| from.display().to_string()))
            .await
            .map_err(|e| format!("the model stopped: {e}"))?
    }
}

impl LocalModel {
    /// A second handle on the same model, for a blocking thread.
    fn handle(&self) -> LocalModel {
        LocalModel { dir: self.dir.clone(), state: self.state.clone(), idle: self.idle }
    }
}

/// Call first thing in `main`, before any thread starts: tells the tensor library how
/// many threads to use, which it otherwise works out again on every matrix product
/// (measured: a sentence takes ≈ 14 ms without it, ≈ 10 ms with it). Keeps a value the
/// person set.
pub fn prepare_process() {
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        // Before any other thread exists, so nothing reads the environment meanwhile.
        std::env::set_var("RAYON_NUM_THREADS", threads.to_string());
    }
}

/// The environment variable that turns search by meaning off (`1`/`true`): the bank
/// then makes no vectors and never loads the model. `--words-only` sets it.
pub const WORDS_ONLY_ENV: &str = "MEMORY_BANK_WORDS_ONLY";

/// Whether [`WORDS_ONLY_ENV`] asks for search by words only.
pub fn words_only_from_env() -> bool {
    std::env::var(WORDS_ONLY_ENV).is_ok_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on"))
}

/// The installed model, one per process: every bank this process opens shares it, so
/// it is in memory at most once.
pub fn installed_model() -> Arc<dyn memory_bank_store::Embed> {
    static MODEL: std::sync::OnceLock<Arc<LocalModel>> = std::sync::OnceLock::new();
    MODEL.get_or_init(|| Arc::new(LocalModel::installed())).clone()
}

/// `bank` searching by meaning too with the installed model, unless `words_only`.
pub fn attach(bank: memory_bank_store::Bank, words_only: bool) -> memory_bank_store::Bank {
    if words_only {
        bank
    } else {
        bank.with_meaning(memory_bank_store::Meaning::new(installed_model()))
    }
}
