//! The contract suite every [`MemoryStore`] backend must pass, written once and run
//! against each backend through [`store_suite!`](crate::store_suite) (atuin's pattern).
//!
//! A backend provides a [`Fixture`]: a fresh, empty, migrated database plus a few hooks
//! that use real database features (a trigger to make an insert fail, dropping the
//! index). Nothing here is mocked.

use std::collections::HashSet;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use memory_bank_contract::validate::{parse_list, validate_save, ValidSearch};
use memory_bank_contract::wire::{ConfirmedVia, ContextInput, Memory, Origin, SaveMemoryRequest, Scope};
use memory_bank_contract::Timestamp;

use crate::{terms, Bank, Clock, MemoryStore, NewMemory, StoreError, TokenKind};

pub use crate::suite_meaning as meaning;

/// The snippet [`Fixture::fail_poison_context_inserts`] makes the database reject.
pub const POISON_SNIPPET: &str = "poison";

/// Expands to one `#[tokio::test]` per meaning case, each on a fresh fixture from
/// `$make` with the model `$embed` (an expression giving an `Arc<dyn Embed>`: the real
/// model, shared by the cases).
#[macro_export]
macro_rules! meaning_suite {
    ($make:expr, $embed:expr) => {
        $crate::meaning_suite!(@cases $make, $embed;
            a_paraphrase_is_found_by_meaning_and_says_so, vectors_follow_edits_deletes_and_offboarding,
            the_backfill_makes_every_missing_vector);
    };
    (@cases $make:expr, $embed:expr; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                let fixture = $make.await;
                $crate::suite::meaning::$case(&fixture, $embed).await;
            }
        )*
    };
}

/// A fresh database for one test case.
#[async_trait]
pub trait Fixture: Send + Sync {
    /// The store under test.
    fn store(&self) -> Arc<dyn MemoryStore>;
    /// A second, independent connection pool to the same database.
    async fn reopen(&self) -> Arc<dyn MemoryStore>;
    /// Makes the database itself (a trigger) reject inserting a context whose snippet
    /// is [`POISON_SNIPPET`].
    async fn fail_poison_context_inserts(&self);
    /// Makes the database itself (a trigger) reject deleting a context whose snippet is
    /// [`POISON_SNIPPET`].
    async fn fail_poison_context_deletes(&self);
    /// Removes every failure the hooks above injected.
    async fn clear_faults(&self);
    /// Number of rows in `memory`, `memory_context` or `memory_revision`.
    async fn count(&self, table: &str) -> i64;
    /// Number of entries the full-text index returns for one (scoped) term.
    async fn index_hits(&self, scoped_term: &str) -> i64;
    /// Drops the full-text index.
    async fn drop_search_index(&self);
}

