//! The team bank in the app (`docs/teams.md`): the org Inbox beside the person's own,
//! and Settings → Team (members and roles, the org's policy, its audit log).
//!
//! The server decides who may do what; the app only asks. A read the caller's role does
//! not allow (a member asking for the org Inbox, the members or the audit log: 403
//! `org_role_required`) is answered as "not for you" (`None`, or `members: null`), so the
//! UI hides that part instead of showing an error. A refused change keeps its error,
//! whose message is the server's own sentence (see [`DesktopError`]'s `From<ClientError>`).

use memory_bank_client::ClientError;
use memory_bank_contract::teams::{AuditPage, OrgMember, OrgMembersResponse, OrgPolicy, Role};
use memory_bank_contract::wire::{ProposalListResponse, ProposalStatus};
use memory_bank_contract::ErrorCode;
use serde::Serialize;

use crate::inbox::INBOX_LIMIT;
use crate::{Core, DesktopError};

/// Audit lines per page in Settings → Team.
pub const AUDIT_PAGE: u32 = 50;

/// Settings → Team: the caller's role in the org and, for its admins and owners, its
/// members.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TeamMembers {
    /// The caller's role: what the page offers them.
    pub your_role: Role,
    /// Owners first, then admins, then members; null for a member (the server shows
    /// the list to admins and owners only).
    pub members: Option<Vec<OrgMember>>,
}

impl From<OrgMembersResponse> for TeamMembers {
    fn from(answer: OrgMembersResponse) -> Self {
        TeamMembers { your_role: answer.your_role, members: Some(answer.members) }
    }
}

/// A read refused for the caller's role: `None` (the part is not theirs to see).
fn unless_role_refused<T>(answer: Result<T, ClientError>) -> Result<Option<T>, DesktopError> {
    match answer {
        Ok(value) => Ok(Some(value)),
        Err(err) if err.code() == Some(ErrorCode::OrgRoleRequired) => Ok(None),
        Err(err) => Err(err.into()),
    }
}

impl Core {
    /// The org Inbox of `org_id` as the caller may see it, newest first (at most
    /// [`INBOX_LIMIT`]), each with its proposer: for an admin or owner, the pending
    /// proposals to its team bank, theirs to decide; for a member (`yourRole: member`),
    /// the team proposals they made, pending or decided, to follow. `None` when the
    /// server refuses a member the list (one from before members could follow theirs).
    pub async fn list_team_proposals(&self, org_id: &str) -> Result<Option<ProposalListResponse>, DesktopError> {
        let client = self.client().await?;
        let pending = unless_role_refused(client.list_team_proposals(org_id, Some(ProposalStatus::Pending), Some(INBOX_LIMIT), None).await)?;
        match pending {
            // A member follows what became of theirs too: every status, asked once the role is known.
            Some(listed) if listed.your_role == Some(Role::Member) => {
                unless_role_refused(client.list_team_proposals(org_id, None, Some(INBOX_LIMIT), None).await)
            }
            other => Ok(other),
        }
    }

    /// The pending proposals of the org Inbox that are the caller's to decide (the Inbox
    /// watch's count): none for a member, whose own team proposals wait for someone else.
    pub(crate) async fn team_proposals_to_decide(&self, org_id: &str) -> Result<Option<ProposalListResponse>, DesktopError> {
        let client = self.client().await?;
        let pending = unless_role_refused(client.list_team_proposals(org_id, Some(ProposalStatus::Pending), Some(INBOX_LIMIT), None).await)?;
        Ok(pending.filter(|listed| listed.your_role != Some(Role::Member)))
    }

    /// The caller's role in `org_id` and, for its admins and owners, its members. The
    /// members route refuses exactly the org's members, so a refusal says the role.
    pub async fn team_members(&self, org_id: &str) -> Result<TeamMembers, DesktopError> {
        let client = self.client().await?;
        Ok(match unless_role_refused(client.org_members(org_id).await)? {
            Some(answer) => answer.into(),
            None => TeamMembers { your_role: Role::Member, members: None },
        })
    }

    /// Gives a member another role; the members after. Refusals (`org_role_required`,
    /// `org_needs_owner`, `member_not_found`) carry the server's sentence.
    pub async fn change_member_role(&self, org_id: &str, user_id: &str, role: Role) -> Result<TeamMembers, DesktopError> {
        Ok(self.client().await?.change_role(org_id, user_id, role).await?.into())
    }

    /// Removes a member from the org; the members after.
    pub async fn remove_member(&self, org_id: &str, user_id: &str) -> Result<TeamMembers, DesktopError> {
        let client = self.client().await?;
        client.remove_member(org_id, user_id).await?;
        Ok(client.org_members(org_id).await?.into())
    }

    /// The org's policy (every member may read it).
    pub async fn org_policy(&self, org_id: &str) -> Result<OrgPolicy, DesktopError> {
        Ok(self.client().await?.org_policy(org_id).await?)
    }

    /// Replaces the org's policy (owners); the policy now in force.
    pub async fn set_org_policy(&self, org_id: &str, policy: &OrgPolicy) -> Result<OrgPolicy, DesktopError> {
        Ok(self.client().await?.set_org_policy(org_id, policy).await?)
    }

    /// One page of the org's audit log, newest first, older than `before`; `None` for a
    /// member.
    pub async fn org_audit(&self, org_id: &str, before: Option<i64>) -> Result<Option<AuditPage>, DesktopError> {
        let client = self.client().await?;
        unless_role_refused(client.org_audit(org_id, Some(AUDIT_PAGE), before).await)
    }
}
