//! Proposals: what agents ask for and people decide. An agent never saves or deletes
//! a memory itself; it proposes, and the proposal waits (owner-scoped like a memory,
//! for [`PROPOSAL_TTL_DAYS`]) until the person accepts (the memory is saved or
//! deleted in the same transaction as the proposal is marked) or rejects it.

use memory_bank_contract::ids::{self, MEMORY_PREFIX, PROPOSAL_PREFIX};
use memory_bank_contract::limits::{DEFAULT_LIST_LIMIT, PROPOSAL_TTL_DAYS};
use memory_bank_contract::validate::{self, Cursor, ValidProposal};
use memory_bank_contract::wire::{
    AcceptProposalRequest, ContextInput, Memory, Proposal, ProposalAction, ProposalListResponse, ProposalStatus,
    ProposedContext, SaveMemoryRequest, SimilarMemory,
};
use memory_bank_contract::{FieldError, Timestamp};

use crate::bank::new_memory;
use crate::store::Decision;
use crate::{Bank, StoreError};

/// Why a proposal call failed.
#[derive(Debug, thiserror::Error)]
pub enum ProposalError {
    /// No such proposal for this user (whatever the reason).
    #[error("proposal not found")]
    NotFound,
    /// It was decided already, or expired.
    #[error("the proposal is {} already", .0.as_str())]
    NotPending(ProposalStatus),
    /// A delete proposal names no memory of this user.
    #[error("memory not found")]
    MemoryNotFound,
    /// The person's edits break the memory limits.
    #[error("invalid edits")]
    Invalid(Vec<FieldError>),
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
    /// The user's other memories worded much like it.
    pub similar: Vec<SimilarMemory>,
}

/// The status a reader sees at `now`: a pending proposal past its expiry is `expired`.
fn as_seen(mut proposal: Proposal, now: Timestamp) -> Proposal {
    if proposal.status == ProposalStatus::Pending && proposal.expires_at.unix_ms() <= now.unix_ms() {
        proposal.status = ProposalStatus::Expired;
    }
    proposal
}