/// Expands to one `#[tokio::test]` per suite case, each on a fresh fixture from `$make`
/// (an expression evaluating to a future of a [`Fixture`]).
#[macro_export]
macro_rules! store_suite {
    ($make:expr) => {
        $crate::store_suite!(@cases $make;
            save_round_trips_byte_for_byte, tags_and_citations_keep_what_was_given,
            list_walks_every_memory_once_while_rows_change, search_covers_content_snippets_and_tags,
            search_matches_short_terms_and_cjk, hostile_queries_are_plain_text, search_ranks_then_newest_first,
            search_sees_a_save_right_after_commit, candidates_are_the_newest_matches_up_to_the_cap, users_are_isolated, org_scoped_rows_are_invisible,
            delete_removes_rows_contexts_and_index_entries, failed_context_insert_leaves_nothing,
            concurrent_ensure_creates_the_index_once, missing_index_is_reported, optimize_changes_no_result, accounts_and_tokens,
            proposals_wait_for_the_person, proposals_are_owner_scoped, delete_proposals_delete_only_when_accepted,
            proposals_expire_after_seven_days, pending_proposals_are_counted_over_every_user, proposals_list_newest_first_by_status, edit_proposals_change_the_memory_only_when_accepted,
            edits_keep_the_memory_and_move_its_search_terms, edits_and_revisions_are_owner_scoped,
            restoring_a_revision_is_an_edit_and_history_grows, deleting_a_memory_deletes_its_revisions,
            an_export_imported_back_exports_the_same, editing_an_imported_memory_keeps_the_files_claim_with_the_replaced_version,
            importing_twice_changes_nothing_and_overwrite_replaces,
            an_id_another_user_has_is_imported_under_a_new_id_and_theirs_is_untouched,
            a_repeated_id_is_reported_by_line_and_the_good_lines_imported, an_import_past_the_cap_imports_what_fits_and_reports_the_rest, offboarding_a_user_removes_all_of_theirs_and_nothing_else,
            offboarding_an_org_removes_its_rows_and_memberships, offboarding_stopped_by_a_failure_leaves_no_half_memory_and_resumes,
            similar_memories_are_hinted_never_merged, a_save_accepted_as_an_edit_rewrites_the_alike_memory,
            hints_are_those_of_comparing_with_every_memory, hints_stay_exact_when_a_common_word_turns_rare,
            hints_stay_exact_when_many_memories_share_an_uncommon_word, term_rows_stop_at_the_cap,
            memories_citing_a_session_are_found_newest_first, stale_edits_and_deletes_are_never_applied_silently,
            the_person_s_words_on_accept_and_restore_pass_the_gate, pending_proposals_are_capped_even_when_they_arrive_at_once,
            search_finds_other_forms_of_a_word, the_exact_form_ranks_above_other_forms, covering_terms_find_the_candidates_every_query_term_finds,
            older_terms_are_rewritten_resumably_from_the_memories_text,
            roles_start_with_an_owner_and_one_always_stays, concurrent_demotions_leave_an_owner,
            org_policy_defaults_and_round_trips, offboarding_the_last_owner_reports_the_org_and_an_org_takes_its_policy,
            team_memories_are_read_by_members_only_and_personal_ones_by_their_owner, org_policy_stops_reads_and_caps_the_team_bank, the_doors_search_refuses_as_banks_for_does, a_save_the_kill_switch_refuses_is_no_quota_refusal,
            the_insert_itself_refuses_while_the_org_has_memory_off, each_bank_s_candidates_asked_together_are_those_asked_alone,
            every_write_path_keeps_each_bank_s_count,
            team_proposals_wait_in_the_org_inbox_for_an_admin, team_edits_and_deletes_go_through_an_admin_or_the_org_inbox,
            org_policy_governs_team_proposals, members_list_only_the_team_proposals_they_made,
            team_hints_are_those_of_comparing_with_every_team_memory);
    };
    (@cases $make:expr; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                let fixture = $make.await;
                $crate::suite::$case(&fixture).await;
            }
        )*
    };
}

/// Every file under `dir`, recursively: for tests that look for plain bytes on disk.
pub fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Those of `files` whose bytes contain `needle` (unreadable files count as empty).
pub fn files_holding(files: impl IntoIterator<Item = std::path::PathBuf>, needle: &[u8]) -> Vec<std::path::PathBuf> {
    files.into_iter().filter(|f| std::fs::read(f).unwrap_or_default().windows(needle.len()).any(|w| w == needle)).collect()
}

/// A clock that stands still unless told to move: lets cases create ties.
pub struct FixedClock(AtomicI64);

impl FixedClock {
    /// A clock at `ms`.
    pub fn at(ms: i64) -> Arc<Self> {
        Arc::new(Self(AtomicI64::new(ms)))
    }
    /// Moves the clock forward.
    pub fn advance(&self, ms: i64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_ms(self.0.load(Ordering::SeqCst))
    }
}

pub use crate::suite_citing::*;
pub use crate::suite_confirm::*;
pub use crate::suite_counts::*;
pub use crate::suite_edits::*;
pub use crate::suite_offboarding::*;
pub use crate::suite_proposals::*;
pub use crate::suite_similar::*;
pub use crate::suite_team_inbox::*;
pub use crate::suite_teams::*;
pub use crate::suite_transfer::*;
pub use crate::suite_word_forms::*;

pub(crate) struct World {
    pub(crate) bank: Bank,
    pub(crate) clock: Arc<FixedClock>,
    pub(crate) alice: String,
    pub(crate) bob: String,
    pub(crate) org: String,
}

pub(crate) async fn world(fixture: &dyn Fixture) -> World {
    let clock = FixedClock::at(1_764_455_111_007);
    let bank = Bank::with_clock(fixture.store(), clock.clone());
    let alice = bank.add_user("alice@example.com").await.unwrap().id;
    let bob = bank.add_user("bob@example.com").await.unwrap().id;
    let org = bank.add_org("Acme").await.unwrap().id;
    bank.add_member(&org, &alice).await.unwrap();
    bank.add_member(&org, &bob).await.unwrap();
    World { bank, clock, alice, bob, org }
}

