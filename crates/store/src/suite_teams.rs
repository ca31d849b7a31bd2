//! Suite cases for team banks (`docs/teams.md`): roles, the one-owner rule, policy,
//! and what leaving an org or the service keeps.

use memory_bank_contract::teams::{AuditAction, BankScope, OrgPolicy, Role, TeamRefusal};
use memory_bank_contract::validate::{parse_list, validate_save, ValidSearch};
use memory_bank_contract::wire::Scope;

use crate::suite::{request, save, search, world, Fixture, World};
use crate::{Offboard, StoreError};

/// An org's first member is its owner, later ones members; roles change, but never so
/// that the org has no owner, and the list shows owners first.
pub async fn roles_start_with_an_owner_and_one_always_stays(f: &dyn Fixture) {
    let w = world(f).await;
    assert_eq!(w.bank.member_role(&w.alice, &w.org).await.unwrap(), Some(Role::Owner), "the first member owns the org");
    assert_eq!(w.bank.member_role(&w.bob, &w.org).await.unwrap(), Some(Role::Member));
    let carol = w.bank.add_user("carol@example.com").await.unwrap().id;
    assert_eq!(w.bank.member_role(&carol, &w.org).await.unwrap(), None, "not a member");
    assert!(matches!(w.bank.set_member_role(&w.org, &carol, Role::Admin).await, Err(StoreError::NotFound(_))));

    w.bank.add_member_as(&w.org, &carol, Role::Admin).await.unwrap();
    assert_eq!(w.bank.member_role(&carol, &w.org).await.unwrap(), Some(Role::Admin));
    // Adding someone again with a role gives them that role; plain add changes nothing.
    w.bank.add_member(&w.org, &carol).await.unwrap();
    assert_eq!(w.bank.member_role(&carol, &w.org).await.unwrap(), Some(Role::Admin));

    let members = w.bank.org_members(&w.org).await.unwrap();
    let listed: Vec<(&str, Role)> = members.iter().map(|m| (m.email.as_str(), m.role)).collect();
    assert_eq!(listed, [("alice@example.com", Role::Owner), ("carol@example.com", Role::Admin), ("bob@example.com", Role::Member)]);

    // The last owner can be neither demoted nor removed, and the refusal names the org as
    // people know it (its name, never its id)…
    for refused in [w.bank.set_member_role(&w.org, &w.alice, Role::Admin).await, w.bank.remove_member(&w.org, &w.alice).await.map(drop)] {
        let Err(StoreError::Conflict(why)) = refused else { panic!("the last owner stays: {refused:?}") };
        assert!(why.starts_with("Acme would have no owner left") && !why.contains(&w.org), "{why}");
    }
    assert_eq!(w.bank.member_role(&w.alice, &w.org).await.unwrap(), Some(Role::Owner), "nothing changed");
    // …until another member owns the org too.
    w.bank.set_member_role(&w.org, &w.bob, Role::Owner).await.unwrap();
    w.bank.set_member_role(&w.org, &w.alice, Role::Member).await.unwrap();
    assert!(w.bank.remove_member(&w.org, &w.alice).await.unwrap());
    assert!(!w.bank.remove_member(&w.org, &w.alice).await.unwrap(), "already gone");
    assert!(!w.bank.is_member(&w.alice, &w.org).await.unwrap());
    assert_eq!(w.bank.member_role(&w.bob, &w.org).await.unwrap(), Some(Role::Owner));
}

/// Two owners demoting each other at the same moment: one succeeds, the org keeps an owner.
pub async fn concurrent_demotions_leave_an_owner(f: &dyn Fixture) {
    let w = world(f).await;
    w.bank.set_member_role(&w.org, &w.bob, Role::Owner).await.unwrap();
    let other = crate::Bank::new(f.reopen().await);
    let (a, b) = tokio::join!(
        w.bank.set_member_role(&w.org, &w.alice, Role::Member),
        other.set_member_role(&w.org, &w.bob, Role::Member)
    );
    let succeeded = [a.is_ok(), b.is_ok()].iter().filter(|ok| **ok).count();
    assert_eq!(succeeded, 1, "exactly one demotion: {a:?} {b:?}");
    let owners = w.bank.org_members(&w.org).await.unwrap().into_iter().filter(|m| m.role == Role::Owner).count();
    assert_eq!(owners, 1);
}

