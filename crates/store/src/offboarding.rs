//! Removing a user or an org and everything recorded with them (`memory-bank admin
//! user delete`, `admin org delete`): first what lets new rows arrive (the user's
//! tokens, the org's memberships), then the memories in batches of one transaction
//! each (a memory always goes with its contexts and revisions: never an orphan), then
//! the rest. Interrupted at any point, running it again finishes the job.

use memory_bank_contract::teams::Role;

use crate::{Bank, Offboard, StoreError};

/// Memories deleted per transaction.
pub const OFFBOARD_BATCH: u32 = 500;

/// What offboarding removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OffboardReport {
    /// Memories deleted (with their contexts and revisions).
    pub memories: u64,
    /// Orgs the removed user was the last owner of, now without one: the operator gives
    /// each a new owner (`admin member add ORG USER --role owner`). Their team banks, and
    /// the team memories the user saved, stay.
    pub orgs_without_owner: Vec<String>,
}

impl Bank {
    /// Removes `target` and everything recorded with it; `NotFound` when there is no
    /// such user or org (nothing left to do).
    pub async fn offboard(&self, target: Offboard<'_>, batch: u32) -> Result<OffboardReport, StoreError> {
        let orgs_without_owner = match target {
            Offboard::User(user_id) => self.orgs_only_owned_by(user_id).await?,
            Offboard::Org(_) => Vec::new(),
        };
        if !self.store().offboard_start(target).await? {
            return Err(StoreError::NotFound(match target {
                Offboard::User(id) => format!("user {id}"),
                Offboard::Org(id) => format!("org {id}"),
            }));
        }
        let mut report = OffboardReport { orgs_without_owner, ..OffboardReport::default() };
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

impl Bank {
    /// The orgs `user_id` is the only owner of.
    async fn orgs_only_owned_by(&self, user_id: &str) -> Result<Vec<String>, StoreError> {
        let mut only = Vec::new();
        for org in self.user_orgs(user_id).await? {
            let members = self.org_members(&org.id).await?;
            let owners: Vec<&str> = members.iter().filter(|m| m.role == Role::Owner).map(|m| m.user_id.as_str()).collect();
            if owners == [user_id] {
                only.push(org.id);
            }
        }
        Ok(only)
    }
}