pub(crate) fn request(content: &str) -> SaveMemoryRequest {
    SaveMemoryRequest { content: content.into(), ..Default::default() }
}

pub(crate) async fn save(w: &World, user: &str, req: SaveMemoryRequest) -> Memory {
    w.bank.save(user, &w.org, validate_save(req).unwrap()).await.unwrap()
}

pub(crate) async fn search(w: &World, user: &str, q: &str) -> Vec<String> {
    let hits = w.bank.search(user, &ValidSearch { query: q.into(), limit: 50, words_only: false }).await.unwrap();
    hits.into_iter().map(|h| h.memory.content).collect()
}

/// Alice's hits for `q` as (id, score), in rank order.
async fn ranked(w: &World, q: &str) -> Vec<(String, f64)> {
    let hits = w.bank.search(&w.alice, &ValidSearch { query: q.into(), limit: 50, words_only: false }).await.unwrap();
    hits.into_iter().map(|h| (h.memory.id, h.score)).collect()
}

pub(crate) async fn list_all(w: &World, user: &str) -> Vec<Memory> {
    let page = w.bank.list(user, &parse_list(Some("100"), None).unwrap()).await.unwrap();
    page.memories
}

/// The saved memory is exactly what list and search return later (one timestamp).
pub async fn save_round_trips_byte_for_byte(f: &dyn Fixture) {
    let w = world(f).await;
    let saved = save(&w, &w.alice, SaveMemoryRequest {
        content: "  Prefers green tea  ".into(),
        tags: Some(vec!["drinks".into()]),
        confirmed_via: Some(ConfirmedVia::Cli),
        contexts: Some(vec![
            ContextInput { snippet: "first".into(), conversation_id: Some("c1".into()), message_id: Some("m1".into()), origin: Some(Origin::ActiveConversation) },
            ContextInput { snippet: "second".into(), ..Default::default() },
        ]),
        scope: None,
    }).await;
    assert_eq!(saved.content, "Prefers green tea");
    assert_eq!((saved.confirmed_via, saved.proposed_by.as_deref()), (Some(ConfirmedVia::Cli), None));
    assert_eq!((saved.scope, saved.source.as_str(), saved.org_id.as_str()), (Scope::User, "chat", w.org.as_str()));
    assert_eq!(saved.created_at.unix_ms(), 1_764_455_111_007);
    assert_eq!(saved.updated_at, saved.created_at);
    assert!(saved.contexts.iter().all(|c| c.created_at == saved.created_at));
    let listed = list_all(&w, &w.alice).await;
    assert_eq!(serde_json::to_string(&listed[0]).unwrap(), serde_json::to_string(&saved).unwrap());
    let found = w.bank.search(&w.alice, &ValidSearch { query: "tea".into(), limit: 5, words_only: false }).await.unwrap();
    assert_eq!(serde_json::to_string(&found[0].memory).unwrap(), serde_json::to_string(&saved).unwrap());
}

/// `[]` tags stay `[]`, missing tags are null; a citation holds only the ids given.
pub async fn tags_and_citations_keep_what_was_given(f: &dyn Fixture) {
    let w = world(f).await;
    let empty = save(&w, &w.alice, SaveMemoryRequest { tags: Some(vec![]), ..request("empty tags") }).await;
    let none = save(&w, &w.alice, request("no tags")).await;
    let cited = save(&w, &w.alice, SaveMemoryRequest {
        contexts: Some(vec![ContextInput { snippet: "s".into(), message_id: Some("m9".into()), ..Default::default() }]),
        ..request("cited")
    }).await;
    let listed = list_all(&w, &w.alice).await;
    let by_id = |id: &str| listed.iter().find(|m| m.id == id).unwrap().clone();
    assert_eq!(by_id(&empty.id).tags, Some(vec![]));
    assert_eq!(by_id(&none.id).tags, None);
    let json = serde_json::to_value(&by_id(&cited.id).contexts[0]).unwrap();
    assert_eq!(json["citation"], serde_json::json!({"messageId": "m9"}));
    assert_eq!(json["origin"], serde_json::Value::Null);
}

