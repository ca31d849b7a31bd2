//! The Inbox against a real team server on loopback: an agent (an agent token) proposes,
//! the desktop core lists, accepts (with edits, and the secret check on what is accepted)
//! and rejects, and the watch reports new proposals once.

use std::sync::Arc;
use std::time::Duration;

use memory_bank_contract::ErrorCode;
use memory_bank_client::Client;
use memory_bank_contract::validate::parse_list;
use memory_bank_contract::wire::{ConfirmedVia, ContextInput, ProposalAction, ProposalStatus, ProposeRequest};
use memory_bank_desktop::inbox::{InboxWatch, ProposalEdits};
use memory_bank_desktop::prefs::MemoryPrefs;
use memory_bank_desktop::deletes::DeleteTiming;
use memory_bank_desktop::{Core, CoreConfig};
use memory_bank_store::{Bank, TokenKind};
use memory_bank_store_sqlite::SqliteStore;

#[path = "support/mod.rs"]
mod support;
use support::NoKeyring;

/// A team server with one user in one org, a full token (the app's) and an agent token.
struct Team {
    _dir: tempfile::TempDir,
    served: support::Served,
    token: String,
    agent: Client,
    bank: Bank,
    user: String,
    org: String,
}

impl Team {
    async fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&format!("sqlite://{}", dir.path().join("team.db").display())).await.unwrap();
        let bank = Bank::new(Arc::new(store));
        let user = bank.add_user("ada@team.example").await.unwrap().id;
        let org = bank.add_org("Alpha").await.unwrap().id;
        bank.add_member(&org, &user).await.unwrap();
        let token = bank.issue_token(&user).await.unwrap();
        let agent_token = bank.issue_token_of_kind(&user, TokenKind::Agent).await.unwrap();
        let served = support::Served::start(bank.clone()).await;
        let agent = Client::new(&served.url, &agent_token).unwrap();
        Self { _dir: dir, served, token, agent, bank, user, org }
    }

    /// Proposes through the agent token, as `memory-bank mcp` does.
    async fn propose(&self, request: ProposeRequest) -> String {
        self.agent.propose(&self.org, &request).await.unwrap().proposal.id
    }

    async fn contents(&self) -> Vec<String> {
        let page = self.bank.list(&self.user, &parse_list(Some("100"), None).unwrap()).await.unwrap();
        page.memories.into_iter().map(|m| m.content).collect()
    }
}

/// The app signed in to `team` by env variables; the folder is unused (no local service).
async fn core_for(team: &Team) -> Core {
    let config = CoreConfig {
        data_dir: team._dir.path().join("app"),
        env_server: Some((team.served.url.clone(), team.token.clone())),
        env_org: Some(team.org.clone()),
        delete_timing: DeleteTiming { delay: Duration::from_secs(3600), ..Default::default() },
        agent_env: None,
        cli_binary: None,
        db_key: memory_bank_db_key::KeySource::None,
    };
    Core::start(config, Box::new(MemoryPrefs::default()), Box::new(NoKeyring), |_| {}).await
}