impl Bank {
    /// Stores what an agent proposes, pending until the person decides. A delete must
    /// name one of the user's memories (else [`ProposalError::MemoryNotFound`]).
    pub async fn propose(&self, user_id: &str, org_id: &str, input: ValidProposal) -> Result<Proposal, ProposalError> {
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
        };
        let proposal = match input {
            ValidProposal::Save { save, proposed_by } => Proposal {
                tags: save.tags,
                contexts: save
                    .contexts
                    .into_iter()
                    .map(|c| ProposedContext { snippet: c.snippet, citation: c.citation, origin: c.origin })
                    .collect(),
                ..base(ProposalAction::Save, save.content, proposed_by)
            },
            ValidProposal::Delete { memory_id, proposed_by } => {
                let found = if ids::is_valid(MEMORY_PREFIX, &memory_id) {
                    self.store().memories_by_ids(user_id, std::slice::from_ref(&memory_id)).await?.pop()
                } else {
                    None
                };
                let memory = found.ok_or(ProposalError::MemoryNotFound)?;
                Proposal { memory_id: Some(memory.id), ..base(ProposalAction::Delete, memory.content, proposed_by) }
            }
            // The proposal holds the whole new version: the new sentence (or the current
            // one when only tags change) and the new tags (or the current ones).
            ValidProposal::Edit { memory_id, edit, proposed_by } => {
                let memory = self.memory(user_id, &memory_id).await?.ok_or(ProposalError::MemoryNotFound)?;
                let tags = match edit.tags {
                    Some(tags) if tags.is_empty() => None,
                    Some(tags) => Some(tags),
                    None => memory.tags.clone(),
                };
                let content = edit.content.unwrap_or(memory.content);
                Proposal { memory_id: Some(memory.id), tags, ..base(ProposalAction::Edit, content, proposed_by) }
            }
        };
        self.store().insert_proposal(user_id, &proposal).await?;
        tracing::info!(user_id, proposal_id = %proposal.id, action = proposal.action.as_str(), "proposal.create");
        self.with_similar(user_id, proposal).await
    }

    /// A pending save or edit with the memories worded like it, as they stand now.
    async fn with_similar(&self, user_id: &str, mut proposal: Proposal) -> Result<Proposal, ProposalError> {
        if proposal.status == ProposalStatus::Pending && proposal.action != ProposalAction::Delete {
            proposal.similar = self.similar(user_id, &proposal.content, proposal.memory_id.as_deref()).await?;
        }
        Ok(proposal)
    }

    /// The user's proposal as it stands now.
    pub async fn proposal(&self, user_id: &str, id: &str) -> Result<Proposal, ProposalError> {
        if !ids::is_valid(PROPOSAL_PREFIX, id) {
            return Err(ProposalError::NotFound);
        }
        let found = self.store().proposal(user_id, id).await?.ok_or(ProposalError::NotFound)?;
        self.with_similar(user_id, as_seen(found, self.now())).await
    }

    /// The user's proposals with `status` (all when `None`), newest first, paged.
    pub async fn list_proposals(
        &self,
        user_id: &str,
        status: Option<ProposalStatus>,
        limit: Option<u32>,
        cursor: Option<&Cursor>,
    ) -> Result<ProposalListResponse, StoreError> {
        let limit = limit.unwrap_or(DEFAULT_LIST_LIMIT);
        let now = self.now();
        let mut proposals = self.store().list_proposals(user_id, status, now, cursor, limit + 1).await?;
        let more = proposals.len() > limit as usize;
        proposals.truncate(limit as usize);
        let next_cursor = more
            .then(|| proposals.last())
            .flatten()
            .map(|p| Cursor { created_at_ms: p.created_at.unix_ms(), id: p.id.clone() }.encode());
        let mut seen = Vec::with_capacity(proposals.len());
        for proposal in proposals {
            match self.with_similar(user_id, as_seen(proposal, now)).await {
                Ok(proposal) => seen.push(proposal),
                Err(ProposalError::Store(e)) => return Err(e),
                Err(other) => return Err(StoreError::Database(other.to_string())),
            }
        }
        Ok(ProposalListResponse { proposals: seen, next_cursor })
    }

    /// The person accepts: a save stores the draft with their edits (checked against the
    /// memory limits), a delete removes the memory; the proposal is marked in the same
    /// transaction. A proposal decided or expired meanwhile changes nothing.
    pub async fn accept_proposal(&self, user_id: &str, id: &str, edits: AcceptProposalRequest) -> Result<Accepted, ProposalError> {
        let proposal = self.proposal(user_id, id).await?;
        if proposal.status != ProposalStatus::Pending {
            return Err(ProposalError::NotPending(proposal.status));
        }
        let now = self.now();
        let edit_instead = edits.edit_instead.as_deref().map(str::trim).map(str::to_owned);
        let (accepted, memory) = match proposal.action {
            // The person chose to reword one of their memories instead of adding one.
            ProposalAction::Save if edit_instead.is_some() => {
                let target = edit_instead.unwrap_or_default();
                let current = self.memory(user_id, &target).await?.ok_or(ProposalError::MemoryNotFound)?;
                let change = memory_bank_contract::edit::EditMemoryRequest {
                    content: Some(edits.content.unwrap_or_else(|| proposal.content.clone())),
                    tags: edits.tags.or_else(|| proposal.tags.clone()).or_else(|| current.tags.clone()),
                    confirmed_via: Some(edits.confirmed_via.unwrap_or(memory_bank_contract::wire::ConfirmedVia::App)),
                };
                let change = memory_bank_contract::edit::check_edit_limits(change).map_err(ProposalError::Invalid)?;
                let update = crate::edits::version_after(user_id, &current, change, now);
                let accepted = self.store().accept_proposal(user_id, id, Decision::Edit(&target, &update), now).await?;
                (accepted, self.memory(user_id, &target).await?)
            }
            ProposalAction::Save => {
                let draft = SaveMemoryRequest {
                    content: proposal.content.clone(),
                    tags: proposal.tags.clone(),
                    contexts: Some(proposal.contexts.iter().map(context_input).collect()),
                    confirmed_via: None,
                };
                let (save, _via) = validate::merge_accept(draft, edits).map_err(ProposalError::Invalid)?;
                self.check_quota(user_id, 1).await.map_err(ProposalError::Store)?;
                let memory = new_memory(user_id, &proposal.org_id, save, now, proposal.proposed_by.clone());
                let accepted = self.store().accept_proposal(user_id, id, Decision::Save(&memory), now).await?;
                (accepted, Some(memory.to_memory()))
            }
            ProposalAction::Delete => {
                let target = proposal.memory_id.clone().unwrap_or_default();
                (self.store().accept_proposal(user_id, id, Decision::Delete(&target), now).await?, None)
            }
            ProposalAction::Edit => {
                let target = proposal.memory_id.clone().unwrap_or_default();
                let current = self.memory(user_id, &target).await?.ok_or(ProposalError::MemoryNotFound)?;
                // The person's edits over the agent's proposal, checked like any edit.
                let change = memory_bank_contract::edit::EditMemoryRequest {
                    content: Some(edits.content.unwrap_or_else(|| proposal.content.clone())),
                    tags: Some(edits.tags.or_else(|| proposal.tags.clone()).unwrap_or_default()),
                    confirmed_via: Some(edits.confirmed_via.unwrap_or(memory_bank_contract::wire::ConfirmedVia::App)),
                };
                let change = memory_bank_contract::edit::check_edit_limits(change).map_err(ProposalError::Invalid)?;
                let update = crate::edits::version_after(user_id, &current, change, now);
                let accepted = self.store().accept_proposal(user_id, id, Decision::Edit(&target, &update), now).await?;
                (accepted, self.memory(user_id, &target).await?)
            }
        };
        let proposal = self.proposal(user_id, id).await?;
        if !accepted {
            return Err(ProposalError::NotPending(proposal.status));
        }
        tracing::info!(user_id, proposal_id = id, action = proposal.action.as_str(), "proposal.accept");
        let similar = match &memory {
            Some(memory) => self.similar(user_id, &memory.content, Some(&memory.id)).await?,
            None => Vec::new(),
        };
        Ok(Accepted { proposal, memory, similar })
    }

    /// The person rejects: nothing is saved or deleted.
    pub async fn reject_proposal(&self, user_id: &str, id: &str) -> Result<Proposal, ProposalError> {
        let proposal = self.proposal(user_id, id).await?;
        if proposal.status != ProposalStatus::Pending {
            return Err(ProposalError::NotPending(proposal.status));
        }
        let rejected = self.store().reject_proposal(user_id, id, self.now()).await?;
        let proposal = self.proposal(user_id, id).await?;
        if !rejected {
            return Err(ProposalError::NotPending(proposal.status));
        }
        tracing::info!(user_id, proposal_id = id, "proposal.reject");
        Ok(proposal)
    }
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
