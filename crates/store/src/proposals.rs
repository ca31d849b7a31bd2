//! Proposals: what agents ask for and people decide. An agent never saves or deletes
//! a memory itself; it proposes, and the proposal waits (owner-scoped like a memory,
//! for [`PROPOSAL_TTL_DAYS`]) until the person accepts (the memory is saved or
//! deleted in the same transaction as the proposal is marked) or rejects it.

use memory_bank_contract::edit::{validate_edit, EditMemoryRequest};
use memory_bank_contract::gate::Refused;
use memory_bank_contract::ids::{self, PROPOSAL_PREFIX};
use memory_bank_contract::limits::{DEFAULT_LIST_LIMIT, MAX_PENDING_PROPOSALS, PROPOSAL_TTL_DAYS};
use memory_bank_contract::validate::{self, Cursor, ValidProposal};
use memory_bank_contract::wire::{
    AcceptProposalRequest, ConfirmedVia, ContextInput, Memory, MemoryVersion, Proposal, ProposalAction, ProposalListResponse,
    ProposalStatus, ProposedContext, SaveMemoryRequest, SimilarMemory,
};
use memory_bank_contract::{FieldError, Timestamp};

use memory_bank_contract::teams::TeamRefusal;
use memory_bank_contract::wire::Scope;

use crate::bank::new_memory;
use crate::store::{BankKey, Change, Decision};
use crate::tokens::TokenKind;
use crate::events::{BankEvent, CreatedVia};
use crate::{terms, Bank, StoreError};

/// Why a proposal call failed.
#[derive(Debug, thiserror::Error)]
pub enum ProposalError {
    /// No such proposal for this user (whatever the reason).
    #[error("proposal not found")]
    NotFound,
    /// It was decided already, or expired.
    #[error("the proposal is {} already", .0.as_str())]
    NotPending(ProposalStatus),
    /// A delete or edit proposal names no memory of this user.
    #[error("memory not found")]
    MemoryNotFound,
    /// The person's edits did not pass the gate (limits, characters, secrets).
    #[error("{}", .0.describe())]
    Refused(Refused),
    /// The edit or delete's memory changed since it was proposed, and the person did not
    /// accept over the version it has now.
    #[error("the memory changed since this was proposed")]
    MemoryChanged {
        /// What the proposal was made against.
        proposed_against: MemoryVersion,
        /// The memory now.
        memory_now: MemoryVersion,
    },
    /// The user already has this many pending proposals.
    #[error("{limit} proposals are waiting already")]
    TooMany {
        /// The cap.
        limit: u32,
    },
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// An accepted proposal and, for a save, the memory saved.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    /// The proposal, now `accepted`.
    pub proposal: Proposal,
    /// The memory saved or edited (saves and edits).
    pub memory: Option<Memory>,
    /// The other memories of its bank worded much like it.
    pub similar: Vec<SimilarMemory>,
}

fn version_of(memory: &Memory) -> MemoryVersion {
    MemoryVersion { content: memory.content.clone(), tags: memory.tags.clone() }
}

/// The status a reader sees at `now`: a pending proposal past its expiry is `expired`.
fn as_seen(mut proposal: Proposal, now: Timestamp) -> Proposal {
    if proposal.status == ProposalStatus::Pending && proposal.expires_at.unix_ms() <= now.unix_ms() {
        proposal.status = ProposalStatus::Expired;
    }
    proposal
}

impl Bank {
    /// Stores what an agent proposes, pending until the person decides (see
    /// [`Bank::propose_as`]; an agent is the proposer here).
    pub async fn propose(&self, user_id: &str, org_id: &str, input: ValidProposal) -> Result<Proposal, ProposalError> {
        self.propose_as(user_id, org_id, input, TokenKind::Agent).await
    }

