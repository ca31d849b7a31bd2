//! What the doors (HTTP, `/mcp`, stdio MCP, the app) call to read, decide and change
//! proposals and memories when the caller has an org active: the person's own Inbox and
//! bank first, then the org's (`docs/teams.md`).
//!
//! Why here: who may see, accept, reject, edit or delete what is decided in these few
//! functions, once, so a confirmation always belongs to someone entitled to give it:
//! a personal proposal to its owner, a team proposal to the org's admins and owners,
//! never to a member (`TeamRefused(NeedsAdmin)`) nor, on any door, to an agent token
//! (the doors refuse those before calling).

use memory_bank_contract::edit::ValidEdit;
use memory_bank_contract::teams::{Role, TeamRefusal};
use memory_bank_contract::validate::{Cursor, ValidProposal, ValidSave};
use memory_bank_contract::wire::{AcceptProposalRequest, Memory, Proposal, ProposalListResponse, ProposalStatus, Scope};

use crate::store::{BankKey, Change};
use crate::{Accepted, Bank, ProposalError, StoreError, TokenKind};

/// What a save came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Saved {
    /// The memory, saved.
    Memory(Box<Memory>),
    /// A member's save to the team bank: a proposal in the org Inbox, for its admins and
    /// owners to accept.
    Proposed(Box<Proposal>),
}

/// Where a proposal or a memory was found for a caller.
enum Found {
    /// In their own Inbox or bank.
    Own,
    /// In the active org's, with the caller's role there.
    Team(Role),
}

impl Bank {
    /// Saves what a person confirmed: to their own bank, or, with `scope: org`, to the
    /// active org's team bank when they are its admin or owner. A member's team save
    /// becomes a proposal in the org Inbox instead ([`Saved::Proposed`]).
    pub async fn save_or_propose(&self, user_id: &str, org_id: &str, input: ValidSave) -> Result<Saved, ProposalError> {
        if input.scope == Scope::Org {
            let (role, _) = self.team_access(user_id, org_id).await?;
            if !role.may_confirm_team() {
                let proposal = self.propose_as(user_id, org_id, ValidProposal::save(input, None), TokenKind::Full).await?;
                return Ok(Saved::Proposed(Box::new(proposal)));
            }
        }
        Ok(Saved::Memory(Box::new(self.save(user_id, org_id, input).await?)))
    }

    /// The proposal `id` as `user_id` may see it with `org_id` active: from their own
    /// Inbox, or from the org Inbox when they are its admin or owner or proposed it
    /// themselves. Anything else is `NotFound`, whatever the reason.
    pub async fn proposal_for(&self, user_id: &str, org_id: &str, id: &str) -> Result<Proposal, ProposalError> {
        match self.find_proposal(user_id, org_id, id).await? {
            (Found::Own, proposal) => Ok(proposal),
            (Found::Team(role), proposal) if role.may_confirm_team() || proposal.proposer.as_deref() == Some(user_id) => Ok(proposal),
            (Found::Team(_), _) => Err(ProposalError::NotFound),
        }
    }

    /// The org Inbox as `user_id` may see it, newest first, paged: an admin or owner, every
    /// proposal to the org's team bank (theirs to decide); a member, only those they
    /// proposed (their agents' included: a team proposal's proposer is the person), to
    /// follow. The answer says which (`your_role`).
    pub async fn list_team_proposals(
        &self,
        user_id: &str,
        org_id: &str,
        status: Option<ProposalStatus>,
        limit: Option<u32>,
        cursor: Option<&Cursor>,
    ) -> Result<ProposalListResponse, StoreError> {
        let (role, _) = self.team_access(user_id, org_id).await?;
        let proposer = (!role.may_confirm_team()).then_some(user_id);
        let listed = self.list_inbox(BankKey::Team(org_id), proposer, status, limit, cursor).await?;
        Ok(ProposalListResponse { your_role: Some(role), ..listed })
    }

    /// The person's own Inbox, once the org lets memory be used.
    pub async fn list_proposals_for(
        &self,
        user_id: &str,
        org_id: &str,
        status: Option<ProposalStatus>,
        limit: Option<u32>,
        cursor: Option<&Cursor>,
    ) -> Result<ProposalListResponse, StoreError> {
        self.team_access(user_id, org_id).await?;
        self.list_inbox(BankKey::Personal(user_id), None, status, limit, cursor).await
    }