/// Policy: the defaults until set, then exactly what was set; an unknown org is refused.
pub async fn org_policy_defaults_and_round_trips(f: &dyn Fixture) {
    let w = world(f).await;
    assert_eq!(w.bank.org_policy(&w.org).await.unwrap(), OrgPolicy::default());
    let strict = OrgPolicy { memory_enabled: false, agents_may_propose: false, max_memories: Some(250) };
    assert_eq!(w.bank.store().member_access(&w.bob, &w.org).await.unwrap(), Some((Role::Member, OrgPolicy::default())));
    w.bank.set_org_policy(&w.org, &strict).await.unwrap();
    assert_eq!(w.bank.org_policy(&w.org).await.unwrap(), strict);
    assert_eq!(w.bank.store().member_access(&w.alice, &w.org).await.unwrap(), Some((Role::Owner, strict.clone())), "one lookup, the same answer");
    let carol = w.bank.add_user("carol@example.com").await.unwrap().id;
    assert_eq!(w.bank.store().member_access(&carol, &w.org).await.unwrap(), None, "not a member");
    let open = OrgPolicy { memory_enabled: true, agents_may_propose: true, max_memories: None };
    w.bank.set_org_policy(&w.org, &open).await.unwrap();
    assert_eq!(w.bank.org_policy(&w.org).await.unwrap(), open);
    assert!(matches!(w.bank.set_org_policy("org_missing", &strict).await, Err(StoreError::NotFound(_))));
    assert_eq!(w.bank.org_policy("org_missing").await.unwrap(), OrgPolicy::default());
    assert_eq!(w.bank.org(&w.org).await.unwrap().map(|o| o.name), Some("Acme".to_owned()));
    assert!(w.bank.org("org_missing").await.unwrap().is_none());
    assert!(w.bank.org_audit(&w.org, None, 50).await.unwrap().is_empty(), "no team change yet");
}

/// Removing the only owner from the service leaves the org, its members and their access,
/// and says which orgs need a new owner; deleting an org removes its policy too.
pub async fn offboarding_the_last_owner_reports_the_org_and_an_org_takes_its_policy(f: &dyn Fixture) {
    let w = world(f).await;
    save(&w, &w.alice, request("Alice's own note")).await;
    let report = w.bank.offboard(Offboard::User(&w.alice), 10).await.unwrap();
    assert_eq!(report.orgs_without_owner, std::slice::from_ref(&w.org));
    assert_eq!(report.memories, 1);
    assert_eq!(w.bank.member_role(&w.bob, &w.org).await.unwrap(), Some(Role::Member), "the others stay");
    w.bank.set_member_role(&w.org, &w.bob, Role::Owner).await.unwrap();

    w.bank.set_org_policy(&w.org, &OrgPolicy { memory_enabled: false, ..OrgPolicy::default() }).await.unwrap();
    w.bank.offboard(Offboard::Org(&w.org), 10).await.unwrap();
    assert_eq!(w.bank.org_policy(&w.org).await.unwrap(), OrgPolicy::default(), "the policy went with the org");
    assert_eq!(w.bank.member_role(&w.bob, &w.org).await.unwrap(), None);
}

fn words(query: &str) -> ValidSearch {
    ValidSearch { query: query.into(), limit: 50, words_only: false }
}

async fn contents_in(w: &World, user: &str, scope: BankScope, query: &str) -> Vec<String> {
    let banks = w.bank.banks_for(user, &w.org, scope).await.unwrap();
    let mut found: Vec<String> = w.bank.search_in(&banks, &words(query)).await.unwrap().into_iter().map(|h| h.memory.content).collect();
    found.sort();
    // The doors' search (checks beside the search) finds the same.
    let mut doors: Vec<String> =
        w.bank.search_for(user, &w.org, scope, &words(query)).await.unwrap().into_iter().map(|h| h.memory.content).collect();
    doors.sort();
    assert_eq!(doors, found, "search_for {scope:?} {query:?}");
    found
}

/// Counts the searches a bank reports.
#[derive(Default)]
struct SearchCount(std::sync::atomic::AtomicUsize);