/// Cursor paging visits every memory exactly once, newest first, even when rows are
/// added and deleted between pages, including many rows in the same millisecond.
pub async fn list_walks_every_memory_once_while_rows_change(f: &dyn Fixture) {
    let w = world(f).await;
    let mut ids = Vec::new();
    for i in 0..250 {
        if i % 3 == 0 {
            w.clock.advance(1); // every third row moves the clock: ties in between
        }
        ids.push(save(&w, &w.alice, request(&format!("memory number {i}"))).await.id);
    }
    let mut seen: Vec<String> = Vec::new();
    let mut deleted: HashSet<String> = HashSet::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let list = parse_list(Some("17"), cursor.as_deref()).unwrap();
        let page = w.bank.list(&w.alice, &list).await.unwrap();
        seen.extend(page.memories.iter().map(|m| m.id.clone()));
        pages += 1;
        // Between pages: add a new row, and delete one not yet seen.
        w.clock.advance(1);
        save(&w, &w.alice, request("added while paging")).await;
        if let Some(victim) = ids.iter().rev().find(|id| !seen.contains(id) && !deleted.contains(*id)).cloned() {
            let victim = ids.iter().find(|id| !seen.contains(id) && !deleted.contains(*id) && **id != victim).cloned().unwrap_or(victim);
            assert!(w.bank.delete(&w.alice, &victim).await.unwrap());
            deleted.insert(victim);
        }
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert!(pages > 10);
    let unique: HashSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "a memory was returned twice");
    let expected: Vec<&String> = ids.iter().rev().filter(|id| !deleted.contains(*id)).collect();
    let original: Vec<&String> = seen.iter().filter(|id| ids.contains(id)).collect();
    assert_eq!(original, expected, "every original memory not deleted, once, newest first");
}

/// Search looks at content, snippets and tags.
pub async fn search_covers_content_snippets_and_tags(f: &dyn Fixture) {
    let w = world(f).await;
    save(&w, &w.alice, request("The deploy runs on Fridays")).await;
    save(&w, &w.alice, SaveMemoryRequest {
        contexts: Some(vec![ContextInput { snippet: "we talked about kubernetes upgrades".into(), ..Default::default() }]),
        ..request("Cluster work is planned")
    }).await;
    save(&w, &w.alice, SaveMemoryRequest { tags: Some(vec!["billing".into()]), ..request("Invoices go out monthly") }).await;
    assert_eq!(search(&w, &w.alice, "fridays").await, ["The deploy runs on Fridays"]);
    assert_eq!(search(&w, &w.alice, "Kubernetes").await, ["Cluster work is planned"]);
    assert_eq!(search(&w, &w.alice, "billing").await, ["Invoices go out monthly"]);
    assert!(search(&w, &w.alice, "nothing-like-this").await.is_empty());
}

/// One- and two-letter terms, stopwords and unspaced CJK all match.
pub async fn search_matches_short_terms_and_cjk(f: &dyn Fixture) {
    let w = world(f).await;
    for text in ["Writes services in Go", "Works on the UI team", "Interested in AI safety", "我喜欢喝绿茶",
        "我喜欢Python编程", "客户迁移计划在三月", "the who", "東京タワーに行った", "C++ is their main language"] {
        save(&w, &w.alice, request(text)).await;
    }
    assert_eq!(search(&w, &w.alice, "Go").await, ["Writes services in Go"]);
    assert_eq!(search(&w, &w.alice, "ui").await, ["Works on the UI team"]);
    assert_eq!(search(&w, &w.alice, "AI").await, ["Interested in AI safety"]);
    assert_eq!(search(&w, &w.alice, "绿茶").await, ["我喜欢喝绿茶"]);
    assert_eq!(search(&w, &w.alice, "Python").await, ["我喜欢Python编程"]);
    assert_eq!(search(&w, &w.alice, "编程").await, ["我喜欢Python编程"]);
    assert_eq!(search(&w, &w.alice, "迁移").await, ["客户迁移计划在三月"]);
    assert_eq!(search(&w, &w.alice, "タワー").await, ["東京タワーに行った"]);
    assert_eq!(search(&w, &w.alice, "c++").await, ["C++ is their main language"]);
    assert_eq!(search(&w, &w.alice, "the who").await[0], "the who");
    assert_eq!(search(&w, &w.alice, "喜欢").await.len(), 2);
}

