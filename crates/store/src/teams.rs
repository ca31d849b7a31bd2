//! What a backend stores for team banks (`docs/teams.md`) besides memories: each org's
//! members and their roles, its policy, and its audit log. A trait of its own beside
//! [`crate::MemoryStore`] (which requires it), so the memory trait stays about memories.
//!
//! An org keeps at least one owner: every change that would leave it none (demoting or
//! removing the last owner) is refused by the store, in the same transaction that would
//! have made it, so two admins acting at once cannot both succeed.

use async_trait::async_trait;
use memory_bank_contract::teams::{AuditAction, AuditEntry, NewAuditEntry, OrgMember, OrgPolicy, Role};
use memory_bank_contract::wire::Scope;
use memory_bank_contract::wire::Org;
use memory_bank_contract::Timestamp;

use crate::StoreError;

/// Most audit lines one page returns.
pub const MAX_AUDIT_PAGE: u32 = 200;

/// The audit line a new team memory writes with itself, in its insert's transaction
/// (every store's insert calls this, so no path can save to a team bank unlogged):
/// `saved` by its confirmer, with its id and length, never its words. `None` for a
/// personal memory, which no org's log records.
pub fn saved_entry(memory: &crate::NewMemory) -> Option<NewAuditEntry> {
    (memory.scope == Scope::Org).then(|| NewAuditEntry {
        org_id: memory.org_id.clone(),
        at: memory.created_at,
        actor_id: memory.confirmed_by.clone().or_else(|| memory.saved_by.clone()).unwrap_or_default(),
        action: AuditAction::Saved,
        memory_id: Some(memory.id.clone()),
        proposal_id: None,
        content_chars: Some(chars(&memory.content)),
    })
}

/// The audit line of a change to a team bank, by its actor; `None` for a personal bank,
/// which no org's log records. Every store writes it in the change's own transaction.
pub fn change_entry(
    by: crate::Change<'_>,
    action: AuditAction,
    at: Timestamp,
    memory_id: Option<&str>,
    proposal_id: Option<&str>,
    content_chars: Option<u32>,
) -> Option<NewAuditEntry> {
    let crate::BankKey::Team(org_id) = by.bank else { return None };
    Some(NewAuditEntry {
        org_id: org_id.to_owned(),
        at,
        actor_id: by.actor.to_owned(),
        action,
        memory_id: memory_id.map(str::to_owned),
        proposal_id: proposal_id.map(str::to_owned),
        content_chars,
    })
}

/// The `proposed` line of a proposal to a team bank (`None` for a personal one): its
/// proposer, the proposal, the memory an edit or delete names, the proposed sentence's
/// length.
pub fn proposed_entry(by: crate::Change<'_>, proposal: &memory_bank_contract::wire::Proposal) -> Option<NewAuditEntry> {
    let chars = chars(&proposal.content);
    change_entry(by, AuditAction::Proposed, proposal.created_at, proposal.memory_id.as_deref(), Some(&proposal.id), Some(chars))
}

/// A sentence's length in characters, as the audit log records it.
pub fn chars(text: &str) -> u32 {
    u32::try_from(text.chars().count()).unwrap_or(u32::MAX)
}

/// The refusal for a change that would leave an org without an owner, naming the org
/// as people know it (its name, not its id; `None` when it has no row any more).
pub fn last_owner(org_name: Option<&str>) -> StoreError {
    let org = org_name.map(str::trim).filter(|name| !name.is_empty()).unwrap_or("The org");
    StoreError::Conflict(format!("{org} would have no owner left; make another member its owner first"))
}

/// Members, roles, policy and audit log of orgs.
#[async_trait]
pub trait TeamStore: Send + Sync {
    /// The org, when it exists.
    async fn org(&self, org_id: &str) -> Result<Option<Org>, StoreError>;

    /// The user's role in the org; `None` when they are not a member (or either does not exist).
    async fn member_role(&self, user_id: &str, org_id: &str) -> Result<Option<Role>, StoreError>;

    /// Gives a member another role. `NotFound` when they are not a member; `Conflict`
    /// ([`last_owner`]) when it would leave the org without an owner.
    async fn set_member_role(&self, org_id: &str, user_id: &str, role: Role) -> Result<(), StoreError>;

    /// Removes a member from an org (their memories stay: personal ones are theirs, team
    /// ones the org's); false when they were not a member. `Conflict` ([`last_owner`])
    /// when they are its last owner.
    async fn remove_member(&self, org_id: &str, user_id: &str) -> Result<bool, StoreError>;

    /// The org's members, owners first, then admins, then members, each by email.
    async fn org_members(&self, org_id: &str) -> Result<Vec<OrgMember>, StoreError>;

    /// The user's role in the org and the org's policy, in one lookup (every read of a
    /// memory route asks it); `None` when they are not a member.
    async fn member_access(&self, user_id: &str, org_id: &str) -> Result<Option<(Role, OrgPolicy)>, StoreError>;

    /// The org's policy (the defaults when it never set one).
    async fn org_policy(&self, org_id: &str) -> Result<OrgPolicy, StoreError>;

    /// Replaces the org's policy. `NotFound` when there is no such org.
    async fn set_org_policy(&self, org_id: &str, policy: &OrgPolicy, now: Timestamp) -> Result<(), StoreError>;

    /// The org's audit log, newest first: up to `limit` lines before `before` (a `seq`;
    /// `None`: from the newest).
    async fn org_audit(&self, org_id: &str, before: Option<i64>, limit: u32) -> Result<Vec<AuditEntry>, StoreError>;
}
