//! Editing a memory in place, keeping every earlier version as a revision: the bank's
//! half (the store's half is [`crate::MemoryStore::update_memory`]). The search terms
//! are recomputed from the new content and tags plus the unchanged snippets, and
//! written in the same transaction as the new version, so the old wording stops
//! matching exactly when the new one starts.

use memory_bank_contract::edit::{validate_edit, EditMemoryRequest, Revision, ValidEdit};
use memory_bank_contract::ids::{self, MEMORY_PREFIX, REVISION_PREFIX};
use memory_bank_contract::wire::{ConfirmedVia, Memory};

use memory_bank_contract::teams::BankScope;

use crate::{terms, BankKey, Bank, Change, MemoryUpdate, StoreError};

impl Bank {
    /// Applies `edit` to the user's memory; `None` when there is no such memory for
    /// this user (another user's id included). Editing to what it already says changes
    /// nothing and keeps no revision.
    pub async fn edit(&self, user_id: &str, id: &str, edit: ValidEdit) -> Result<Option<Memory>, StoreError> {
        self.edit_in(Change::personal(user_id), id, edit).await
    }

    /// Applies `edit` to the memory of `by.bank`, by `by.actor` (a team bank's edit is in
    /// its org's audit log; the doors check the actor may make it).
    pub(crate) async fn edit_in(&self, by: Change<'_>, id: &str, edit: ValidEdit) -> Result<Option<Memory>, StoreError> {
        let (bank, owner) = (by.bank, by.bank.owner());
        let Some(current) = self.memory_in(&[bank], id).await? else { return Ok(None) };
        let update = version_after(owner, &current, edit, self.now());
        if update.content == current.content && update.tags == current.tags {
            return Ok(Some(current));
        }
        if !self.store().update_memory(by, id, &update).await? {
            return Ok(None); // deleted between the two reads
        }
        tracing::info!(
            user_id = by.actor, memory_id = id, revision_id = %update.revision_id, scope = bank.scope().as_str(), "memory.edit"
        );
        self.remember_meaning(owner, id, &update.search_text, &update.content, update.tags.as_deref().unwrap_or_default()).await;
        self.memory_in(&[bank], id).await
    }

    /// The earlier versions of the user's memory, most recently replaced first; `None`
    /// when there is no such memory for this user.
    pub async fn revisions(&self, user_id: &str, id: &str) -> Result<Option<Vec<Revision>>, StoreError> {
        self.revisions_in(BankKey::Personal(user_id), id).await
    }

    /// The earlier versions of a memory `user_id` may read with `org_id` active (their
    /// own, or a team memory of that org); `None` when neither bank holds it.
    pub async fn revisions_for(&self, user_id: &str, org_id: &str, id: &str) -> Result<Option<Vec<Revision>>, StoreError> {
        for bank in self.banks_for(user_id, org_id, BankScope::All).await? {
            if let Some(revisions) = self.revisions_in(bank, id).await? {
                return Ok(Some(revisions));
            }
        }
        Ok(None)
    }

    async fn revisions_in(&self, bank: BankKey<'_>, id: &str) -> Result<Option<Vec<Revision>>, StoreError> {
        if self.memory_in(&[bank], id).await?.is_none() {
            return Ok(None);
        }
        Ok(Some(self.store().revisions(bank.owner(), &[id.to_owned()]).await?.into_iter().map(|r| r.revision).collect()))
    }

    /// Makes revision `revision_id` the memory's current version again (an edit like
    /// any other: the version it replaces becomes a revision, and its text passes the
    /// gate, [`StoreError::Refused`] otherwise). `None` when the memory or that revision
    /// of it is not this user's.
    pub async fn restore_revision(
        &self,
        user_id: &str,
        id: &str,
        revision_id: &str,
        confirmed_via: Option<ConfirmedVia>,
    ) -> Result<Option<Memory>, StoreError> {
        self.restore_revision_in(Change::personal(user_id), id, revision_id, confirmed_via).await
    }

    /// [`Bank::restore_revision`] of a memory `user_id` may change with `org_id` active:
    /// their own, or, for the org's admins and owners, a team memory (a member gets
    /// `TeamRefused(NeedsAdmin)`, as for any team edit).
    pub async fn restore_revision_for(
        &self,
        user_id: &str,
        org_id: &str,
        id: &str,
        revision_id: &str,
        confirmed_via: Option<ConfirmedVia>,
    ) -> Result<Option<Memory>, StoreError> {
        match self.changer(user_id, org_id, id).await? {
            Some(by) => self.restore_revision_in(by, id, revision_id, confirmed_via).await,
            None => Ok(None),
        }
    }

    async fn restore_revision_in(
        &self,
        by: Change<'_>,
        id: &str,
        revision_id: &str,
        confirmed_via: Option<ConfirmedVia>,
    ) -> Result<Option<Memory>, StoreError> {
        if !ids::is_valid(MEMORY_PREFIX, id) || !ids::is_valid(REVISION_PREFIX, revision_id) {
            return Ok(None);
        }
        let Some(revisions) = self.revisions_in(by.bank, id).await? else { return Ok(None) };
        let Some(revision) = revisions.into_iter().find(|r| r.id == revision_id) else { return Ok(None) };
        // Through the gate like any edit: a revision kept from before a check existed (or
        // imported) may hold what a save refuses today, and restoring must not revive it.
        let request = EditMemoryRequest { content: Some(revision.content), tags: Some(revision.tags.unwrap_or_default()), confirmed_via };
        let edit = validate_edit(request).map_err(StoreError::Refused)?;
        self.edit_in(by, id, edit).await
    }
}

/// The new version `edit` makes of `current` at `now`: content and tags (`[]` clears
/// them, absent keeps them), and search terms from them plus the unchanged snippets.
pub(crate) fn version_after(user_id: &str, current: &Memory, edit: ValidEdit, now: memory_bank_contract::Timestamp) -> MemoryUpdate {
    let content = edit.content.unwrap_or_else(|| current.content.clone());
    let tags = match edit.tags {
        Some(tags) if tags.is_empty() => None,
        Some(tags) => Some(tags),
        None => current.tags.clone(),
    };
    let search_text = terms::memory_index_text(
        user_id,
        &content,
        tags.as_deref().unwrap_or_default(),
        current.contexts.iter().map(|c| c.snippet.as_str()),
    );
    MemoryUpdate {
        content,
        tags,
        search_text,
        updated_at: now,
        confirmed_via: edit.confirmed_via,
        revision_id: ids::new_id_at(REVISION_PREFIX, now.unix_ms()),
    }
}