    /// Stores what `user_id` (a person, or their agent: `kind`) proposes, pending until
    /// someone entitled decides: a proposal to their own bank waits in their Inbox, one to
    /// the active org's team bank (`scope: org`, or an edit or delete of a team memory) in
    /// the org Inbox for its admins and owners. The org's kill switch stops both, and its
    /// `agents_may_propose` an agent's team proposal. A delete or an edit must name a
    /// memory of that bank (else [`ProposalError::MemoryNotFound`]) and records the version
    /// it was made against. At most [`MAX_PENDING_PROPOSALS`] of one proposer wait in
    /// one Inbox at once ([`ProposalError::TooMany`]).
    pub async fn propose_as(&self, user_id: &str, org_id: &str, input: ValidProposal, kind: TokenKind) -> Result<Proposal, ProposalError> {
        let (_, policy) = self.team_access(user_id, org_id).await?;
        let to_team = match (input.scope(), &input) {
            (Some(scope), _) => scope == Scope::Org,
            (None, ValidProposal::Save { .. }) => false,
            // An edit or delete goes to the bank holding its memory: the person's own first.
            (None, ValidProposal::Delete { memory_id, .. } | ValidProposal::Edit { memory_id, .. }) => {
                self.memory(user_id, memory_id).await?.is_none()
                    && self.memory_in(&[BankKey::Team(org_id)], memory_id).await?.is_some()
            }
        };
        if to_team && kind == TokenKind::Agent && !policy.agents_may_propose {
            return Err(StoreError::TeamRefused(TeamRefusal::AgentsMayNotPropose).into());
        }
        let by = if to_team { Change::team(org_id, user_id) } else { Change::personal(user_id) };
        self.propose_in(by, org_id, input).await
    }

    async fn propose_in(&self, by: Change<'_>, org_id: &str, input: ValidProposal) -> Result<Proposal, ProposalError> {
        let now = self.now();
        let base = |action, content, proposed_by| Proposal {
            id: ids::new_id_at(PROPOSAL_PREFIX, now.unix_ms()),
            action,
            status: ProposalStatus::Pending,
            content,
            tags: None,
            contexts: Vec::new(),
            memory_id: None,
            proposed_by,
            org_id: org_id.to_owned(),
            created_at: now,
            expires_at: Timestamp::from_unix_ms(now.unix_ms() + PROPOSAL_TTL_DAYS * 24 * 3600 * 1000),
            decided_at: None,
            similar: Vec::new(),
            proposed_against: None,
            scope: by.bank.scope(),
            proposer: matches!(by.bank, BankKey::Team(_)).then(|| by.actor.to_owned()),
            memory_now: None,
        };
        let proposal = match input {
            ValidProposal::Save { save, proposed_by, .. } => Proposal {
                tags: save.tags,
                contexts: save
                    .contexts
                    .into_iter()
                    .map(|c| ProposedContext { snippet: c.snippet, citation: c.citation, origin: c.origin })
                    .collect(),
                ..base(ProposalAction::Save, save.content, proposed_by)
            },
            ValidProposal::Delete { memory_id, proposed_by, .. } => {
                let memory = self.memory_in(&[by.bank], &memory_id).await?.ok_or(ProposalError::MemoryNotFound)?;
                Proposal {
                    memory_id: Some(memory.id.clone()),
                    tags: memory.tags.clone(),
                    proposed_against: Some(version_of(&memory)),
                    ..base(ProposalAction::Delete, memory.content, proposed_by)
                }
            }
            // The proposal holds the whole new version: the new sentence (or the current
            // one when only tags change) and the new tags (or the current ones).
            ValidProposal::Edit { memory_id, edit, proposed_by, .. } => {
                let memory = self.memory_in(&[by.bank], &memory_id).await?.ok_or(ProposalError::MemoryNotFound)?;
                let tags = match edit.tags {
                    Some(tags) if tags.is_empty() => None,
                    Some(tags) => Some(tags),
                    None => memory.tags.clone(),
                };
                let against = version_of(&memory);
                let content = edit.content.unwrap_or(memory.content);
                Proposal {
                    memory_id: Some(memory.id),
                    tags,
                    proposed_against: Some(against),
                    ..base(ProposalAction::Edit, content, proposed_by)
                }
            }
        };
        if !self.store().insert_proposal(by, &proposal, MAX_PENDING_PROPOSALS).await? {
            tracing::info!(user_id = by.actor, limit = MAX_PENDING_PROPOSALS, "proposal.too_many");
            return Err(ProposalError::TooMany { limit: MAX_PENDING_PROPOSALS });
        }
        tracing::info!(
            user_id = by.actor, proposal_id = %proposal.id, action = proposal.action.as_str(),
            scope = by.bank.scope().as_str(), "proposal.create"
        );
        self.record(BankEvent::ProposalCreated);
        self.as_it_stands(by.bank, proposal).await
    }