/// Query syntax characters are never interpreted: every query runs and returns.
pub async fn hostile_queries_are_plain_text(f: &dyn Fixture) {
    let w = world(f).await;
    save(&w, &w.alice, request("tea (green) \"quoted\" e-mail NEAR the OR gate")).await;
    for q in ["\"", "\"abc", "*", "tea*", "-tea", "NOT tea", "tea OR", "OR", "AND", "NEAR(tea gate)", "(tea", "tea)",
        "tea^", "\0", "😀", "user_id:u1", "terms:tea", "' OR 1=1 --", "\\", "{tea}", "e-mail", "%", "_"] {
        let result = w.bank.search(&w.alice, &ValidSearch { query: q.into(), limit: 20, words_only: false }).await;
        assert!(result.is_ok(), "{q:?} failed: {result:?}");
    }
    assert_eq!(search(&w, &w.alice, "NEAR(").await.len(), 1);
    assert_eq!(search(&w, &w.alice, "e-mail").await.len(), 1);
    assert!(search(&w, &w.alice, "😀").await.is_empty());
}

/// Better matches first; equal scores newest first.
pub async fn search_ranks_then_newest_first(f: &dyn Fixture) {
    let w = world(f).await;
    save(&w, &w.alice, request("coffee in the morning")).await;
    w.clock.advance(5);
    save(&w, &w.alice, request("green tea with green apples")).await;
    w.clock.advance(5);
    save(&w, &w.alice, request("coffee in the morning")).await;
    w.clock.advance(5);
    save(&w, &w.alice, request("tea")).await;
    let hits = w.bank.search(&w.alice, &ValidSearch { query: "coffee".into(), limit: 10, words_only: false }).await.unwrap();
    assert_eq!(hits.len(), 2);
    assert!(hits[0].memory.created_at > hits[1].memory.created_at);
    assert_eq!(hits[0].score, hits[1].score);
    let hits = w.bank.search(&w.alice, &ValidSearch { query: "green tea".into(), limit: 1, words_only: false }).await.unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].memory.content, "green tea with green apples");
}

/// A committed save is searchable immediately.
pub async fn search_sees_a_save_right_after_commit(f: &dyn Fixture) {
    let w = world(f).await;
    for i in 0..20 {
        let marker = format!("marker{i}x");
        save(&w, &w.alice, request(&format!("note with {marker}"))).await;
        assert_eq!(search(&w, &w.alice, &marker).await.len(), 1, "{marker}");
    }
}

/// The full-text candidates are the user's newest matches, newest first (ties by id),
/// at most `cap`, whether the user has fewer matches than the cap or more: every
/// backend hands ranking the same set.
pub async fn candidates_are_the_newest_matches_up_to_the_cap(f: &dyn Fixture) {
    let w = world(f).await;
    let mut matching = Vec::new();
    for i in 0..6 {
        matching.push(save(&w, &w.alice, request(&format!("lantern number {i}"))).await.id);
        save(&w, &w.alice, request("no match here")).await;
        // Lanterns 2 and 3 share a millisecond: the later id is the newer one.
        if i != 2 {
            w.clock.advance(3);
        }
    }
    save(&w, &w.bob, request("bob's lantern")).await;
    let newest_first: Vec<String> = matching.iter().rev().cloned().collect();
    let scoped = terms::scope_terms(&w.alice, &[terms::Term::exact("lantern")]);
    let store = f.store();
    // Asked again: a backend that plans a search from the last one answers the same.
    // Then newer memories without the word: the newest rows no longer hold the matches,
    // and a plan learnt from them must not hide the older ones.
    for round in ["first", "again", "after newer memories without it"] {
        if round.starts_with("after") {
            for _ in 0..20 {
                w.clock.advance(3);
                save(&w, &w.alice, request("no match here either")).await;
            }
        }
        for cap in [1, 3, 5, 6, 7, 1000] {
            let got = store.search_candidates(crate::BankKey::Personal(&w.alice), &scoped, cap).await.unwrap();
            let ids: Vec<&str> = got.iter().map(|c| c.id.as_str()).collect();
            let want: Vec<&str> = newest_first.iter().take(cap as usize).map(String::as_str).collect();
            assert_eq!(ids, want, "{round}: cap {cap}");
            assert!(got.iter().all(|c| terms::read_candidate_terms(&c.terms).any(|(_, t)| t == "lantern")), "{round}: cap {cap}");
        }
    }
}

