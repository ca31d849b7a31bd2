//! One contract, two implementations: the local bank file and a memory service over
//! HTTP on loopback must answer every action the same way.

use std::sync::Arc;

use memory_bank_db_key::KeySource;
use memory_bank_access::{AccessError, LocalAccess, MemoryAccess, RemoteAccess};
use memory_bank_client::Client;
use memory_bank_contract::wire::{
    AcceptProposalRequest, ConfirmedVia, ContextInput, ProposalAction, ProposalStatus, ProposeRequest,
};
use memory_bank_contract::ErrorCode;
use memory_bank_store::{Bank, TokenKind};
use memory_bank_store_sqlite::SqliteStore;

struct Remote {
    _dir: tempfile::TempDir,
    url: String,
    full: String,
    agent: String,
    bank: Bank,
    user: String,
    org: String,
    _stop: tokio::sync::oneshot::Sender<()>,
}

async fn remote_service() -> Remote {
    remote_service_searching(false).await
}

/// A memory service on loopback; by words and meaning (the installed model) when `meaning`.
async fn remote_service_searching(meaning: bool) -> Remote {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&format!("sqlite://{}", dir.path().join("memory.db").display())).await.unwrap();
    let bank = memory_bank_meaning::attach(Bank::new(Arc::new(store)), !meaning);
    let user = bank.add_user("ada@example.com").await.unwrap().id;
    let org = bank.add_org("Acme").await.unwrap().id;
    bank.add_member(&org, &user).await.unwrap();
    let full = bank.issue_token(&user).await.unwrap();
    let agent = bank.issue_token_of_kind(&user, TokenKind::Agent).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(memory_bank_server::serve(listener, bank.clone(), Default::default(), async move {
        let _ = stopped.await;
    }));
    Remote { _dir: dir, url, full, agent, bank, user, org, _stop: stop }
}

async fn remote(service: &Remote, token: &str) -> RemoteAccess {
    RemoteAccess::connect(Client::new(&service.url, token).unwrap(), None).await.unwrap()
}

fn draft(content: &str) -> ProposeRequest {
    ProposeRequest {
        content: Some(content.into()),
        tags: Some(vec!["drinks".into()]),
        contexts: Some(vec![ContextInput { snippet: "I always drink tea".into(), message_id: Some("m7".into()), ..Default::default() }]),
        proposed_by: Some("claude-code".into()),
        ..Default::default()
    }
}