    /// Accepts the proposal `id`: one in the person's own Inbox, or, for an admin or
    /// owner of the active org, one in the org Inbox (the team memory then records the
    /// proposer as its author and the admin as its confirmer). A member is refused
    /// (`TeamRefused(NeedsAdmin)`) even for what they proposed.
    pub async fn accept_proposal_for(
        &self,
        user_id: &str,
        org_id: &str,
        id: &str,
        edits: AcceptProposalRequest,
    ) -> Result<Accepted, ProposalError> {
        let by = self.decider(user_id, org_id, id).await?;
        self.accept_in(by, id, edits).await
    }

    /// Rejects the proposal `id`, on the same terms as [`Bank::accept_proposal_for`].
    pub async fn reject_proposal_for(&self, user_id: &str, org_id: &str, id: &str) -> Result<Proposal, ProposalError> {
        let by = self.decider(user_id, org_id, id).await?;
        self.reject_in(by, id).await
    }

    /// Edits the memory `id`: the person's own, or, for an admin or owner of the active
    /// org, a team memory (in the org's audit log). A member gets
    /// `TeamRefused(NeedsAdmin)` for a team memory: they propose the edit instead.
    /// `None` when neither bank holds it.
    pub async fn edit_for(&self, user_id: &str, org_id: &str, id: &str, edit: ValidEdit) -> Result<Option<Memory>, StoreError> {
        match self.changer(user_id, org_id, id).await? {
            Some(by) => self.edit_in(by, id, edit).await,
            None => Ok(None),
        }
    }

    /// Deletes the memory `id`, on the same terms as [`Bank::edit_for`]; false when
    /// neither bank holds it.
    pub async fn delete_for(&self, user_id: &str, org_id: &str, id: &str) -> Result<bool, StoreError> {
        match self.changer(user_id, org_id, id).await? {
            Some(by) => self.delete_in(by, id).await,
            None => Ok(false),
        }
    }

    /// The proposal `id` from the person's own Inbox, else from the active org's.
    async fn find_proposal(&self, user_id: &str, org_id: &str, id: &str) -> Result<(Found, Proposal), ProposalError> {
        let (role, _) = self.team_access(user_id, org_id).await?;
        match self.proposal_in(BankKey::Personal(user_id), id).await {
            Ok(proposal) => Ok((Found::Own, proposal)),
            Err(ProposalError::NotFound) => Ok((Found::Team(role), self.proposal_in(BankKey::Team(org_id), id).await?)),
            Err(other) => Err(other),
        }
    }

    /// Who decides the proposal `id`, in which Inbox: its owner for a personal one, an
    /// admin or owner for the org's. A member who may see a team proposal (their own) is
    /// refused; one who may not gets `NotFound`.
    async fn decider<'a>(&self, user_id: &'a str, org_id: &'a str, id: &str) -> Result<Change<'a>, ProposalError> {
        match self.find_proposal(user_id, org_id, id).await? {
            (Found::Own, _) => Ok(Change::personal(user_id)),
            (Found::Team(role), _) if role.may_confirm_team() => Ok(Change::team(org_id, user_id)),
            (Found::Team(_), proposal) if proposal.proposer.as_deref() == Some(user_id) => {
                Err(StoreError::TeamRefused(TeamRefusal::NeedsAdmin).into())
            }
            (Found::Team(_), _) => Err(ProposalError::NotFound),
        }
    }

    /// Who changes the memory `id`, in which bank: its owner for a personal memory, an
    /// admin or owner for a team memory (a member: `TeamRefused(NeedsAdmin)`); `None`
    /// when neither bank holds it.
    pub(crate) async fn changer<'a>(&self, user_id: &'a str, org_id: &'a str, id: &str) -> Result<Option<Change<'a>>, StoreError> {
        let (role, _) = self.team_access(user_id, org_id).await?;
        if self.memory(user_id, id).await?.is_some() {
            return Ok(Some(Change::personal(user_id)));
        }
        if self.memory_in(&[BankKey::Team(org_id)], id).await?.is_none() {
            return Ok(None);
        }
        if !role.may_confirm_team() {
            return Err(StoreError::TeamRefused(TeamRefusal::NeedsAdmin));
        }
        Ok(Some(Change::team(org_id, user_id)))
    }
}
