//! The team bank through the desktop core, against a real team server on loopback
//! (`docs/teams.md`): the panel's Mine / Team / All, the org Inbox for an admin (and
//! hidden, not an error, for a member), Settings → Team (members, roles, policy, audit)
//! and refusals that read as the server's sentence.

use std::sync::Arc;
use std::time::Duration;

use memory_bank_client::{Client, SaveOutcome};
use memory_bank_contract::teams::{AuditAction, BankScope, OrgPolicy, Role, TeamRefusal};
use memory_bank_contract::wire::{ProposalStatus, Scope, SaveMemoryRequest};
use memory_bank_contract::ErrorCode;
use memory_bank_desktop::deletes::DeleteTiming;
use memory_bank_desktop::inbox::{InboxWatch, ProposalEdits};
use memory_bank_desktop::prefs::MemoryPrefs;
use memory_bank_desktop::{Core, CoreConfig};
use memory_bank_store::{Bank, TokenKind};
use memory_bank_store_sqlite::SqliteStore;

#[path = "support/mod.rs"]
mod support;
use support::NoKeyring;

/// A team server: Ada owns the org Alpha (its first member), Bob is a member, and each
/// has a full token; Bob also has an agent token.
struct Team {
    dir: tempfile::TempDir,
    served: support::Served,
    org: String,
    ada: (String, String),
    bob: (String, String),
    bob_agent: Client,
}

impl Team {
    async fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&format!("sqlite://{}", dir.path().join("team.db").display())).await.unwrap();
        let bank = Bank::new(Arc::new(store));
        let org = bank.add_org("Alpha").await.unwrap().id;
        let ada = bank.add_user("ada@team.example").await.unwrap().id;
        let bob = bank.add_user("bob@team.example").await.unwrap().id;
        bank.add_member(&org, &ada).await.unwrap();
        bank.add_member(&org, &bob).await.unwrap();
        let ada_token = bank.issue_token(&ada).await.unwrap();
        let bob_token = bank.issue_token(&bob).await.unwrap();
        let bob_agent = bank.issue_token_of_kind(&bob, TokenKind::Agent).await.unwrap();
        let served = support::Served::start(bank).await;
        let bob_agent = Client::new(&served.url, &bob_agent).unwrap();
        Self { dir, org, ada: (ada, ada_token), bob: (bob, bob_token), bob_agent, served }
    }

    /// The app signed in as `who` (by env variables, as the e2e tests do).
    async fn app(&self, who: &(String, String)) -> Core {
        let config = CoreConfig {
            data_dir: self.dir.path().join(format!("app-{}", who.0)),
            env_server: Some((self.served.url.clone(), who.1.clone())),
            env_org: Some(self.org.clone()),
            delete_timing: DeleteTiming { delay: Duration::from_secs(3600), ..Default::default() },
            agent_env: None,
            cli_binary: None,
            db_key: memory_bank_db_key::KeySource::None,
        };
        Core::start(config, Box::new(MemoryPrefs::default()), Box::new(NoKeyring), |_| {}).await
    }

    fn client(&self, who: &(String, String)) -> Client {
        Client::new(&self.served.url, &who.1).unwrap()
    }
}


fn save(content: &str, scope: Option<Scope>) -> SaveMemoryRequest {
    SaveMemoryRequest { content: content.into(), tags: None, contexts: None, confirmed_via: None, scope }
}

fn contents(memories: &[memory_bank_contract::wire::Memory]) -> Vec<&str> {
    let mut all: Vec<&str> = memories.iter().map(|m| m.content.as_str()).collect();
    all.sort_unstable();
    all
}

