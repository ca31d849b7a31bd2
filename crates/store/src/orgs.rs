//! The operator's side of team banks (`memory-bank admin`): members' roles, an org's
//! policy and its audit log, straight through to the store. What a member may do to
//! another through the API is decided by [`Role`]'s methods at the door that asks.

use memory_bank_contract::teams::{AuditEntry, OrgMember, OrgPolicy, Role};
use memory_bank_contract::wire::Org;

use crate::{Bank, StoreError};

impl Bank {
    /// Adds a user to an org with a role (admin); one already a member is given the role.
    pub async fn add_member_as(&self, org_id: &str, user_id: &str, role: Role) -> Result<(), StoreError> {
        self.store().add_member(org_id, user_id, Some(role), self.now()).await?;
        self.store().set_member_role(org_id, user_id, role).await
    }

    /// The org, when it exists.
    pub async fn org(&self, org_id: &str) -> Result<Option<Org>, StoreError> {
        self.store().org(org_id).await
    }

    /// The user's role in the org, `None` when they are not a member.
    pub async fn member_role(&self, user_id: &str, org_id: &str) -> Result<Option<Role>, StoreError> {
        self.store().member_role(user_id, org_id).await
    }

    /// Gives a member another role (admin). An org keeps one owner at least.
    pub async fn set_member_role(&self, org_id: &str, user_id: &str, role: Role) -> Result<(), StoreError> {
        self.store().set_member_role(org_id, user_id, role).await
    }

    /// Removes a member from an org (admin): they stop seeing its team bank at once; their
    /// personal memories stay theirs and the team memories they saved stay the org's.
    pub async fn remove_member(&self, org_id: &str, user_id: &str) -> Result<bool, StoreError> {
        self.store().remove_member(org_id, user_id).await
    }

    /// The org's members, owners first.
    pub async fn org_members(&self, org_id: &str) -> Result<Vec<OrgMember>, StoreError> {
        self.store().org_members(org_id).await
    }

    /// The org's policy.
    pub async fn org_policy(&self, org_id: &str) -> Result<OrgPolicy, StoreError> {
        self.store().org_policy(org_id).await
    }

    /// Replaces the org's policy (admin).
    pub async fn set_org_policy(&self, org_id: &str, policy: &OrgPolicy) -> Result<(), StoreError> {
        self.store().set_org_policy(org_id, policy, self.now()).await
    }

    /// A page of the org's audit log, newest first.
    pub async fn org_audit(&self, org_id: &str, before: Option<i64>, limit: u32) -> Result<Vec<AuditEntry>, StoreError> {
        self.store().org_audit(org_id, before, limit).await
    }
}