/// Every case, run against one implementation.
async fn contract(access: &dyn MemoryAccess) {
    // Propose: nothing saved until accepted.
    let proposal = access.propose(draft("Ada prefers tea")).await.unwrap();
    assert_eq!((proposal.status, proposal.action), (ProposalStatus::Pending, ProposalAction::Save));
    assert!(access.search("tea", 10, None).await.unwrap().is_empty());
    assert_eq!(access.proposal(&proposal.id).await.unwrap().status, ProposalStatus::Pending);

    // Accepted in the agent's client, as edited there.
    let edits = AcceptProposalRequest {
        content: Some("Ada prefers green tea".into()),
        confirmed_via: Some(ConfirmedVia::Elicitation),
        ..Default::default()
    };
    let accepted = access.accept(&proposal.id, edits).await.unwrap();
    let memory = accepted.memory.unwrap();
    assert_eq!(memory.content, "Ada prefers green tea");
    assert_eq!((memory.confirmed_via, memory.proposed_by.as_deref()), (Some(ConfirmedVia::Elicitation), Some("claude-code")));
    assert_eq!(access.proposal(&proposal.id).await.unwrap().status, ProposalStatus::Accepted);
    let hits = access.search("green tea", 10, None).await.unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].memory, memory);
    assert_eq!(access.memory(&memory.id).await.unwrap(), memory);
    let again = access.accept(&proposal.id, AcceptProposalRequest::default()).await.unwrap_err();
    assert_eq!(again.code, ErrorCode::ProposalNotPending);

    // Declined: nothing saved.
    let declined = access.propose(draft("Ada likes coffee")).await.unwrap();
    assert_eq!(access.reject(&declined.id).await.unwrap().status, ProposalStatus::Rejected);
    assert!(access.search("coffee", 10, None).await.unwrap().iter().all(|h| h.memory.content != "Ada likes coffee"));

    // A delete, only once accepted.
    let delete = ProposeRequest { action: Some(ProposalAction::Delete), memory_id: Some(memory.id.clone()), ..Default::default() };
    let proposal = access.propose(delete).await.unwrap();
    assert_eq!(proposal.content, "Ada prefers green tea");
    assert_eq!(access.list(10, None, None).await.unwrap().memories.len(), 1);
    access.accept(&proposal.id, AcceptProposalRequest::default()).await.unwrap();
    assert_eq!(access.memory(&memory.id).await.unwrap_err().code, ErrorCode::MemoryNotFound);

    // Refusals: secrets, limits, unknown ids.
    let secret = access.propose(draft("deploy with ghp_abcdefghijklmnopqrstuvwxyz0123456789")).await.unwrap_err();
    assert_eq!(secret.code, ErrorCode::LooksLikeSecret);
    assert_eq!(secret.details[0].path, "content");
    let long = access.propose(draft(&"x".repeat(8001))).await.unwrap_err();
    assert_eq!(long.code, ErrorCode::InvalidRequest);
    let missing = ProposeRequest { action: Some(ProposalAction::Delete), memory_id: Some("mem_nope".into()), ..Default::default() };
    assert_eq!(access.propose(missing).await.unwrap_err().code, ErrorCode::MemoryNotFound);
    assert_eq!(access.proposal("prop_nope").await.unwrap_err().code, ErrorCode::ProposalNotFound);
    assert_eq!(access.search("", 10, None).await.unwrap_err().code, ErrorCode::InvalidRequest);

    // Paging walks everything once.
    for i in 0..5 {
        let p = access.propose(draft(&format!("fact number {i}"))).await.unwrap();
        access.accept(&p.id, AcceptProposalRequest::default()).await.unwrap();
    }
    let first = access.list(3, None, None).await.unwrap();
    let second = access.list(3, first.next_cursor.as_deref(), None).await.unwrap();
    assert_eq!(first.memories.len() + second.memories.len(), 5);
    assert!(second.next_cursor.is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_local_bank_keeps_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    contract(&LocalAccess::open(dir.path(), &KeySource::None).await.unwrap()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_memory_service_keeps_the_contract() {
    let service = remote_service().await;
    contract(&remote(&service, &service.full).await).await;
}

/// An agent token's caller may propose but not decide, whichever implementation
/// carries the rule; the person's own token decides it.
async fn agent_cannot_decide(agent: &dyn MemoryAccess, person: &dyn MemoryAccess) {
    assert!(!agent.may_confirm(), "{}", agent.describe());
    assert!(person.may_confirm(), "{}", person.describe());
    let proposal = agent.propose(draft("Ada prefers tea")).await.unwrap();
    let refused: AccessError = agent.accept(&proposal.id, AcceptProposalRequest::default()).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::AgentTokenCannotConfirm);
    assert_eq!(agent.reject(&proposal.id).await.unwrap_err().code, ErrorCode::AgentTokenCannotConfirm);
    assert_eq!(agent.proposal(&proposal.id).await.unwrap().status, ProposalStatus::Pending);
    assert!(person.accept(&proposal.id, AcceptProposalRequest::default()).await.unwrap().memory.is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn with_an_agent_token_a_proposal_cannot_be_accepted_and_stays_pending() {
    let service = remote_service().await;
    agent_cannot_decide(&remote(&service, &service.agent).await, &remote(&service, &service.full).await).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_callers_bank_keeps_the_agent_token_rule_too() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&format!("sqlite://{}", dir.path().join("memory.db").display())).await.unwrap();
    let bank = Bank::new(Arc::new(store));
    let user = bank.add_user("ada@example.com").await.unwrap().id;
    let org = bank.add_org("Acme").await.unwrap().id;
    bank.add_member(&org, &user).await.unwrap();
    let agent = LocalAccess::for_caller(bank.clone(), user.clone(), org.clone(), TokenKind::Agent);
    let person = LocalAccess::for_caller(bank, user, org, TokenKind::Full);
    agent_cannot_decide(&agent, &person).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn two_openers_of_one_bank_file_never_lose_each_others_writes() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (LocalAccess::open(dir.path(), &KeySource::None).await.unwrap(), LocalAccess::open(dir.path(), &KeySource::None).await.unwrap());
    let write = |access: LocalAccess, who: &'static str| async move {
        for i in 0..40 {
            let p = access.propose(draft(&format!("{who} wrote fact {i}"))).await.unwrap();
            access.accept(&p.id, AcceptProposalRequest::default()).await.unwrap();
        }
    };
    tokio::join!(write(a, "first"), write(b, "second"));
    let reader = LocalAccess::open(dir.path(), &KeySource::None).await.unwrap();
    let mut seen = 0;
    let mut cursor = None;
    loop {
        let page = reader.list(100, cursor.as_deref(), None).await.unwrap();
        seen += page.memories.len();
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(seen, 80);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_memory_service_is_searched_by_words_only_when_the_person_chose_it() {
    let service = remote_service_searching(true).await;
    let saved = memory_bank_contract::validate::parse_save_body(br#"{"content":"Prefers green tea over coffee"}"#).unwrap();
    service.bank.save(&service.user, &service.org, saved).await.unwrap();
    let client = Client::new(&service.url, &service.agent).unwrap();
    loop {
        let status = client.search_status(&service.org).await.unwrap();
        if status.with_vector >= status.memories {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // No word of the query is in the memory: only its meaning finds it.
    let by_meaning = remote(&service, &service.agent).await.with_words_only(false);
    let found = by_meaning.search("favourite beverage", 5, None).await.unwrap();
    assert_eq!(found.len(), 1, "found by its meaning: {found:?}");
    let by_words = remote(&service, &service.agent).await.with_words_only(true);
    assert!(by_words.search("favourite beverage", 5, None).await.unwrap().is_empty(), "words only: no word in common");
    assert_eq!(by_words.search("green tea", 5, None).await.unwrap().len(), 1, "and by its words it is still found");
}

fn sentence(text: &str) -> memory_bank_contract::validate::ValidSave {
    memory_bank_contract::validate::validate_save(memory_bank_contract::wire::SaveMemoryRequest { content: text.into(), ..Default::default() }).unwrap()
}

/// Whose memories a search and a list cover, the same through both: the person's own,
/// their org's team bank, or both (the default); and the org's kill switch, with its code.
async fn scopes(access: &dyn MemoryAccess, bank: &Bank, user: &str, org: &str) {
    use memory_bank_contract::teams::{BankScope, OrgPolicy};
    bank.save(user, org, sentence("Ada's own deploy checklist")).await.unwrap();
    bank.save_to_team(user, org, sentence("Team deploys need the VPN")).await.unwrap();
    let found = |scope: Option<BankScope>| async move {
        let mut found: Vec<String> = access.search("deploys", 10, scope).await.unwrap().into_iter().map(|h| h.memory.content).collect();
        found.sort();
        found
    };
    assert_eq!(found(None).await, ["Ada's own deploy checklist", "Team deploys need the VPN"], "{}", access.describe());
    assert_eq!(found(Some(BankScope::All)).await, found(None).await);
    assert_eq!(found(Some(BankScope::Team)).await, ["Team deploys need the VPN"]);
    assert_eq!(found(Some(BankScope::Mine)).await, ["Ada's own deploy checklist"]);
    let team = access.list(10, None, Some(BankScope::Team)).await.unwrap().memories;
    assert_eq!(team.len(), 1);
    assert_eq!((team[0].scope, team[0].saved_by.as_deref()), (memory_bank_contract::wire::Scope::Org, Some(user)));
    assert_eq!(access.list(10, None, None).await.unwrap().memories.len(), 2);

    bank.set_org_policy(org, &OrgPolicy { memory_enabled: false, ..OrgPolicy::default() }).await.unwrap();
    assert_eq!(access.search("deploys", 10, None).await.unwrap_err().code, ErrorCode::OrgMemoryDisabled);
    assert_eq!(access.list(10, None, Some(BankScope::Mine)).await.unwrap_err().code, ErrorCode::OrgMemoryDisabled);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_local_bank_reads_the_scopes() {
    let dir = tempfile::tempdir().unwrap();
    let access = LocalAccess::open(dir.path(), &KeySource::None).await.unwrap();
    let (bank, user, org) = (access.bank().clone(), access.user_id().to_owned(), access.org_id().to_owned());
    scopes(&access, &bank, &user, &org).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_memory_service_reads_the_scopes() {
    let service = remote_service().await;
    scopes(&remote(&service, &service.full).await, &service.bank, &service.user, &service.org).await;
}
