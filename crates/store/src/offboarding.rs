//! Removing a user or an org and everything recorded with them (`memory-bank admin
//! user delete`, `admin org delete`): first what lets new rows arrive (the user's
//! tokens, the org's memberships), then the memories in batches of one transaction
//! each (a memory always goes with its contexts and revisions: never an orphan), then
//! the rest. Interrupted at any point, running it again finishes the job.

use crate::{Bank, Offboard, StoreError};

/// Memories deleted per transaction.
pub const OFFBOARD_BATCH: u32 = 500;

/// What offboarding removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OffboardReport {
    /// Memories deleted (with their contexts and revisions).
    pub memories: u64,
}

impl Bank {
    /// Removes `target` and everything recorded with it; `NotFound` when there is no
    /// such user or org (nothing left to do).
    pub async fn offboard(&self, target: Offboard<'_>, batch: u32) -> Result<OffboardReport, StoreError> {
        if !self.store().offboard_start(target).await? {
            return Err(StoreError::NotFound(match target {
                Offboard::User(id) => format!("user {id}"),
                Offboard::Org(id) => format!("org {id}"),
            }));
        }
        let mut report = OffboardReport::default();
        // A save that was already in flight may land after a batch; the finish step
        // refuses while any memory is left, so loop until it succeeds.
        for _ in 0..10 {
            loop {
                let deleted = self.store().offboard_memories(target, batch.max(1)).await?;
                report.memories += deleted;
                tracing::info!(?target, deleted, total = report.memories, "offboard.batch");
                if deleted == 0 {
                    break;
                }
            }
            match self.store().offboard_finish(target).await {
                Ok(()) => {
                    tracing::info!(?target, memories = report.memories, "offboard.done");
                    return Ok(report);
                }
                Err(StoreError::Conflict(_)) => continue,
                Err(other) => return Err(other),
            }
        }
        Err(StoreError::Conflict("memories keep arriving; stop the writers and run it again".into()))
    }
}
