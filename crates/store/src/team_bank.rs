//! The team bank through [`Bank`] (`docs/teams.md`): which banks a reader may read, and
//! an admin's direct save to the org's team bank.
//!
//! Why here: every door (HTTP, `/mcp`, stdio MCP, the app) asks the bank, so the role
//! and policy checks are made once, in this file, and a new door cannot skip them. The
//! store filters every read on a [`BankKey`], so a bank not returned by
//! [`Bank::banks_for`] cannot be read at all. The doors' search, [`Bank::search_for`],
//! makes the same check beside its reads and answers nothing unless it passes.

use memory_bank_contract::teams::{BankScope, OrgPolicy, Role, TeamRefusal};
use memory_bank_contract::validate::{ValidSave, ValidSearch};
use memory_bank_contract::wire::{Memory, Scope, SearchResult};

use crate::events::{BankEvent, CreatedVia};
use crate::store::BankKey;
use crate::{Bank, StoreError};

impl Bank {
    /// The caller's role in the org and the org's policy, once the org lets memory be
    /// used at all. `NotFound` when they are not a member (a removed member stops at
    /// once, whatever token they hold); `TeamRefused(OrgMemoryDisabled)` when the org
    /// turned memory off.
    pub async fn team_access(&self, user_id: &str, org_id: &str) -> Result<(Role, OrgPolicy), StoreError> {
        let (role, policy) =
            self.store().member_access(user_id, org_id).await?.ok_or_else(|| StoreError::NotFound(format!("org {org_id}")))?;
        if !policy.memory_enabled {
            return Err(StoreError::TeamRefused(TeamRefusal::OrgMemoryDisabled));
        }
        Ok((role, policy))
    }

    /// The banks a read of `scope` covers for `user_id` with `org_id` active: their own,
    /// the org's team bank, or both (own first). Every read of a memory route goes
    /// through this, so the org's kill switch stops both banks.
    pub async fn banks_for<'a>(&self, user_id: &'a str, org_id: &'a str, scope: BankScope) -> Result<Vec<BankKey<'a>>, StoreError> {
        self.team_access(user_id, org_id).await?;
        Ok(scope_banks(user_id, org_id, scope))
    }

    /// Searches the banks `scope` covers for `user_id` with `org_id` active, under the
    /// same checks as [`Bank::banks_for`], made while the banks are searched rather than
    /// before: nothing found is returned (or counted as a search) unless they pass. A
    /// search is the doors' most frequent read, and the check is a statement of its own,
    /// one round trip less on its critical path (BENCHMARKS.md).
    pub async fn search_for(&self, user_id: &str, org_id: &str, scope: BankScope, request: &ValidSearch) -> Result<Vec<SearchResult>, StoreError> {
        let banks = scope_banks(user_id, org_id, scope);
        let (access, found) = tokio::join!(self.team_access(user_id, org_id), self.search_banks(&banks, request));
        access?;
        let found = found?;
        Ok(self.searched(&banks, request, found))
    }

    /// Refuses one more team memory past the org's own cap (`QuotaExceeded`).
    pub(crate) async fn check_team_quota(&self, org_id: &str) -> Result<(), StoreError> {
        let policy = self.store().org_policy(org_id).await?;
        self.within_team_quota(org_id, &policy).await
    }

    async fn within_team_quota(&self, org_id: &str, policy: &OrgPolicy) -> Result<(), StoreError> {
        let Some(limit) = policy.max_memories else { return Ok(()) };
        let have = self.count_against(BankKey::Team(org_id), 1, limit).await?;
        if have >= limit {
            tracing::info!(org_id, have, limit, "team.quota_exceeded");
            self.record(BankEvent::QuotaRefused { count: 1 });
            return Err(StoreError::QuotaExceeded { limit });
        }
        Ok(())
    }

    /// Saves a validated memory straight into the org's team bank: only an admin or
    /// owner may (a person; the doors refuse agent tokens before this), and the org's
    /// own cap applies. The memory records who saved and confirmed it (the admin), and
    /// the org's audit log says `saved` in the same transaction (the store's insert).
    pub async fn save_to_team(&self, actor: &str, org_id: &str, input: ValidSave) -> Result<Memory, StoreError> {
        let (role, policy) = self.team_access(actor, org_id).await?;
        if !role.may_confirm_team() {
            return Err(StoreError::TeamRefused(TeamRefusal::NeedsAdmin));
        }
        self.within_team_quota(org_id, &policy).await?;
        let mut memory = crate::bank::new_memory(org_id, org_id, input, self.now(), None);
        memory.scope = Scope::Org;
        memory.saved_by = Some(actor.to_owned());
        memory.confirmed_by = Some(actor.to_owned());
        self.store().insert_memory(&memory).await?;
        self.remember_meaning(org_id, &memory.id, &memory.search_text, &memory.content, memory.tags.as_deref().unwrap_or_default()).await;
        tracing::info!(memory_id = %memory.id, org_id, actor, content_len = memory.content.chars().count(), "team.save");
        self.record(BankEvent::MemoriesCreated { via: CreatedVia::Save, count: 1 });
        Ok(memory.to_memory())
    }
}

/// The banks a read of `scope` covers: the person's own, the org's team bank, or both
/// (own first).
fn scope_banks<'a>(user_id: &'a str, org_id: &'a str, scope: BankScope) -> Vec<BankKey<'a>> {
    match scope {
        BankScope::Mine => vec![BankKey::Personal(user_id)],
        BankScope::Team => vec![BankKey::Team(org_id)],
        BankScope::All => vec![BankKey::Personal(user_id), BankKey::Team(org_id)],
    }
}
