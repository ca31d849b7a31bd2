//! Suite cases for team banks (`docs/teams.md`): roles, the one-owner rule, policy,
//! and what leaving an org or the service keeps.

use memory_bank_contract::teams::{OrgPolicy, Role};

use crate::suite::{save, world, Fixture};
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

    // The last owner can be neither demoted nor removed…
    assert!(matches!(w.bank.set_member_role(&w.org, &w.alice, Role::Admin).await, Err(StoreError::Conflict(_))));
    assert!(matches!(w.bank.remove_member(&w.org, &w.alice).await, Err(StoreError::Conflict(_))));
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
    w.bank.set_org_policy(&w.org, &strict).await.unwrap();
    assert_eq!(w.bank.org_policy(&w.org).await.unwrap(), strict);
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
    save(&w, &w.alice, crate::suite::request("Alice's own note")).await;
    let report = w.bank.offboard(Offboard::User(&w.alice), 10).await.unwrap();
    assert_eq!(report.orgs_without_owner, [w.org.clone()]);
    assert_eq!(report.memories, 1);
    assert_eq!(w.bank.member_role(&w.bob, &w.org).await.unwrap(), Some(Role::Member), "the others stay");
    w.bank.set_member_role(&w.org, &w.bob, Role::Owner).await.unwrap();

    w.bank.set_org_policy(&w.org, &OrgPolicy { memory_enabled: false, ..OrgPolicy::default() }).await.unwrap();
    w.bank.offboard(Offboard::Org(&w.org), 10).await.unwrap();
    assert_eq!(w.bank.org_policy(&w.org).await.unwrap(), OrgPolicy::default(), "the policy went with the org");
    assert_eq!(w.bank.member_role(&w.bob, &w.org).await.unwrap(), None);
}