/// Another user cannot list, search or delete a user's memories.
pub async fn users_are_isolated(f: &dyn Fixture) {
    let w = world(f).await;
    let mine = save(&w, &w.alice, request("alice secret plan zebra")).await;
    assert!(list_all(&w, &w.bob).await.is_empty());
    assert!(search(&w, &w.bob, "zebra").await.is_empty());
    assert!(!w.bank.delete(&w.bob, &mine.id).await.unwrap());
    assert_eq!(list_all(&w, &w.alice).await.len(), 1);
    assert_eq!(search(&w, &w.alice, "zebra").await.len(), 1);
}

/// Rows with `scope = 'org'` are not visible to a personal list, search or delete, even
/// one whose owner column holds the reader's own id: every read filters on the scope.
pub async fn org_scoped_rows_are_invisible(f: &dyn Fixture) {
    let w = world(f).await;
    let org_row = NewMemory {
        id: memory_bank_contract::ids::new_id(memory_bank_contract::ids::MEMORY_PREFIX),
        user_id: w.alice.clone(),
        org_id: w.org.clone(),
        scope: Scope::Org,
        content: "shared org fact walrus".into(),
        source: "chat".into(),
        tags: None,
        created_at: Timestamp::now(),
        search_text: terms::index_text(&w.alice, ["shared org fact walrus"]),
        contexts: vec![],
        confirmed_via: None,
        proposed_by: None,
        saved_by: Some(w.alice.clone()),
        confirmed_by: Some(w.alice.clone()),
    };
    f.store().insert_memory(&org_row).await.unwrap();
    assert!(list_all(&w, &w.alice).await.is_empty());
    assert!(search(&w, &w.alice, "walrus").await.is_empty());
    assert!(!w.bank.delete(&w.alice, &org_row.id).await.unwrap());
    assert_eq!(f.count("memory").await, 1);
}

/// Delete removes the memory, its contexts and its index entry; a repeat is a miss.
pub async fn delete_removes_rows_contexts_and_index_entries(f: &dyn Fixture) {
    let w = world(f).await;
    let contexts = (0..3).map(|i| ContextInput { snippet: format!("snippet {i}"), ..Default::default() }).collect();
    let gone = save(&w, &w.alice, SaveMemoryRequest { contexts: Some(contexts), ..request("ephemeral heron") }).await;
    let kept = save(&w, &w.alice, request("lasting heron")).await;
    let heron = terms::scope_terms(&w.alice, &[terms::Term::exact("heron")]).remove(0);
    assert_eq!((f.count("memory_context").await, f.index_hits(&heron).await), (3, 2));
    assert!(w.bank.delete(&w.alice, &gone.id).await.unwrap());
    assert_eq!((f.count("memory").await, f.count("memory_context").await, f.index_hits(&heron).await), (1, 0, 1));
    assert!(!w.bank.delete(&w.alice, &gone.id).await.unwrap());
    assert!(!w.bank.delete(&w.alice, "mem_not-an-id").await.unwrap());
    assert_eq!(search(&w, &w.alice, "heron").await, [kept.content]);
}

/// A save whose second context insert fails leaves no memory and no contexts.
pub async fn failed_context_insert_leaves_nothing(f: &dyn Fixture) {
    let w = world(f).await;
    f.fail_poison_context_inserts().await;
    let contexts = ["fine", POISON_SNIPPET, "never"].iter().map(|s| ContextInput { snippet: (*s).into(), ..Default::default() }).collect();
    let input = validate_save(SaveMemoryRequest { contexts: Some(contexts), ..request("doomed osprey") }).unwrap();
    assert!(w.bank.save(&w.alice, &w.org, input).await.is_err());
    assert_eq!((f.count("memory").await, f.count("memory_context").await), (0, 0));
    let osprey = terms::scope_terms(&w.alice, &[terms::Term::exact("osprey")]).remove(0);
    assert_eq!(f.index_hits(&osprey).await, 0);
    assert!(search(&w, &w.alice, "osprey").await.is_empty());
    save(&w, &w.alice, request("healthy osprey")).await;
    assert_eq!(search(&w, &w.alice, "osprey").await, ["healthy osprey"]);
}