    /// A pending proposal as it stands now: a save or edit with the memories of its bank
    /// (the person's own, or the team's) worded like it, an edit or delete with its
    /// memory's words when they changed since.
    async fn as_it_stands(&self, bank: BankKey<'_>, mut proposal: Proposal) -> Result<Proposal, ProposalError> {
        if proposal.status != ProposalStatus::Pending {
            return Ok(proposal);
        }
        if proposal.action != ProposalAction::Delete {
            proposal.similar = self.similar_in(bank, &proposal.content, proposal.memory_id.as_deref()).await?;
        }
        if let (Some(against), Some(id)) = (&proposal.proposed_against, &proposal.memory_id) {
            if let Some(memory) = self.memory_in(&[bank], id).await? {
                let now = version_of(&memory);
                proposal.memory_now = (now != *against).then_some(now);
            }
        }
        Ok(proposal)
    }

    /// The proposal in the user's own Inbox, as it stands now.
    pub async fn proposal(&self, user_id: &str, id: &str) -> Result<Proposal, ProposalError> {
        self.proposal_in(BankKey::Personal(user_id), id).await
    }

    /// The proposal in the Inbox of `bank` (a person's own, or an org's), as it stands now.
    pub(crate) async fn proposal_in(&self, bank: BankKey<'_>, id: &str) -> Result<Proposal, ProposalError> {
        if !ids::is_valid(PROPOSAL_PREFIX, id) {
            return Err(ProposalError::NotFound);
        }
        let found = self.store().proposal(bank, id).await?.ok_or(ProposalError::NotFound)?;
        self.as_it_stands(bank, as_seen(found, self.now())).await
    }

    /// The proposals in the user's own Inbox with `status` (all when `None`), newest
    /// first, paged.
    pub async fn list_proposals(
        &self,
        user_id: &str,
        status: Option<ProposalStatus>,
        limit: Option<u32>,
        cursor: Option<&Cursor>,
    ) -> Result<ProposalListResponse, StoreError> {
        self.list_inbox(BankKey::Personal(user_id), None, status, limit, cursor).await
    }

    /// The proposals in the Inbox of `bank` (those of `proposer` only, when given),
    /// newest first, paged.
    pub(crate) async fn list_inbox(
        &self,
        bank: BankKey<'_>,
        proposer: Option<&str>,
        status: Option<ProposalStatus>,
        limit: Option<u32>,
        cursor: Option<&Cursor>,
    ) -> Result<ProposalListResponse, StoreError> {
        let limit = limit.unwrap_or(DEFAULT_LIST_LIMIT);
        let now = self.now();
        let mut proposals = self.store().list_proposals(bank, proposer, status, now, cursor, limit + 1).await?;
        let more = proposals.len() > limit as usize;
        proposals.truncate(limit as usize);
        let next_cursor = more
            .then(|| proposals.last())
            .flatten()
            .map(|p| Cursor { created_at_ms: p.created_at.unix_ms(), id: p.id.clone() }.encode());
        let mut seen = Vec::with_capacity(proposals.len());
        for proposal in proposals {
            match self.as_it_stands(bank, as_seen(proposal, now)).await {
                Ok(proposal) => seen.push(proposal),
                Err(ProposalError::Store(e)) => return Err(e),
                Err(other) => return Err(StoreError::Database(other.to_string())),
            }
        }
        Ok(ProposalListResponse { proposals: seen, next_cursor, your_role: None })
    }