impl crate::events::BankEvents for SearchCount {
    fn record(&self, event: crate::events::BankEvent) {
        if matches!(event, crate::events::BankEvent::Searched) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// The doors' search refuses what `banks_for` refuses, with its error, and a refused
/// search is not counted as one: someone else's org is "not found", a removed member
/// stops at once, and the org's kill switch stops every scope.
pub async fn the_doors_search_refuses_as_banks_for_does(f: &dyn Fixture) {
    let w = world(f).await;
    let count = std::sync::Arc::new(SearchCount::default());
    let bank = w.bank.clone().with_events(count.clone());
    let other = bank.add_org("Globex").await.unwrap().id;
    bank.save_to_team(&w.alice, &w.org, validate_save(request("Staging deploys need the VPN")).unwrap()).await.unwrap();
    let found = bank.search_for(&w.bob, &w.org, BankScope::All, &words("deploys")).await.unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(count.0.load(std::sync::atomic::Ordering::Relaxed), 1, "an answered search is counted");

    for scope in [BankScope::Mine, BankScope::Team, BankScope::All] {
        let refused = bank.search_for(&w.bob, &other, scope, &words("deploys")).await;
        assert!(matches!(refused, Err(StoreError::NotFound(_))), "not his org, {scope:?}: {refused:?}");
    }
    bank.set_org_policy(&w.org, &OrgPolicy { memory_enabled: false, ..OrgPolicy::default() }).await.unwrap();
    for scope in [BankScope::Mine, BankScope::Team, BankScope::All] {
        let refused = bank.search_for(&w.bob, &w.org, scope, &words("deploys")).await;
        assert!(matches!(refused, Err(StoreError::TeamRefused(TeamRefusal::OrgMemoryDisabled))), "{scope:?}: {refused:?}");
    }
    bank.set_org_policy(&w.org, &OrgPolicy::default()).await.unwrap();
    assert!(bank.remove_member(&w.org, &w.bob).await.unwrap());
    let refused = bank.search_for(&w.bob, &w.org, BankScope::Mine, &words("deploys")).await;
    assert!(matches!(refused, Err(StoreError::NotFound(_))), "a removed member stops at once: {refused:?}");
    assert_eq!(count.0.load(std::sync::atomic::Ordering::Relaxed), 1, "no refused search is counted");
}

/// A team memory saved by an admin is read by every member of its org, and by nobody
/// else: not through a personal read, not by another org's members. A personal memory
/// stays its owner's, whatever their role (an owner cannot read a member's). Each read
/// covers mine, team or all, lists and searches alike, and the memory says who saved
/// and confirmed it; the org's audit log says `saved`, with the id and length only.
pub async fn team_memories_are_read_by_members_only_and_personal_ones_by_their_owner(f: &dyn Fixture) {
    let w = world(f).await; // alice owns Acme, bob is a member
    let other = w.bank.add_org("Globex").await.unwrap().id;
    let eve = w.bank.add_user("eve@example.com").await.unwrap().id;
    w.bank.add_member(&other, &eve).await.unwrap(); // eve owns Globex

    let team = w.bank.save_to_team(&w.alice, &w.org, validate_save(request("Staging deploys need the VPN")).unwrap()).await.unwrap();
    assert_eq!(team.scope, Scope::Org);
    assert_eq!((team.saved_by.as_deref(), team.confirmed_by.as_deref()), (Some(w.alice.as_str()), Some(w.alice.as_str())));
    assert_eq!(team.org_id, w.org);
    save(&w, &w.bob, request("Bob deploys on Fridays, privately")).await;
    w.bank.save_to_team(&eve, &other, validate_save(request("Globex deploys through Jenkins")).unwrap()).await.unwrap();

    // Bob (a member) reads the team memory beside his own; the scopes split them.
    assert_eq!(contents_in(&w, &w.bob, BankScope::All, "deploys").await, ["Bob deploys on Fridays, privately", "Staging deploys need the VPN"]);
    assert_eq!(contents_in(&w, &w.bob, BankScope::Team, "deploys").await, ["Staging deploys need the VPN"]);
    assert_eq!(contents_in(&w, &w.bob, BankScope::Mine, "deploys").await, ["Bob deploys on Fridays, privately"]);
    // Alice (the owner) never sees Bob's own memory; nobody sees Globex's.
    assert_eq!(contents_in(&w, &w.alice, BankScope::All, "deploys").await, ["Staging deploys need the VPN"]);
    assert_eq!(search(&w, &w.bob, "deploys").await, ["Bob deploys on Fridays, privately"], "a personal search stays personal");
    assert!(w.bank.memory(&w.bob, &team.id).await.unwrap().is_none(), "not through the personal bank");
    let bobs = w.bank.banks_for(&w.bob, &w.org, BankScope::All).await.unwrap();
    let read = w.bank.memory_in(&bobs, &team.id).await.unwrap().expect("a member reads it by id");
    assert_eq!((read.scope, read.saved_by.as_deref()), (Scope::Org, Some(w.alice.as_str())));
    let listed = w.bank.list_in(&bobs, &parse_list(Some("10"), None).unwrap()).await.unwrap().memories;
    assert_eq!(listed.iter().map(|m| m.scope).collect::<Vec<_>>(), [Scope::User, Scope::Org], "newest first over both banks");
    let globex = w.bank.save_to_team(&eve, &other, validate_save(request("Globex only")).unwrap()).await.unwrap();
    assert!(w.bank.memory_in(&bobs, &globex.id).await.unwrap().is_none(), "another org's memory is not found");
    assert!(matches!(w.bank.banks_for(&w.bob, &other, BankScope::Team).await, Err(StoreError::NotFound(_))), "not his org");

    // Only admins and owners save to the team bank directly.
    let refused = w.bank.save_to_team(&w.bob, &w.org, validate_save(request("Bob's team fact")).unwrap()).await;
    assert!(matches!(refused, Err(StoreError::TeamRefused(TeamRefusal::NeedsAdmin))), "{refused:?}");
    assert_eq!(contents_in(&w, &w.alice, BankScope::Team, "team fact").await, Vec::<String>::new(), "nothing saved");

    let audit = w.bank.org_audit(&w.org, None, 50).await.unwrap();
    assert_eq!(audit.len(), 1, "one line for the one team save: {audit:?}");
    assert_eq!((audit[0].action, audit[0].actor_id.as_str()), (AuditAction::Saved, w.alice.as_str()));
    assert_eq!((audit[0].memory_id.as_deref(), audit[0].content_chars), (Some(team.id.as_str()), Some(28)));

    // A removed member stops at once; the team memory they saved stays, authorship kept.
    w.bank.set_member_role(&w.org, &w.bob, Role::Admin).await.unwrap();
    let bobs_fact = w.bank.save_to_team(&w.bob, &w.org, validate_save(request("Invoices belong to billing")).unwrap()).await.unwrap();
    assert!(w.bank.remove_member(&w.org, &w.bob).await.unwrap());
    assert!(matches!(w.bank.banks_for(&w.bob, &w.org, BankScope::Mine).await, Err(StoreError::NotFound(_))));
    let alices = w.bank.banks_for(&w.alice, &w.org, BankScope::Team).await.unwrap();
    let kept = w.bank.memory_in(&alices, &bobs_fact.id).await.unwrap().expect("kept after Bob left");
    assert_eq!(kept.saved_by.as_deref(), Some(w.bob.as_str()));
}

/// The org's policy, enforced by the bank: memory off refuses every read of both banks
/// and team saves; the team bank's own cap refuses the save past it and keeps nothing.
pub async fn org_policy_stops_reads_and_caps_the_team_bank(f: &dyn Fixture) {
    let w = world(f).await;
    w.bank.set_org_policy(&w.org, &OrgPolicy { max_memories: Some(1), ..OrgPolicy::default() }).await.unwrap();
    w.bank.save_to_team(&w.alice, &w.org, validate_save(request("The one team fact")).unwrap()).await.unwrap();
    let past = w.bank.save_to_team(&w.alice, &w.org, validate_save(request("One past the cap")).unwrap()).await;
    assert!(matches!(past, Err(StoreError::QuotaExceeded { limit: 1 })), "{past:?}");
    assert_eq!(contents_in(&w, &w.alice, BankScope::Team, "fact cap").await, ["The one team fact"]);
    save(&w, &w.alice, request("Personal saves are not the team's cap")).await;

    w.bank.set_org_policy(&w.org, &OrgPolicy { memory_enabled: false, ..OrgPolicy::default() }).await.unwrap();
    for scope in [BankScope::Mine, BankScope::Team, BankScope::All] {
        let refused = w.bank.banks_for(&w.bob, &w.org, scope).await;
        assert!(matches!(refused, Err(StoreError::TeamRefused(TeamRefusal::OrgMemoryDisabled))), "{scope:?}: {refused:?}");
    }
    let refused = w.bank.save_to_team(&w.alice, &w.org, validate_save(request("While off")).unwrap()).await;
    assert!(matches!(refused, Err(StoreError::TeamRefused(TeamRefusal::OrgMemoryDisabled))), "{refused:?}");
}

/// The kill switch is read by the insert itself, in its own transaction: a save with no
/// quota to check reads nothing before it, and a store's insert, one or many, writes
/// nothing for an org with memory off (another org's memories go in as ever).
pub async fn the_insert_itself_refuses_while_the_org_has_memory_off(f: &dyn Fixture) {
    let w = world(f).await;
    let globex = w.bank.add_org("Globex").await.unwrap().id;
    let memory = |org: &str, text: &str| crate::bank::new_memory(&w.alice, org, validate_save(request(text)).unwrap(), w.bank.now(), None);
    let off_refusal = |r: &Result<(), StoreError>| matches!(r, Err(StoreError::TeamRefused(TeamRefusal::OrgMemoryDisabled)));
    w.bank.save(&w.alice, &w.org, validate_save(request("saved while on")).unwrap()).await.unwrap();

    w.bank.set_org_policy(&w.org, &OrgPolicy { memory_enabled: false, ..OrgPolicy::default() }).await.unwrap();
    let saved = w.bank.save(&w.alice, &w.org, validate_save(request("saved while off")).unwrap()).await;
    assert!(matches!(saved, Err(StoreError::TeamRefused(TeamRefusal::OrgMemoryDisabled))), "{saved:?}");
    let one = w.bank.store().insert_memory(&memory(&w.org, "inserted while off")).await;
    assert!(off_refusal(&one), "{one:?}");
    let many = w.bank.store().insert_memories(&[memory(&globex, "Globex's, beside one of Acme's"), memory(&w.org, "Acme's, while off")]).await;
    assert!(off_refusal(&many), "refused as a whole: {many:?}");
    w.bank.store().insert_memory(&memory(&globex, "Globex has memory on")).await.unwrap();

    let listed = w.bank.list(&w.alice, &parse_list(None, None).unwrap()).await.unwrap().memories;
    let mut contents: Vec<&str> = listed.iter().map(|m| m.content.as_str()).collect();
    contents.sort_unstable();
    assert_eq!(contents, ["Globex has memory on", "saved while on"], "nothing refused was written");
    assert_eq!(w.bank.store().count_memories(crate::BankKey::Personal(&w.alice)).await.unwrap(), 2, "nor counted");
    w.bank.set_org_policy(&w.org, &OrgPolicy::default()).await.unwrap();
    w.bank.save(&w.alice, &w.org, validate_save(request("saved when on again")).unwrap()).await.unwrap();
}

/// Counts the quota refusals a bank reports.
#[derive(Default)]
struct QuotaRefusals(std::sync::atomic::AtomicUsize);

impl crate::events::BankEvents for QuotaRefusals {
    fn record(&self, event: crate::events::BankEvent) {
        if matches!(event, crate::events::BankEvent::QuotaRefused { .. }) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// A save reads the org's kill switch and the person's count together, and still
/// answers as if one after the other: the kill switch first, and a quota refusal is
/// counted only when it is the answer.
pub async fn a_save_the_kill_switch_refuses_is_no_quota_refusal(f: &dyn Fixture) {
    let w = world(f).await;
    let refusals = std::sync::Arc::new(QuotaRefusals::default());
    let bank = w.bank.clone().with_memory_quota(Some(1)).with_events(refusals.clone());
    let refused = |r: &std::sync::Arc<QuotaRefusals>| r.0.load(std::sync::atomic::Ordering::Relaxed);
    bank.save(&w.alice, &w.org, validate_save(request("the first fits")).unwrap()).await.unwrap();
    let past = bank.save(&w.alice, &w.org, validate_save(request("the second does not")).unwrap()).await;
    assert!(matches!(past, Err(StoreError::QuotaExceeded { limit: 1 })), "{past:?}");
    assert_eq!(refused(&refusals), 1);
    bank.set_org_policy(&w.org, &OrgPolicy { memory_enabled: false, ..OrgPolicy::default() }).await.unwrap();
    let off = bank.save(&w.alice, &w.org, validate_save(request("memory is off")).unwrap()).await;
    assert!(matches!(off, Err(StoreError::TeamRefused(TeamRefusal::OrgMemoryDisabled))), "{off:?}");
    assert_eq!(refused(&refusals), 1, "the kill switch's refusal is not counted as the quota's");
    bank.set_org_policy(&w.org, &OrgPolicy::default()).await.unwrap();
    let bob = bank.save(&w.bob, &w.org, validate_save(request("bob has room")).unwrap()).await;
    assert!(bob.is_ok(), "the cap is per person: {bob:?}");
    assert_eq!(bank.list(&w.alice, &parse_list(None, None).unwrap()).await.unwrap().memories.len(), 1, "nothing refused was saved");
    assert_eq!(bank.store().count_memories(crate::BankKey::Personal(&w.alice)).await.unwrap(), 1, "nor counted");
}

/// A person's bank and their team's asked for their candidates together answer what
/// each answers asked alone, in the order asked, whatever the cap, and never another
/// member's or another org's memory.
pub async fn each_bank_s_candidates_asked_together_are_those_asked_alone(f: &dyn Fixture) {
    use crate::{terms, BankKey};
    let w = world(f).await; // alice owns Acme, bob is a member
    let other = w.bank.add_org("Globex").await.unwrap().id;
    w.bank.add_member(&other, &w.alice).await.unwrap();
    for i in 0..5 {
        save(&w, &w.alice, request(&format!("my lantern number {i}"))).await;
        w.clock.advance(2);
        let team = format!("the team lantern {i} lights the deploys");
        w.bank.save_to_team(&w.alice, &w.org, validate_save(request(&team)).unwrap()).await.unwrap();
        w.clock.advance(2);
    }
    save(&w, &w.alice, request("only mine: a quokka")).await;
    save(&w, &w.bob, request("bob's lantern, bob's quokka")).await;
    w.bank.save_to_team(&w.alice, &other, validate_save(request("Globex lantern quokka")).unwrap()).await.unwrap();

    let store = f.store();
    let (mine, team) = (BankKey::Personal(&w.alice), BankKey::Team(&w.org));
    for query in ["lantern", "lanterns deploy", "quokka", "deploys", "nothing"] {
        let lookup = terms::covering_terms(&terms::query_terms(query));
        for cap in [1, 2, 3, 1000] {
            for banks in [[mine, team], [team, mine]] {
                let asked: Vec<(BankKey<'_>, Vec<String>)> =
                    banks.iter().map(|bank| (*bank, terms::scope_terms(bank.owner(), &lookup))).collect();
                let together = store.search_candidates_in(&asked, cap).await.unwrap();
                let mut alone = Vec::new();
                for (bank, scoped) in &asked {
                    alone.push(store.search_candidates(*bank, scoped, cap).await.unwrap());
                }
                assert_eq!(together, alone, "{query:?}, cap {cap}, {banks:?}");
                assert!(together.iter().flatten().all(|c| !c.terms.contains("bob") && !c.terms.contains("globex")), "{query:?}");
            }
            // A bank with no terms to look up (a query of stopwords only) finds nothing
            // and the other still finds its own.
            let asked = vec![(mine, Vec::new()), (team, terms::scope_terms(&w.org, &lookup))];
            let together = store.search_candidates_in(&asked, cap).await.unwrap();
            assert!(together[0].is_empty());
            assert_eq!(together[1], store.search_candidates(team, &asked[1].1, cap).await.unwrap(), "{query:?}, cap {cap}");
        }
    }
    // Sanity: the query words do find rows in both banks, so the comparison above is not
    // of empty lists.
    let lantern = terms::covering_terms(&terms::query_terms("lantern"));
    let both = store
        .search_candidates_in(&[(mine, terms::scope_terms(&w.alice, &lantern)), (team, terms::scope_terms(&w.org, &lantern))], 1000)
        .await
        .unwrap();
    assert_eq!((both[0].len(), both[1].len()), (5, 5));
}
