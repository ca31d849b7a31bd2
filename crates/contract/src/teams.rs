//! Team banks (`docs/teams.md`): roles in an org, the org's policy, and its audit log.
//! Shapes only; who may do what is decided once, in [`Role`]'s methods, so every door
//! asks the same question.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::Timestamp;

/// Which banks a read covers: the reader's own (`mine`), the active org's team bank
/// (`team`), or both (`all`, the default) — `scope` on list and search in the API, the
/// CLI's `--scope`, the MCP tools and the panel's filter.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum BankScope {
    /// The reader's own memories.
    Mine,
    /// The active org's team memories.
    Team,
    /// Both, ranked or listed together.
    #[default]
    All,
}

impl BankScope {
    /// The spelling on the wire and the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            BankScope::Mine => "mine",
            BankScope::Team => "team",
            BankScope::All => "all",
        }
    }

    /// Parses what people type (any case, surrounding spaces).
    pub fn parse(text: &str) -> Option<BankScope> {
        match text.trim().to_ascii_lowercase().as_str() {
            "mine" => Some(BankScope::Mine),
            "team" => Some(BankScope::Team),
            "all" => Some(BankScope::All),
            _ => None,
        }
    }
}

/// Why the server refused a team action: a role the caller lacks, or the org's policy
/// (`docs/teams.md`). Each is a 403 with its own error code on every door.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TeamRefusal {
    /// Saving, editing or deleting team memories directly, and deciding team proposals,
    /// need an admin or owner of the org.
    NeedsAdmin,
    /// The org turned memory off (its kill switch): no memory route answers in it.
    OrgMemoryDisabled,
    /// The org does not let its members' agents propose to the team bank.
    AgentsMayNotPropose,
    /// Changing the org's policy, or making someone an owner or changing an owner's role,
    /// needs an owner.
    NeedsOwner,
}

impl TeamRefusal {
    /// What the person reads, with what to do.
    pub fn describe(self) -> &'static str {
        match self {
            TeamRefusal::NeedsAdmin => "only the org's admins and owners can do this to its team memories; propose it instead, or ask an admin",
            TeamRefusal::OrgMemoryDisabled => "this org has turned memory off; an owner can turn it on again (`memory-bank admin org policy --memory on`)",
            TeamRefusal::AgentsMayNotPropose => "this org does not let agents propose team memories; propose it yourself, or ask an owner to allow it",
            TeamRefusal::NeedsOwner => "only the org's owners can change its policy or an owner's role, or make someone an owner; ask an owner",
        }
    }

    /// The error code every door answers with.
    pub fn code(self) -> crate::ErrorCode {
        match self {
            TeamRefusal::NeedsAdmin | TeamRefusal::NeedsOwner => crate::ErrorCode::OrgRoleRequired,
            TeamRefusal::OrgMemoryDisabled => crate::ErrorCode::OrgMemoryDisabled,
            TeamRefusal::AgentsMayNotPropose => crate::ErrorCode::OrgAgentsMayNotPropose,
        }
    }
}

/// A member's role in an org.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
// The UI's bindings also hold a message's role (user, assistant).
#[cfg_attr(feature = "ts", ts(rename = "OrgRole"))]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Reads the team bank and proposes to it.
    Member,
    /// Also accepts and rejects proposals, saves, edits and deletes team memories
    /// directly, reads the audit log, and makes members admins or members.
    Admin,
    /// Also changes the org's policy and anyone's role. An org keeps at least one.
    Owner,
}

impl Role {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Member => "member",
            Role::Admin => "admin",
            Role::Owner => "owner",
        }
    }

    /// Parses the stored spelling (and what people type: any case, surrounding spaces).
    pub fn parse(text: &str) -> Option<Role> {
        match text.trim().to_ascii_lowercase().as_str() {
            "member" => Some(Role::Member),
            "admin" => Some(Role::Admin),
            "owner" => Some(Role::Owner),
            _ => None,
        }
    }

    /// Accept or reject team proposals, and save, edit or delete team memories directly.
    pub fn may_confirm_team(self) -> bool {
        self >= Role::Admin
    }

    /// Read the org's audit log.
    pub fn may_read_audit(self) -> bool {
        self >= Role::Admin
    }

    /// Change the org's policy.
    pub fn may_change_policy(self) -> bool {
        self == Role::Owner
    }

    /// Give a member `to` in place of `from`: owners change any role; admins move people
    /// between member and admin only.
    pub fn may_change_role(self, from: Role, to: Role) -> bool {
        match self {
            Role::Owner => true,
            Role::Admin => from != Role::Owner && to != Role::Owner,
            Role::Member => false,
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An org's policy, enforced by the server. The defaults are an org that never set one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct OrgPolicy {
    /// Memory on for this org, both banks (off: every memory route answers 403
    /// `org_memory_disabled`).
    pub memory_enabled: bool,
    /// Members' agents may propose to the team bank.
    pub agents_may_propose: bool,
    /// The most memories the team bank may hold; none: no cap beyond the service's own.
    pub max_memories: Option<u64>,
}

impl Default for OrgPolicy {
    fn default() -> Self {
        OrgPolicy { memory_enabled: true, agents_may_propose: true, max_memories: None }
    }
}

/// What happened to a team memory or proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum AuditAction {
    /// A member or an agent proposed a save, edit or delete.
    Proposed,
    /// An admin or owner accepted a proposal.
    Accepted,
    /// An admin or owner rejected a proposal.
    Rejected,
    /// An admin or owner saved a team memory directly.
    Saved,
    /// A team memory was edited.
    Edited,
    /// A team memory was deleted.
    Deleted,
}