/// Ten concurrent `ensure` calls on a database without the index create it once,
/// and it then holds the rows saved before.
pub async fn concurrent_ensure_creates_the_index_once(f: &dyn Fixture) {
    let w = world(f).await;
    save(&w, &w.alice, request("saved before the index vanished: puffin")).await;
    f.drop_search_index().await;
    assert!(!f.store().search_index_exists().await.unwrap());
    let mut stores = Vec::new();
    for _ in 0..10 {
        stores.push(f.reopen().await);
    }
    let tasks: Vec<_> = stores.into_iter().map(|s| tokio::spawn(async move { s.ensure_search_index().await })).collect();
    let mut created = 0;
    for task in tasks {
        created += task.await.unwrap().unwrap().created as usize;
    }
    assert_eq!(created, 1);
    assert!(!f.store().ensure_search_index().await.unwrap().created);
    assert_eq!(search(&w, &w.alice, "puffin").await.len(), 1);
}

/// With the index gone the bank refuses (naming the fix) instead of finding nothing.
pub async fn missing_index_is_reported(f: &dyn Fixture) {
    let w = world(f).await;
    save(&w, &w.alice, request("kestrel")).await;
    w.bank.assert_search_index().await.unwrap();
    f.drop_search_index().await;
    let err = w.bank.assert_search_index().await.unwrap_err();
    assert!(matches!(err, StoreError::SearchIndexMissing { .. }));
    assert!(err.to_string().contains("memory-bank db migrate"), "{err}");
    let search = w.bank.search(&w.alice, &ValidSearch { query: "kestrel".into(), limit: 5, words_only: false }).await;
    assert!(search.is_err(), "a search without the index must fail, not find nothing: {search:?}");
    assert!(f.store().migrate().await.unwrap().created);
    assert_eq!(self::search(&w, &w.alice, "kestrel").await.len(), 1);
}

/// `db optimize` rewrites the index without changing any result: every memory is
/// still found by its own word, deleted ones stay gone, ranks and scores are the
/// same, and saves after it are found. The index is dropped and rebuilt first, so
/// the rebuild runs over an index that was itself built from rows already saved.
pub async fn optimize_changes_no_result(f: &dyn Fixture) {
    let w = world(f).await;
    // A digit keeps each marker one exact word: stems would join "markery" and "markeri".
    let word = |i: usize| {
        format!(
            "marker{}0",
            char::from(b'a' + (i % 26) as u8)
                .to_string()
                .repeat(1 + i / 26)
        )
    };
    let mut kept = Vec::new();
    for i in 0..20 {
        kept.push(save(&w, &w.alice, request(&format!("{} gannet {}", word(i), "gannet ".repeat(i % 3)))).await);
        w.clock.advance(1);
    }
    f.drop_search_index().await;
    assert!(f.store().migrate().await.unwrap().created);
    for i in 20..40 {
        kept.push(save(&w, &w.alice, request(&format!("{} gannet", word(i)))).await);
        w.clock.advance(1);
    }
    save(&w, &w.bob, request("bob's gannet")).await;
    let mut deleted = Vec::new();
    for i in [3, 17, 25] {
        let memory = kept.remove(i);
        assert!(w.bank.delete(&w.alice, &memory.id).await.unwrap());
        deleted.push(memory);
    }
    let before = (ranked(&w, "gannet").await, ranked(&w, "markera0 markerb0 gannet").await);

    let outcome = f.store().optimize_search_index().await.unwrap();
    assert_eq!(outcome.after_bytes, f.store().search_index_bytes().await.unwrap());
    assert!(f.store().search_index_exists().await.unwrap());
    assert_eq!((ranked(&w, "gannet").await, ranked(&w, "markera0 markerb0 gannet").await), before);
    assert_eq!(before.0.len(), 37);
    for memory in &kept {
        let query = memory.content.split(' ').next().unwrap().to_owned();
        assert_eq!(search(&w, &w.alice, &query).await, std::slice::from_ref(&memory.content), "{query}");
    }
    for memory in &deleted {
        let query = memory.content.split(' ').next().unwrap().to_owned();
        assert!(search(&w, &w.alice, &query).await.is_empty(), "{query} was deleted");
    }
    assert_eq!(search(&w, &w.bob, "gannet").await, ["bob's gannet"]);
    save(&w, &w.alice, request("after the rebuild: osprey")).await;
    assert_eq!(search(&w, &w.alice, "osprey").await, ["after the rebuild: osprey"]);
}