    /// The person accepts: a save stores the draft with their edits, an edit writes the
    /// new version, a delete removes the memory; the proposal is marked in the same
    /// transaction. Whatever the person wrote passes the gate like any save or edit. A
    /// proposal decided or expired meanwhile changes nothing, and neither does an edit or
    /// delete whose memory changed since it was proposed, unless the person accepted it
    /// over the version there now ([`ProposalError::MemoryChanged`]).
    pub async fn accept_proposal(&self, user_id: &str, id: &str, edits: AcceptProposalRequest) -> Result<Accepted, ProposalError> {
        self.accept_in(Change::personal(user_id), id, edits).await
    }

    /// Accepts the proposal in the Inbox of `by.bank`, by `by.actor` (the doors check
    /// they may: the owner of a personal Inbox, an org's admin or owner for its Inbox).
    pub(crate) async fn accept_in(&self, by: Change<'_>, id: &str, edits: AcceptProposalRequest) -> Result<Accepted, ProposalError> {
        let (bank, owner) = (by.bank, by.bank.owner());
        let proposal = self.proposal_in(bank, id).await?;
        if proposal.status != ProposalStatus::Pending {
            return Err(ProposalError::NotPending(proposal.status));
        }
        let now = self.now();
        let via = edits.confirmed_via.unwrap_or(ConfirmedVia::App);
        let edit_instead = edits.edit_instead.as_deref().map(str::trim).map(str::to_owned);
        // Whether accepting makes a new memory (a save, not turned into an edit).
        let created = proposal.action == ProposalAction::Save && edit_instead.is_none();
        let (accepted, memory) = match proposal.action {
            // The person chose to reword one of their memories alike to it instead of
            // adding one: only those the proposal names as alike.
            ProposalAction::Save if edit_instead.is_some() => {
                let target = edit_instead.unwrap_or_default();
                if !proposal.similar.iter().any(|alike| alike.id == target) {
                    return Err(ProposalError::Refused(Refused::Invalid(vec![FieldError::new(
                        "editInstead",
                        "editInstead must be the id of one of the proposal's similar memories (see its \"similar\"); \
                         leave it out to save a new memory",
                    )])));
                }
                let current = self.memory_in(&[bank], &target).await?.ok_or(ProposalError::MemoryNotFound)?;
                let change = EditMemoryRequest {
                    content: Some(edits.content.unwrap_or_else(|| proposal.content.clone())),
                    tags: edits.tags.or_else(|| proposal.tags.clone()).or_else(|| current.tags.clone()),
                    confirmed_via: Some(via),
                };
                let change = validate_edit(change).map_err(ProposalError::Refused)?;
                let update = crate::edits::version_after(owner, &current, change, now);
                let accepted = self.store().accept_proposal(by, id, Decision::Edit(&target, &update), now).await?;
                (accepted, self.memory_in(&[bank], &target).await?)
            }
            ProposalAction::Save => {
                let draft = SaveMemoryRequest {
                    content: proposal.content.clone(),
                    tags: proposal.tags.clone(),
                    contexts: Some(proposal.contexts.iter().map(context_input).collect()),
                    confirmed_via: None,
                    scope: None,
                };
                let (save, _via) = validate::merge_accept(draft, edits).map_err(ProposalError::Refused)?;
                let memory = match bank {
                    BankKey::Personal(user_id) => {
                        self.check_quota(user_id, 1).await?;
                        new_memory(user_id, &proposal.org_id, save, now, proposal.proposed_by.clone())
                    }
                    BankKey::Team(org_id) => {
                        self.check_team_quota(org_id).await?;
                        let mut memory = new_memory(org_id, org_id, save, now, proposal.proposed_by.clone());
                        memory.scope = Scope::Org;
                        memory.saved_by = proposal.proposer.clone();
                        memory.confirmed_by = Some(by.actor.to_owned());
                        memory
                    }
                };
                let accepted = self.store().accept_proposal(by, id, Decision::Save(&memory), now).await?;
                (accepted, Some(memory.to_memory()))
            }
            ProposalAction::Delete => {
                let target = proposal.memory_id.clone().unwrap_or_default();
                unchanged_or_seen(&proposal, edits.memory_now.as_ref())?;
                (self.store().accept_proposal(by, id, Decision::Delete(&target), now).await?, None)
            }
            ProposalAction::Edit => {
                let target = proposal.memory_id.clone().unwrap_or_default();
                let current = self.memory_in(&[bank], &target).await?.ok_or(ProposalError::MemoryNotFound)?;
                unchanged_or_seen(&proposal, edits.memory_now.as_ref())?;
                // The person's edits over the agent's proposal, checked like any edit.
                let change = EditMemoryRequest {
                    content: Some(edits.content.unwrap_or_else(|| proposal.content.clone())),
                    tags: Some(edits.tags.or_else(|| proposal.tags.clone()).unwrap_or_default()),
                    confirmed_via: Some(via),
                };
                let change = validate_edit(change).map_err(ProposalError::Refused)?;
                let update = crate::edits::version_after(owner, &current, change, now);
                let accepted = self.store().accept_proposal(by, id, Decision::Edit(&target, &update), now).await?;
                (accepted, self.memory_in(&[bank], &target).await?)
            }
        };
        let proposal = self.proposal_in(bank, id).await?;
        if !accepted {
            return Err(ProposalError::NotPending(proposal.status));
        }
        tracing::info!(user_id = by.actor, proposal_id = id, action = proposal.action.as_str(), scope = bank.scope().as_str(), "proposal.accept");
        self.record(BankEvent::ProposalAccepted);
        if created {
            self.record(BankEvent::MemoriesCreated { via: CreatedVia::Proposal, count: 1 });
        }
        match &memory {
            Some(m) => {
                // The terms the store wrote, derived again by the one rule (the guard of the vector's write).
                let tags = m.tags.as_deref().unwrap_or_default();
                let search_text = terms::memory_index_text(owner, &m.content, tags, m.contexts.iter().map(|c| c.snippet.as_str()));
                self.remember_meaning(owner, &m.id, &search_text, &m.content, tags).await;
            }
            None => {
                if let (Some(meaning), Some(target)) = (self.meaning(), proposal.memory_id.as_deref()) {
                    meaning.forget(owner, target).await;
                }
            }
        }
        let similar = match &memory {
            Some(memory) => self.similar_in(bank, &memory.content, Some(&memory.id)).await?,
            None => Vec::new(),
        };
        Ok(Accepted { proposal, memory, similar })
    }

