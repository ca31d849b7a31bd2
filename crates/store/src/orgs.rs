//! Team banks' members, roles, policy and audit log: the operator's side (`memory-bank
//! admin`, straight through to the store), and the members' side (the owners' Settings
//! page, over the API), where what one member may do to another is decided here, by
//! [`Role`]'s methods, once for every door.

use memory_bank_contract::teams::{AuditEntry, OrgMember, OrgMembersResponse, OrgPolicy, Role, TeamRefusal};
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

    /// The org's members as `actor` may see them (an admin or owner), with their own role.
    /// `NotFound` when the actor is not a member; `TeamRefused(NeedsAdmin)` for a member.
    pub async fn members_for(&self, actor: &str, org_id: &str) -> Result<OrgMembersResponse, StoreError> {
        let your_role = self.role_at_least(actor, org_id, Role::Admin).await?;
        Ok(OrgMembersResponse { members: self.org_members(org_id).await?, your_role })
    }

    /// `actor` gives `member` the role `role`: owners change any role, admins move people
    /// between member and admin only (`TeamRefused`); false when `member` is not a member.
    /// The org keeps one owner at least (`Conflict`, checked in the store's transaction).
    pub async fn change_role_by(&self, actor: &str, org_id: &str, member: &str, role: Role) -> Result<bool, StoreError> {
        let mine = self.role_at_least(actor, org_id, Role::Admin).await?;
        let Some(theirs) = self.member_role(member, org_id).await? else { return Ok(false) };
        if !mine.may_change_role(theirs, role) {
            return Err(StoreError::TeamRefused(TeamRefusal::NeedsOwner));
        }
        self.set_member_role(org_id, member, role).await?;
        tracing::info!(org_id, actor, member, role = role.as_str(), "org.role");
        Ok(true)
    }

    /// `actor` removes `member` from the org: owners remove anyone, admins members and
    /// admins (`TeamRefused` otherwise); anyone may leave. False when `member` is not a
    /// member. The org keeps one owner at least (`Conflict`).
    pub async fn remove_member_by(&self, actor: &str, org_id: &str, member: &str) -> Result<bool, StoreError> {
        let mine = match self.member_role(actor, org_id).await? {
            Some(role) => role,
            None => return Err(StoreError::NotFound(format!("org {org_id}"))),
        };
        let Some(theirs) = self.member_role(member, org_id).await? else { return Ok(false) };
        if actor != member && !mine.may_change_role(theirs, Role::Member) {
            return Err(StoreError::TeamRefused(if mine.may_confirm_team() { TeamRefusal::NeedsOwner } else { TeamRefusal::NeedsAdmin }));
        }
        let removed = self.remove_member(org_id, member).await?;
        tracing::info!(org_id, actor, member, removed, "org.remove_member");
        Ok(removed)
    }

    /// The org's policy, for any member (so every door can say why something was refused).
    pub async fn policy_for(&self, actor: &str, org_id: &str) -> Result<OrgPolicy, StoreError> {
        self.role_at_least(actor, org_id, Role::Member).await?;
        self.org_policy(org_id).await
    }

    /// `actor`, an owner (`TeamRefused(NeedsOwner)` otherwise), sets the org's policy.
    pub async fn set_policy_by(&self, actor: &str, org_id: &str, policy: &OrgPolicy) -> Result<OrgPolicy, StoreError> {
        let role = self.role_at_least(actor, org_id, Role::Member).await?;
        if !role.may_change_policy() {
            return Err(StoreError::TeamRefused(TeamRefusal::NeedsOwner));
        }
        self.set_org_policy(org_id, policy).await?;
        tracing::info!(
            org_id, actor, memory = policy.memory_enabled, agents_may_propose = policy.agents_may_propose,
            max_memories = policy.max_memories, "org.policy"
        );
        self.org_policy(org_id).await
    }

    /// The actor's role, when it is `least` or more: `NotFound` when they are not a member
    /// (the 404 of an unknown org), `TeamRefused(NeedsAdmin)` below `least`.
    async fn role_at_least(&self, actor: &str, org_id: &str, least: Role) -> Result<Role, StoreError> {
        let role = self.member_role(actor, org_id).await?.ok_or_else(|| StoreError::NotFound(format!("org {org_id}")))?;
        if role < least {
            return Err(StoreError::TeamRefused(TeamRefusal::NeedsAdmin));
        }
        Ok(role)
    }
}
