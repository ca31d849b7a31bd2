//! The thread that builds the message search index (a file of its own, see
//! `index/search.rs`) while refreshes write sessions and messages: each commit of a
//! refresh wakes it, so a first index uses both cores and search is ready soon after.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::index::{Index, IndexError};

#[derive(Default)]
struct State {
    /// Wake-ups asked for, and the last one served (caught up as of that request).
    requested: u64,
    served: u64,
    stop: bool,
    last_error: Option<String>,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A running search indexer; stopped (between batches) when dropped.
pub(crate) struct SearchWorker {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl SearchWorker {
    /// Starts indexing with `index` (a connection of its own), beginning with whatever a
    /// previous run left unindexed.
    pub(crate) fn start(index: Index) -> std::io::Result<SearchWorker> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State { requested: 1, ..State::default() }),
            changed: Condvar::new(),
        });
        let thread = std::thread::Builder::new()
            .name("session-search-index".into())
            .spawn({
                let shared = Arc::clone(&shared);
                move || run(&index, &shared)
            })?;
        Ok(SearchWorker { shared, thread: Some(thread) })
    }

    /// What a refresh calls after each commit.
    pub(crate) fn waker(&self) -> Box<dyn Fn() + Send> {
        let shared = Arc::clone(&self.shared);
        Box::new(move || {
            shared.lock().requested += 1;
            shared.changed.notify_all();
        })
    }

    /// Waits until the search index holds everything committed before this call.
    pub(crate) fn wait_idle(&self) -> Result<(), IndexError> {
        let mut state = self.shared.lock();
        let target = state.requested;
        while state.served < target {
            if self.thread.as_ref().is_none_or(|t| t.is_finished()) {
                break; // nothing left to wait for (a panic would have ended it)
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, Duration::from_millis(200))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        match state.last_error.clone() {
            Some(message) => Err(IndexError::Search(message)),
            None => Ok(()),
        }
    }
}

fn run(index: &Index, shared: &Shared) {
    loop {
        let target = {
            let mut state = shared.lock();
            while !state.stop && state.served >= state.requested {
                state = shared.changed.wait(state).unwrap_or_else(|p| p.into_inner());
            }
            if state.stop {
                return;
            }
            state.requested
        };
        let result = index.index_for_search(&|| shared.lock().stop).and_then(|indexed| {
            // Idle after indexing: a good moment to fold the logs into the files (see
            // `checkpoint`). Not after a wake-up that found nothing new (a transcript read).
            if indexed && shared.lock().requested == target {
                index.checkpoint()?;
            }
            Ok(())
        });
        let mut state = shared.lock();
        state.served = target;
        // A failure leaves search scanning the stored texts (slower, never wrong); the
        // next commit tries again.
        state.last_error = result.err().map(|e| e.to_string());
        shared.changed.notify_all();
    }
}

impl Drop for SearchWorker {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.changed.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