    /// The person rejects: nothing is saved or deleted.
    pub async fn reject_proposal(&self, user_id: &str, id: &str) -> Result<Proposal, ProposalError> {
        self.reject_in(Change::personal(user_id), id).await
    }

    /// Rejects the proposal in the Inbox of `by.bank`, by `by.actor` (checked by the doors
    /// as for [`Bank::accept_in`]).
    pub(crate) async fn reject_in(&self, by: Change<'_>, id: &str) -> Result<Proposal, ProposalError> {
        let proposal = self.proposal_in(by.bank, id).await?;
        if proposal.status != ProposalStatus::Pending {
            return Err(ProposalError::NotPending(proposal.status));
        }
        let rejected = self.store().reject_proposal(by, id, self.now()).await?;
        let proposal = self.proposal_in(by.bank, id).await?;
        if !rejected {
            return Err(ProposalError::NotPending(proposal.status));
        }
        tracing::info!(user_id = by.actor, proposal_id = id, scope = by.bank.scope().as_str(), "proposal.reject");
        self.record(BankEvent::ProposalRejected);
        Ok(proposal)
    }
}

/// Whether an edit or delete may go ahead: its memory says what it said when proposed,
/// or what the person saw it say when they accepted (`seen`). A proposal made before
/// versions were recorded has nothing to compare and goes ahead.
fn unchanged_or_seen(proposal: &Proposal, seen: Option<&MemoryVersion>) -> Result<(), ProposalError> {
    let (Some(against), Some(now)) = (&proposal.proposed_against, &proposal.memory_now) else { return Ok(()) };
    if seen == Some(now) {
        return Ok(());
    }
    Err(ProposalError::MemoryChanged { proposed_against: against.clone(), memory_now: now.clone() })
}

fn context_input(context: &ProposedContext) -> ContextInput {
    let citation = context.citation.clone().unwrap_or_default();
    ContextInput {
        snippet: context.snippet.clone(),
        conversation_id: citation.conversation_id,
        message_id: citation.message_id,
        origin: context.origin,
    }
}