#[tokio::test(flavor = "multi_thread")]
async fn the_panel_filters_mine_team_and_all_in_list_and_search() {
    let team = Team::start().await;
    let ada = team.client(&team.ada);
    ada.save(&team.org, &save("Ada's own tea order is green", None)).await.unwrap();
    let shared = ada.save(&team.org, &save("The team's tea order is oolong", Some(Scope::Org))).await.unwrap().memory;
    assert_eq!(shared.saved_by.as_deref(), Some(team.ada.0.as_str()));
    team.client(&team.bob).save(&team.org, &save("Bob's own tea order is black", None)).await.unwrap();

    let app = team.app(&team.ada).await;
    let org = &team.org;
    let list = |scope| app.list_scoped(org, None, None, scope);
    let mine = list(Some(BankScope::Mine)).await.unwrap().memories;
    assert_eq!(contents(&mine), ["Ada's own tea order is green"]);
    let shared = list(Some(BankScope::Team)).await.unwrap().memories;
    assert_eq!(contents(&shared), ["The team's tea order is oolong"]);
    assert_eq!(shared[0].scope, Scope::Org);
    assert_eq!(shared[0].saved_by.as_deref(), Some(team.ada.0.as_str()));
    let all = list(Some(BankScope::All)).await.unwrap().memories;
    assert_eq!(contents(&all), ["Ada's own tea order is green", "The team's tea order is oolong"]);
    assert_eq!(contents(&list(None).await.unwrap().memories), contents(&all), "no scope is all");

    let search = |scope| app.search_scoped(org, "tea order", None, scope);
    let found = |hits: memory_bank_contract::wire::SearchResponse| {
        let mut all: Vec<String> = hits.results.into_iter().map(|h| h.memory.content).collect();
        all.sort_unstable();
        all
    };
    assert_eq!(found(search(Some(BankScope::Mine)).await.unwrap()), ["Ada's own tea order is green"]);
    assert_eq!(found(search(Some(BankScope::Team)).await.unwrap()), ["The team's tea order is oolong"]);
    assert_eq!(
        found(search(Some(BankScope::All)).await.unwrap()),
        ["Ada's own tea order is green", "The team's tea order is oolong"]
    );

    // Bob reads the team bank too, never Ada's own.
    let bob = team.app(&team.bob).await;
    let bob_all = bob.list_scoped(org, None, None, Some(BankScope::All)).await.unwrap().memories;
    assert_eq!(contents(&bob_all), ["Bob's own tea order is black", "The team's tea order is oolong"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_org_inbox_is_an_admins_and_a_member_follows_only_their_own() {
    let team = Team::start().await;
    let org = &team.org;
    // Bob, a member: his team save waits in the org Inbox; so does his agent's proposal.
    let SaveOutcome::Proposed(proposed) = team
        .client(&team.bob)
        .save_or_propose(org, &save("Deploys freeze on Fridays", Some(Scope::Org)), false)
        .await
        .unwrap()
    else {
        panic!("a member's team save is a proposal");
    };
    let proposal = proposed.proposal;
    assert_eq!(proposal.scope, Scope::Org);

    let ada = team.app(&team.ada).await;
    let bob = team.app(&team.bob).await;
    let mut watch = InboxWatch::new();
    assert_eq!(watch.check(&ada).await.unwrap().pending, 1, "the watch counts the org Inbox for an admin");

    let inbox = ada.list_team_proposals(org).await.unwrap().expect("an owner sees the org Inbox");
    assert_eq!(inbox.proposals.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), [proposal.id.as_str()]);
    assert_eq!(inbox.proposals[0].proposer.as_deref(), Some(team.bob.0.as_str()));
    assert!(ada.list_proposals(org).await.unwrap().proposals.is_empty(), "not in the owner's own Inbox");

    assert_eq!(inbox.your_role, Some(Role::Owner));

    // For Bob, his own team proposals to follow, and nothing for his watch to announce.
    let his = bob.list_team_proposals(org).await.unwrap().expect("a member follows his own");
    assert_eq!((his.proposals, his.your_role), (vec![proposal.clone()], Some(Role::Member)));
    assert_eq!(InboxWatch::new().check(&bob).await.unwrap().pending, 0, "his own team proposal is not his to decide");
    // Deciding it himself is refused with the server's sentence.
    let refused = bob.accept_proposal(org, &proposal.id, ProposalEdits::default()).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::OrgRoleRequired);
    assert!(refused.message.starts_with("Only the org's admins and owners"), "{}", refused.message);
    assert!(!refused.message.contains("403"), "the sentence, not the client's wrapping: {}", refused.message);

    // Ada accepts it through the same command as her own Inbox: Bob saved it, she confirmed it.
    let accepted = ada.accept_proposal(org, &proposal.id, ProposalEdits::default()).await.unwrap();
    let memory = accepted.memory.expect("the team memory");
    assert_eq!(memory.scope, Scope::Org);
    assert_eq!(memory.saved_by.as_deref(), Some(team.bob.0.as_str()));
    assert_eq!(memory.confirmed_by.as_deref(), Some(team.ada.0.as_str()));
    assert!(ada.list_team_proposals(org).await.unwrap().unwrap().proposals.is_empty());
    // Decided, it stays in Bob's list with how it was decided.
    let his = bob.list_team_proposals(org).await.unwrap().unwrap().proposals;
    assert_eq!(his.iter().map(|p| (p.id.as_str(), p.status)).collect::<Vec<_>>(), [(proposal.id.as_str(), ProposalStatus::Accepted)]);

    // An agent's proposal is rejected there too; once the owner stops agents proposing,
    // the agent's next one is refused with its reason.
    let from_agent = team
        .bob_agent
        .propose(org, &memory_bank_contract::wire::ProposeRequest {
            content: Some("Standups start at 9".into()),
            scope: Some(Scope::Org),
            ..Default::default()
        })
        .await
        .unwrap()
        .proposal;
    let listed = ada.list_team_proposals(org).await.unwrap().unwrap();
    assert_eq!(listed.proposals[0].id, from_agent.id);
    ada.reject_proposal(org, &from_agent.id).await.unwrap();
    assert!(ada.list_team_proposals(org).await.unwrap().unwrap().proposals.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn settings_team_lists_members_changes_roles_and_policy_and_reads_the_audit_log() {
    let team = Team::start().await;
    let org = &team.org;
    let ada = team.app(&team.ada).await;
    let bob = team.app(&team.bob).await;
    team.client(&team.ada).save(org, &save("Release notes go in CHANGES.md", Some(Scope::Org))).await.unwrap();

    // The owner sees everyone, owners first.
    let members = ada.team_members(org).await.unwrap();
    assert_eq!(members.your_role, Role::Owner);
    let listed = members.members.expect("an owner sees the members");
    let seen: Vec<(&str, Role)> = listed.iter().map(|m| (m.email.as_str(), m.role)).collect();
    assert_eq!(seen, [("ada@team.example", Role::Owner), ("bob@team.example", Role::Member)]);

    // A member learns their role and sees no list (no error either), nor the audit log.
    let as_bob = bob.team_members(org).await.unwrap();
    assert_eq!((as_bob.your_role, as_bob.members), (Role::Member, None));
    assert_eq!(bob.org_audit(org, None).await.unwrap(), None);
    // …and may read the policy, not change it: the refusal is the server's sentence.
    assert_eq!(bob.org_policy(org).await.unwrap(), OrgPolicy::default());
    let refused = bob.set_org_policy(org, &OrgPolicy { memory_enabled: false, ..OrgPolicy::default() }).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::OrgRoleRequired);
    let owners_only = TeamRefusal::NeedsOwner.describe();
    assert_eq!(refused.message, format!("{}{}.", owners_only[..1].to_uppercase(), &owners_only[1..]));
    let refused = bob.change_member_role(org, &team.ada.0, Role::Member).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::OrgRoleRequired);

    // The owner makes Bob an admin; the last owner cannot step down (409, with why).
    let after = ada.change_member_role(org, &team.bob.0, Role::Admin).await.unwrap();
    assert_eq!(after.members.unwrap()[1].role, Role::Admin);
    assert_eq!(bob.team_members(org).await.unwrap().your_role, Role::Admin);
    let refused = ada.change_member_role(org, &team.ada.0, Role::Member).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::OrgNeedsOwner);
    assert!(refused.message.starts_with("Alpha would have no owner left"), "named, not numbered: {}", refused.message);
    assert!(!refused.message.contains(org.as_str()), "{}", refused.message);
    // An admin may not make an owner.
    let refused = bob.change_member_role(org, &team.bob.0, Role::Owner).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::OrgRoleRequired);
    assert!(refused.message.starts_with("Only the org's owners"), "{}", refused.message);

    // The policy, as the owner sets it.
    let policy = OrgPolicy { memory_enabled: true, agents_may_propose: false, max_memories: Some(500) };
    assert_eq!(ada.set_org_policy(org, &policy).await.unwrap(), policy);
    assert_eq!(bob.org_policy(org).await.unwrap(), policy);
    let refused = team
        .bob_agent
        .propose(org, &memory_bank_contract::wire::ProposeRequest {
            content: Some("Standups start at 9".into()),
            scope: Some(Scope::Org),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Some(ErrorCode::OrgAgentsMayNotPropose));

    // The audit log: the save, newest first, ids and a length only.
    let audit = ada.org_audit(org, None).await.unwrap().expect("an owner reads the audit log");
    assert_eq!(audit.entries.len(), 1);
    let line = &audit.entries[0];
    assert_eq!((line.action, line.actor_id.as_str()), (AuditAction::Saved, team.ada.0.as_str()));
    assert_eq!(line.content_chars, Some("Release notes go in CHANGES.md".chars().count() as u32));
    assert_eq!(audit.next_before, None);
    assert!(bob.org_audit(org, None).await.unwrap().is_some(), "an admin reads it too");

    // Removing Bob: the list after, and his app loses the org.
    let after = ada.remove_member(org, &team.bob.0).await.unwrap();
    assert_eq!(after.members.unwrap().len(), 1);
    let gone = ada.remove_member(org, &team.bob.0).await.unwrap_err();
    assert_eq!(gone.code, ErrorCode::MemberNotFound);
    assert_eq!(gone.message, "That person is not a member of this org (any more).");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_local_bank_is_a_team_of_one_its_person_owns() {
    let dir = tempfile::tempdir().unwrap();
    let config = CoreConfig {
        data_dir: dir.path().join("app"),
        env_server: None,
        env_org: None,
        delete_timing: DeleteTiming { delay: Duration::from_secs(3600), ..Default::default() },
        agent_env: None,
        cli_binary: None,
        db_key: memory_bank_db_key::KeySource::None,
    };
    let core = Core::start(config, Box::new(MemoryPrefs::default()), Box::new(NoKeyring), |_| {}).await;
    let state = core.state().await;
    let org = state.active_org_id.clone().expect("the local org");
    let members = core.team_members(&org).await.unwrap();
    assert_eq!(members.your_role, Role::Owner);
    assert_eq!(members.members.unwrap().len(), 1);
    assert_eq!(core.org_policy(&org).await.unwrap(), OrgPolicy::default());
    assert_eq!(core.list_team_proposals(&org).await.unwrap().unwrap().proposals.len(), 0);
    let me = state.user.unwrap().id;
    let refused = core.change_member_role(&org, &me, Role::Admin).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::OrgNeedsOwner);
    core.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_members_refused_delete_of_a_team_memory_comes_back_with_the_servers_sentence() {
    let team = Team::start().await;
    let org = &team.org;
    let shared = team.client(&team.ada).save(org, &save("Deploys freeze on Fridays", Some(Scope::Org))).await.unwrap().memory;
    let (tx, rx) = std::sync::mpsc::channel();
    let config = CoreConfig {
        data_dir: team.dir.path().join("app-bob-deletes"),
        env_server: Some((team.served.url.clone(), team.bob.1.clone())),
        env_org: Some(org.clone()),
        delete_timing: DeleteTiming { delay: Duration::from_secs(3600), ..Default::default() },
        agent_env: None,
        cli_binary: None,
        db_key: memory_bank_db_key::KeySource::None,
    };
    let bob = Core::start(config, Box::new(MemoryPrefs::default()), Box::new(NoKeyring), move |settled| {
        let _ = tx.send(settled);
    })
    .await;
    bob.schedule_delete(org, &shared.id).await.unwrap();
    bob.flush_deletes().await;
    let settled = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(settled.outcome, memory_bank_desktop::deletes::Outcome::Failed);
    let message = settled.message.unwrap();
    assert!(message.starts_with("Only the org's admins and owners"), "{message}");
    assert!(team.client(&team.ada).memory(org, &shared.id).await.is_ok(), "the team memory is still there");
}