impl AuditAction {
    /// Every action, for the stores' CHECK constraints and their tests.
    pub const ALL: [AuditAction; 6] = [
        AuditAction::Proposed,
        AuditAction::Accepted,
        AuditAction::Rejected,
        AuditAction::Saved,
        AuditAction::Edited,
        AuditAction::Deleted,
    ];

    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            AuditAction::Proposed => "proposed",
            AuditAction::Accepted => "accepted",
            AuditAction::Rejected => "rejected",
            AuditAction::Saved => "saved",
            AuditAction::Edited => "edited",
            AuditAction::Deleted => "deleted",
        }
    }

    /// Parses the stored spelling.
    pub fn parse(text: &str) -> Option<AuditAction> {
        AuditAction::ALL.into_iter().find(|a| a.as_str() == text)
    }
}

/// One line of an org's audit log: who did what to which memory or proposal, and when.
/// Ids and a length only: never the memory's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    /// Position in the org's log (increasing; the paging cursor).
    pub seq: i64,
    /// When.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub at: Timestamp,
    /// Who (`usr_…`): the member, or the person whose agent proposed.
    pub actor_id: String,
    /// What.
    pub action: AuditAction,
    /// The team memory, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_id: Option<String>,
    /// The proposal, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal_id: Option<String>,
    /// Characters in the memory's sentence (or the proposed one) at that moment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_chars: Option<u32>,
}

/// One page of an org's audit log (`GET /v1/orgs/{id}/audit`), newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AuditPage {
    /// The lines, newest first.
    pub entries: Vec<AuditEntry>,
    /// Pass as `before` for the next, older page; null on the last.
    pub next_before: Option<i64>,
}

/// An audit line about to be written (the store numbers it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAuditEntry {
    /// The org whose log it goes in.
    pub org_id: String,
    /// When.
    pub at: Timestamp,
    /// Who.
    pub actor_id: String,
    /// What.
    pub action: AuditAction,
    /// The team memory, when there is one.
    pub memory_id: Option<String>,
    /// The proposal, when there is one.
    pub proposal_id: Option<String>,
    /// Characters in the sentence concerned.
    pub content_chars: Option<u32>,
}

/// `GET /v1/orgs/{id}/members`: the org's members, owners first, and the caller's own role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct OrgMembersResponse {
    /// Owners first, then admins, then members, each by email.
    pub members: Vec<OrgMember>,
    /// The caller's role: what the Settings page lets them change.
    pub your_role: Role,
}

/// Body of `PUT /v1/orgs/{id}/members/{userId}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ChangeRoleRequest {
    /// `owner`, `admin` or `member`.
    pub role: Role,
}

/// A member of an org, as its admins see the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct OrgMember {
    /// `usr_…`
    pub user_id: String,
    /// Their email.
    pub email: String,
    /// Their role.
    pub role: Role,
    /// When they joined.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub joined_at: Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_order_what_they_may_do() {
        assert!(!Role::Member.may_confirm_team() && Role::Admin.may_confirm_team() && Role::Owner.may_confirm_team());
        assert!(!Role::Admin.may_change_policy() && Role::Owner.may_change_policy());
        assert!(Role::Admin.may_change_role(Role::Member, Role::Admin));
        assert!(!Role::Admin.may_change_role(Role::Member, Role::Owner), "an admin makes no owner");
        assert!(!Role::Admin.may_change_role(Role::Owner, Role::Member), "nor demotes one");
        assert!(Role::Owner.may_change_role(Role::Owner, Role::Member));
        assert!(!Role::Member.may_change_role(Role::Member, Role::Member));
        for role in [Role::Member, Role::Admin, Role::Owner] {
            assert_eq!(Role::parse(role.as_str()), Some(role));
        }
        assert_eq!(Role::parse(" Admin "), Some(Role::Admin));
        assert_eq!(Role::parse("root"), None);
    }

    #[test]
    fn audit_actions_round_trip() {
        for action in AuditAction::ALL {
            assert_eq!(AuditAction::parse(action.as_str()), Some(action));
            assert_eq!(serde_json::to_value(action).unwrap(), action.as_str());
        }
    }
}