fn draft(content: &str) -> ProposeRequest {
    ProposeRequest {
        content: Some(content.into()),
        tags: Some(vec!["drinks".into()]),
        contexts: Some(vec![ContextInput {
            snippet: "I always drink tea".into(),
            conversation_id: Some("ses_42".into()),
            message_id: Some("msg_7".into()),
            origin: None,
        }]),
        proposed_by: Some("claude-code".into()),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_accepted_proposal_becomes_the_memory_the_person_edited() {
    let team = Team::start().await;
    let core = core_for(&team).await;
    let id = team.propose(draft("Ada prefers tea")).await;

    let listed = core.list_proposals(&team.org).await.unwrap();
    assert_eq!(listed.proposals.len(), 1);
    let proposal = &listed.proposals[0];
    assert_eq!(
        (proposal.id.as_str(), proposal.status, proposal.action),
        (id.as_str(), ProposalStatus::Pending, ProposalAction::Save)
    );
    assert_eq!(proposal.proposed_by.as_deref(), Some("claude-code"));
    assert!(team.contents().await.is_empty(), "a proposal is not a memory");

    let edits = ProposalEdits { content: Some("Ada prefers green tea".into()), tags: Some(vec!["drinks".into(), "ada".into()]), ..Default::default() };
    let accepted = core.accept_proposal(&team.org, &id, edits).await.unwrap();
    assert_eq!(accepted.proposal.status, ProposalStatus::Accepted);
    let memory = accepted.memory.unwrap();
    assert_eq!(memory.content, "Ada prefers green tea");
    assert_eq!(memory.tags.as_deref(), Some(&["drinks".to_owned(), "ada".to_owned()][..]));
    assert_eq!(memory.confirmed_via, Some(ConfirmedVia::App));
    assert_eq!(memory.proposed_by.as_deref(), Some("claude-code"));
    assert_eq!(memory.contexts[0].snippet, "I always drink tea", "the citation is kept");
    assert_eq!(memory.contexts[0].citation.as_ref().unwrap().conversation_id.as_deref(), Some("ses_42"));
    assert_eq!(team.contents().await, ["Ada prefers green tea"]);
    let listed = core.list(&team.org, None, None).await.unwrap();
    assert_eq!(listed.memories[0].confirmed_via, Some(ConfirmedVia::App), "the panel sees how it was confirmed");

    assert!(core.list_proposals(&team.org).await.unwrap().proposals.is_empty(), "decided: out of the Inbox");
    let again = core.accept_proposal(&team.org, &id, ProposalEdits::default()).await.unwrap_err();
    assert_eq!(again.code, ErrorCode::ProposalNotPending);
    let unknown = core.reject_proposal(&team.org, "prop_01jdq0000000000000000000").await.unwrap_err();
    assert_eq!(unknown.code, ErrorCode::ProposalNotFound);
}

#[tokio::test(flavor = "multi_thread")]
async fn accepting_text_that_looks_secret_stores_nothing() {
    let team = Team::start().await;
    let core = core_for(&team).await;
    let id = team.propose(draft("The deploy key is kept in the vault")).await;
    let secret = "ghp_0123456789abcdefghijABCDEFGHIJ0123";
    for edits in [
        ProposalEdits { content: Some(format!("The deploy key is {secret}")), ..Default::default() },
        ProposalEdits { tags: Some(vec![secret.into()]), ..Default::default() },
    ] {
        let refused = core.accept_proposal(&team.org, &id, edits).await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::LooksLikeSecret);
        assert!(refused.message.contains("GitHub token"), "{}", refused.message);
    }
    assert!(team.contents().await.is_empty());
    let still = core.list_proposals(&team.org).await.unwrap();
    assert_eq!(still.proposals[0].status, ProposalStatus::Pending, "refused edits leave it waiting");
    // Unedited, the draft (checked when it was proposed) is accepted.
    core.accept_proposal(&team.org, &id, ProposalEdits::default()).await.unwrap();
    assert_eq!(team.contents().await, ["The deploy key is kept in the vault"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn rejecting_saves_nothing_and_a_delete_proposal_deletes_only_when_accepted() {
    let team = Team::start().await;
    let core = core_for(&team).await;
    let rejected = team.propose(draft("Not worth keeping")).await;
    let answer = core.reject_proposal(&team.org, &rejected).await.unwrap();
    assert_eq!(answer.proposal.status, ProposalStatus::Rejected);
    assert!(team.contents().await.is_empty());

    let kept = team.propose(draft("Ada's old address")).await;
    let memory = core.accept_proposal(&team.org, &kept, ProposalEdits::default()).await.unwrap().memory.unwrap();
    let delete = team
        .propose(ProposeRequest {
            action: Some(ProposalAction::Delete),
            memory_id: Some(memory.id.clone()),
            ..Default::default()
        })
        .await;
    let pending = core.list_proposals(&team.org).await.unwrap().proposals;
    assert_eq!(
        (pending[0].action, pending[0].content.as_str()),
        (ProposalAction::Delete, "Ada's old address"),
        "the memory that would go"
    );
    // Edits mean nothing to a delete; it is not checked as text either.
    let edits = ProposalEdits { content: Some("ignored".into()), ..Default::default() };
    core.accept_proposal(&team.org, &delete, edits).await.unwrap();
    assert!(team.contents().await.is_empty(), "deleted once the person accepted");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_watch_reports_new_proposals_once_and_not_those_waiting_at_start() {
    let team = Team::start().await;
    let core = core_for(&team).await;
    team.propose(draft("Waiting before the app started")).await;
    let mut watch = InboxWatch::new();
    let first = watch.check(&core).await.unwrap();
    assert_eq!((first.pending, first.new.len()), (1, 0), "what already waited is not news");
    assert_eq!(watch.check(&core).await, None, "nothing changed");

    let id = team.propose(draft("Ada prefers tea")).await;
    let change = watch.check(&core).await.unwrap();
    assert_eq!(change.pending, 2);
    assert_eq!(change.new.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), [id.as_str()]);
    assert_eq!(serde_json::to_value(&change).unwrap(), serde_json::json!({"pending": 2}), "the event payload");
    assert_eq!(watch.check(&core).await, None);

    core.reject_proposal(&team.org, &id).await.unwrap();
    let change = watch.check(&core).await.unwrap();
    assert_eq!((change.pending, change.new.len()), (1, 0), "a decision is a change, not news");

    core.shutdown().await;
    assert_eq!(watch.check(&core).await, None, "signed out: nothing to look at");
}

/// Duplicate hints through the desktop core: `find_similar` names the alike memory, a
/// pending proposal carries it, and accepting with `editInstead` rewrites that memory
/// instead of saving a second one.
#[tokio::test(flavor = "multi_thread")]
async fn alike_memories_are_named_and_a_save_can_change_one_instead() {
    let team = Team::start().await;
    let core = core_for(&team).await;
    let kept = team.propose(draft("Ada prefers black tea")).await;
    let old = core.accept_proposal(&team.org, &kept, ProposalEdits::default()).await.unwrap().memory.unwrap();

    let request = memory_bank_contract::wire::FindSimilarRequest { content: "Ada prefers green tea".into(), exclude_id: None };
    let found = core.find_similar(&team.org, request).await.unwrap().similar;
    assert_eq!(found.iter().map(|s| (s.id.as_str(), s.content.as_str())).collect::<Vec<_>>(), [(old.id.as_str(), "Ada prefers black tea")]);

    let id = team.propose(draft("Ada prefers green tea")).await;
    let pending = core.list_proposals(&team.org).await.unwrap().proposals;
    assert_eq!(pending[0].similar, found, "the Inbox shows the same hint");
    let edits = ProposalEdits { edit_instead: Some(old.id.clone()), ..Default::default() };
    let answer = core.accept_proposal(&team.org, &id, edits).await.unwrap();
    assert_eq!(answer.memory.map(|m| (m.id, m.content)), Some((old.id.clone(), "Ada prefers green tea".to_owned())));
    assert_eq!(team.contents().await, ["Ada prefers green tea"], "changed, not added");
}

#[tokio::test(flavor = "multi_thread")]
async fn hidden_secrets_and_control_characters_never_leave_the_app() {
    use memory_bank_contract::edit::EditMemoryRequest;
    use memory_bank_contract::wire::SaveMemoryRequest;

    let team = Team::start().await;
    let core = core_for(&team).await;
    let alike = core.save(&team.org, SaveMemoryRequest { content: "I use tabs for indentation".into(), ..Default::default() }).await.unwrap();
    let id = team.propose(draft("I use spaces for indentation")).await;
    let zero_width = "AKIAQWERTY\u{200b}UIOPASDFGH";
    let fullwidth: String = "AKIAQWERTYUIOPASDFGH".chars().map(|c| char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap()).collect();
    for edits in [
        ProposalEdits { content: Some(format!("key {zero_width}")), ..Default::default() },
        ProposalEdits { content: Some("鍵はAKIAQWERTYUIOPASDFGHです".to_string()), ..Default::default() },
        ProposalEdits { content: Some(format!("key {fullwidth}")), edit_instead: Some(alike.id.clone()), ..Default::default() },
    ] {
        let refused = core.accept_proposal(&team.org, &id, edits.clone()).await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::LooksLikeSecret, "{edits:?}: {}", refused.message);
    }
    let refused = core.save(&team.org, SaveMemoryRequest { content: "nul\u{0}inside".into(), ..Default::default() }).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidRequest);
    assert!(refused.message.contains("U+0000"), "{}", refused.message);
    let edit = EditMemoryRequest { content: Some(format!("now {fullwidth}")), ..Default::default() };
    assert_eq!(core.edit_memory(&team.org, &alike.id, edit).await.unwrap_err().code, ErrorCode::LooksLikeSecret);
    assert_eq!(team.contents().await, ["I use tabs for indentation"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_changed_memory_is_edited_or_deleted_only_once_the_person_saw_it() {
    use memory_bank_contract::edit::EditMemoryRequest;
    use memory_bank_contract::wire::{MemoryVersion, SaveMemoryRequest};

    let team = Team::start().await;
    let core = core_for(&team).await;
    let memory = core.save(&team.org, SaveMemoryRequest { content: "Standup is at 9:30".into(), ..Default::default() }).await.unwrap();
    let id = team
        .propose(ProposeRequest {
            action: Some(ProposalAction::Edit),
            memory_id: Some(memory.id.clone()),
            content: Some("Standup is at 10:00".into()),
            ..Default::default()
        })
        .await;
    let reworded = EditMemoryRequest { content: Some("Standup is at 9:45".into()), ..Default::default() };
    core.edit_memory(&team.org, &memory.id, reworded).await.unwrap();

    let listed = core.list_proposals(&team.org).await.unwrap().proposals;
    assert_eq!(listed[0].proposed_against.as_ref().unwrap().content, "Standup is at 9:30");
    assert_eq!(listed[0].memory_now.as_ref().unwrap().content, "Standup is at 9:45", "the Inbox shows both");
    let refused = core.accept_proposal(&team.org, &id, ProposalEdits::default()).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::MemoryChanged, "{}", refused.message);
    assert_eq!(team.contents().await, ["Standup is at 9:45"]);
    let seen = ProposalEdits { memory_now: Some(MemoryVersion { content: "Standup is at 9:45".into(), tags: None }), ..Default::default() };
    core.accept_proposal(&team.org, &id, seen).await.unwrap();
    assert_eq!(team.contents().await, ["Standup is at 10:00"]);
}
