//! Running work again that the server rolled back for a conflict
//! ([`StoreError::Contended`]): the victim of an InnoDB deadlock, or on a Galera cluster
//! a transaction that lost certification to a write committed through another node
//! (two saves to one bank through two nodes can change the same row of its count,
//! see `counts`). The work is a whole transaction, or steps that look before they
//! change anything, so running it again is safe; the one that won is committed.

use std::future::Future;
use std::time::Duration;

use memory_bank_store::StoreError;

/// How often, and how far apart, work is run before a conflict is reported.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Patience {
    attempts: u32,
    pause: Duration,
    what: &'static str,
}

/// `db migrate`: on a Galera cluster two nodes' migrations run side by side (GET_LOCK
/// is local to a node), and a schema change replicated from one aborts a statement of
/// the other in flight.
pub(crate) const MIGRATION: Patience = Patience { attempts: 5, pause: Duration::from_millis(200), what: "migration" };

/// A write transaction: at once, as the conflicting one has committed by the time
/// this one hears of it.
pub(crate) const WRITE: Patience = Patience { attempts: 4, pause: Duration::from_millis(2), what: "write" };

/// Runs `work` until it ends other than [`StoreError::Contended`], at most
/// `patience.attempts` times, pausing a little longer before each attempt.
pub(crate) async fn again_while_contended<T, Fut>(patience: Patience, mut work: impl FnMut() -> Fut) -> Result<T, StoreError>
where
    Fut: Future<Output = Result<T, StoreError>>,
{
    let mut attempt = 1;
    loop {
        match work().await {
            Err(StoreError::Contended(why)) if attempt < patience.attempts => {
                tracing::info!(attempt, %why, what = patience.what, "rolled back for a conflict; running it again");
                tokio::time::sleep(patience.pause * attempt).await;
                attempt += 1;
            }
            outcome => return outcome,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    #[tokio::test]
    async fn work_rolled_back_for_a_conflict_runs_again_and_other_failures_do_not() {
        for patience in [MIGRATION, WRITE] {
            let patience = Patience { pause: Duration::from_millis(1), ..patience };
            let runs = Cell::new(0);
            let outcome = again_while_contended(patience, || {
                runs.set(runs.get() + 1);
                let run = runs.get();
                async move { if run < 3 { Err(StoreError::Contended("deadlock".into())) } else { Ok(run) } }
            })
            .await;
            assert_eq!((outcome.unwrap(), runs.get()), (3, 3));

            runs.set(0);
            let outcome: Result<(), _> = again_while_contended(patience, || {
                runs.set(runs.get() + 1);
                async { Err(StoreError::Migration("bad column".into())) }
            })
            .await;
            assert!(matches!(outcome, Err(StoreError::Migration(_))));
            assert_eq!(runs.get(), 1, "a failure that is not a conflict is reported at once");

            runs.set(0);
            let outcome: Result<(), _> = again_while_contended(patience, || {
                runs.set(runs.get() + 1);
                async { Err(StoreError::Contended("deadlock".into())) }
            })
            .await;
            assert!(matches!(outcome, Err(StoreError::Contended(_))));
            assert_eq!(runs.get(), patience.attempts, "a conflict that does not clear is reported in the end");
        }
    }
}