/// Users, orgs, membership and tokens.
pub async fn accounts_and_tokens(f: &dyn Fixture) {
    let w = world(f).await;
    assert!(matches!(w.bank.add_user("ALICE@example.com").await, Err(StoreError::Conflict(_))));
    assert!(matches!(w.bank.add_user("not an email").await, Err(StoreError::Invalid(_))));
    assert_eq!(w.bank.list_users().await.unwrap().len(), 2);
    let token = w.bank.issue_token(&w.alice).await.unwrap();
    let owner = w.bank.authenticate(&token).await.unwrap().unwrap();
    assert_eq!(
        (owner.user.id.as_str(), owner.kind),
        (w.alice.as_str(), TokenKind::Full)
    );
    assert!(w.bank.authenticate("mbk_wrong").await.unwrap().is_none());
    // Each token has its own id (what the rate limit counts by), the same on every use.
    assert!(owner.token_id.starts_with("tok_"), "{}", owner.token_id);
    assert_eq!(w.bank.authenticate(&token).await.unwrap().unwrap().token_id, owner.token_id);
    let second = w.bank.issue_token(&w.alice).await.unwrap();
    assert_ne!(w.bank.authenticate(&second).await.unwrap().unwrap().token_id, owner.token_id);
    assert!(w.bank.revoke_token(&token).await.unwrap());
    assert!(!w.bank.revoke_token(&token).await.unwrap());
    assert!(w.bank.authenticate(&token).await.unwrap().is_none());
    assert!(matches!(
        w.bank.issue_token("usr_missing").await,
        Err(StoreError::NotFound(_))
    ));

    // Kinds are stored, reported, and revoked by kind only for that user.
    let agent = w
        .bank
        .issue_token_of_kind(&w.alice, TokenKind::Agent)
        .await
        .unwrap();
    assert_eq!(
        w.bank.authenticate(&agent).await.unwrap().unwrap().kind,
        TokenKind::Agent
    );
    let local_a = w
        .bank
        .issue_token_of_kind(&w.alice, TokenKind::Local)
        .await
        .unwrap();
    let local_b = w
        .bank
        .issue_token_of_kind(&w.alice, TokenKind::Local)
        .await
        .unwrap();
    let bobs_local = w
        .bank
        .issue_token_of_kind(&w.bob, TokenKind::Local)
        .await
        .unwrap();
    let full = w.bank.issue_token(&w.alice).await.unwrap();
    assert_eq!(
        w.bank
            .revoke_tokens_of_kind(&w.alice, TokenKind::Local)
            .await
            .unwrap(),
        2
    );
    assert!(w.bank.authenticate(&local_a).await.unwrap().is_none());
    assert!(w.bank.authenticate(&local_b).await.unwrap().is_none());
    assert_eq!(
        w.bank
            .authenticate(&bobs_local)
            .await
            .unwrap()
            .unwrap()
            .kind,
        TokenKind::Local
    );
    assert!(w.bank.authenticate(&full).await.unwrap().is_some());
    assert!(w.bank.authenticate(&agent).await.unwrap().is_some());
    assert_eq!(
        w.bank
            .revoke_tokens_of_kind(&w.alice, TokenKind::Local)
            .await
            .unwrap(),
        0
    );
    assert!(w.bank.is_member(&w.alice, &w.org).await.unwrap());
    assert!(!w.bank.is_member(&w.alice, "org_missing").await.unwrap());
    w.bank.add_member(&w.org, &w.alice).await.unwrap();
    assert!(matches!(w.bank.add_member("org_missing", &w.alice).await, Err(StoreError::NotFound(_))));
    assert!(matches!(w.bank.add_member(&w.org, "usr_missing").await, Err(StoreError::NotFound(_))));
    let other = w.bank.add_org("Beta").await.unwrap();
    assert!(!w.bank.is_member(&w.alice, &other.id).await.unwrap());
    let orgs = w.bank.user_orgs(&w.alice).await.unwrap();
    assert_eq!(orgs.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(), ["Acme"]);
}
