//! Suite cases for the org Inbox (`docs/teams.md`): proposals to a team bank wait for
//! its admins and owners, members and agents propose, and every change is in the audit
//! log with ids and lengths only.

use memory_bank_contract::edit::{validate_edit, EditMemoryRequest};
use memory_bank_contract::teams::{AuditAction, BankScope, OrgPolicy, Role, TeamRefusal};
use memory_bank_contract::validate::{validate_propose, validate_save, Cursor, ValidSearch};
use memory_bank_contract::wire::{
    AcceptProposalRequest, Proposal, ProposalAction, ProposalListResponse, ProposalStatus, ProposeRequest, SaveMemoryRequest, Scope,
};

use crate::suite::{request, save, world, Fixture, World};
use crate::{ProposalError, Saved, StoreError, TokenKind};

fn to_team(content: &str) -> ProposeRequest {
    ProposeRequest { content: Some(content.into()), scope: Some(Scope::Org), proposed_by: Some("codex".into()), ..Default::default() }
}

async fn propose(w: &World, user: &str, request: ProposeRequest, kind: TokenKind) -> Result<Proposal, ProposalError> {
    w.bank.propose_as(user, &w.org, validate_propose(request).unwrap(), kind).await
}

async fn team_contents(w: &World, user: &str, query: &str) -> Vec<String> {
    let banks = w.bank.banks_for(user, &w.org, BankScope::Team).await.unwrap();
    let search = ValidSearch { query: query.into(), limit: 50, words_only: false };
    let mut found: Vec<String> = w.bank.search_in(&banks, &search).await.unwrap().into_iter().map(|h| h.memory.content).collect();
    found.sort();
    found
}

fn needs_admin<T: std::fmt::Debug>(result: Result<T, ProposalError>) {
    assert!(
        matches!(result, Err(ProposalError::Store(StoreError::TeamRefused(TeamRefusal::NeedsAdmin)))),
        "a member is refused: {result:?}"
    );
}

/// (action, actor, memory, proposal, length) of the org's audit log, oldest first.
async fn audit(w: &World) -> Vec<(AuditAction, String, Option<String>, Option<String>, Option<u32>)> {
    let mut lines = w.bank.org_audit(&w.org, None, 200).await.unwrap();
    lines.reverse();
    lines.into_iter().map(|l| (l.action, l.actor_id, l.memory_id, l.proposal_id, l.content_chars)).collect()
}

/// A member's proposal to the team bank waits in the org Inbox, not in anyone's own:
/// its admins and owners see and decide it; the member sees their own proposal but
/// cannot accept or reject it; another member does not see it at all. Accepting saves a
/// team memory whose author is the member and whose confirmer is the admin, and the
/// log says proposed, accepted and saved, each with ids and lengths.
pub async fn team_proposals_wait_in_the_org_inbox_for_an_admin(f: &dyn Fixture) {
    let w = world(f).await; // alice owns Acme, bob is a member
    let carol = w.bank.add_user("carol@example.com").await.unwrap().id;
    w.bank.add_member(&w.org, &carol).await.unwrap();

    let proposal = propose(&w, &w.bob, to_team("Staging deploys need the VPN"), TokenKind::Agent).await.unwrap();
    assert_eq!((proposal.scope, proposal.proposer.as_deref()), (Scope::Org, Some(w.bob.as_str())));
    assert_eq!(proposal.status, ProposalStatus::Pending);
    assert!(w.bank.list_proposals(&w.bob, None, None, None).await.unwrap().proposals.is_empty(), "not in Bob's own Inbox");
    assert!(w.bank.list_proposals(&w.alice, None, None, None).await.unwrap().proposals.is_empty(), "nor in Alice's");
    let inbox = w.bank.list_team_proposals(&w.alice, &w.org, Some(ProposalStatus::Pending), None, None).await.unwrap();
    assert_eq!(inbox.proposals, std::slice::from_ref(&proposal), "the org Inbox holds it");
    let bobs = w.bank.list_team_proposals(&w.bob, &w.org, None, None, None).await.unwrap();
    assert_eq!((bobs.proposals, bobs.your_role), (vec![proposal.clone()], Some(Role::Member)), "the proposer follows it in his list");
    let carols = w.bank.list_team_proposals(&carol, &w.org, None, None, None).await.unwrap();
    assert!(carols.proposals.is_empty(), "another member's is not in hers");

    assert_eq!(w.bank.proposal_for(&w.bob, &w.org, &proposal.id).await.unwrap(), proposal, "the proposer follows it");
    assert_eq!(w.bank.proposal_for(&w.alice, &w.org, &proposal.id).await.unwrap(), proposal);
    assert!(matches!(w.bank.proposal_for(&carol, &w.org, &proposal.id).await, Err(ProposalError::NotFound)), "another member's");
    assert!(matches!(w.bank.proposal(&w.bob, &proposal.id).await, Err(ProposalError::NotFound)), "not a personal proposal");

    needs_admin(w.bank.accept_proposal_for(&w.bob, &w.org, &proposal.id, AcceptProposalRequest::default()).await);
    needs_admin(w.bank.reject_proposal_for(&w.bob, &w.org, &proposal.id).await);
    let carols = w.bank.accept_proposal_for(&carol, &w.org, &proposal.id, AcceptProposalRequest::default()).await;
    assert!(matches!(carols, Err(ProposalError::NotFound)), "{carols:?}");
    assert!(team_contents(&w, &w.alice, "VPN").await.is_empty(), "nothing saved by the refusals");

    w.clock.advance(5);
    let accepted = w.bank.accept_proposal_for(&w.alice, &w.org, &proposal.id, AcceptProposalRequest::default()).await.unwrap();
    let memory = accepted.memory.expect("a save makes a memory");
    assert_eq!((memory.scope, memory.org_id.as_str()), (Scope::Org, w.org.as_str()));
    assert_eq!((memory.saved_by.as_deref(), memory.confirmed_by.as_deref()), (Some(w.bob.as_str()), Some(w.alice.as_str())));
    assert_eq!(memory.proposed_by.as_deref(), Some("codex"));
    assert_eq!(accepted.proposal.status, ProposalStatus::Accepted);
    assert_eq!(team_contents(&w, &carol, "VPN").await, ["Staging deploys need the VPN"], "every member reads it");
    assert!(w.bank.memory(&w.bob, &memory.id).await.unwrap().is_none(), "a team memory, not Bob's own");
    let again = w.bank.accept_proposal_for(&w.alice, &w.org, &proposal.id, AcceptProposalRequest::default()).await;
    assert!(matches!(again, Err(ProposalError::NotPending(ProposalStatus::Accepted))), "{again:?}");

    let (alice, bob, id, pid) = (w.alice.clone(), w.bob.clone(), Some(memory.id.clone()), Some(proposal.id.clone()));
    assert_eq!(
        audit(&w).await,
        [
            (AuditAction::Proposed, bob, None, pid.clone(), Some(28)),
            (AuditAction::Accepted, alice.clone(), id.clone(), pid, None),
            (AuditAction::Saved, alice, id, None, Some(28)),
        ]
    );
}

/// A team memory changes only through an admin or owner: a member's direct edit,
/// restore or delete is refused and changes nothing (its history they read); their proposals (an edit or delete of a team
/// memory goes to the org Inbox by itself) change it once accepted, a rejected one
/// never. An admin's own edit and delete are logged too, and an owner still cannot
/// touch a member's personal memory.
pub async fn team_edits_and_deletes_go_through_an_admin_or_the_org_inbox(f: &dyn Fixture) {
    let w = world(f).await;
    let fact = w.bank.save_to_team(&w.alice, &w.org, validate_save(request("Invoices belong to billing")).unwrap()).await.unwrap();
    let edit = |content: &str| validate_edit(EditMemoryRequest { content: Some(content.into()), ..Default::default() }).unwrap();

    let refused = w.bank.edit_for(&w.bob, &w.org, &fact.id, edit("Invoices belong to sales")).await;
    assert!(matches!(refused, Err(StoreError::TeamRefused(TeamRefusal::NeedsAdmin))), "{refused:?}");
    let refused = w.bank.delete_for(&w.bob, &w.org, &fact.id).await;
    assert!(matches!(refused, Err(StoreError::TeamRefused(TeamRefusal::NeedsAdmin))), "{refused:?}");
    assert_eq!(team_contents(&w, &w.bob, "invoices").await, ["Invoices belong to billing"], "unchanged");

    let rewording = ProposeRequest {
        action: Some(ProposalAction::Edit),
        memory_id: Some(fact.id.clone()),
        content: Some("Invoices belong to the billing service".into()),
        ..Default::default()
    };
    let proposed = propose(&w, &w.bob, rewording, TokenKind::Agent).await.unwrap();
    assert_eq!((proposed.scope, proposed.action), (Scope::Org, ProposalAction::Edit), "a team memory's edit goes to the org Inbox");
    w.bank.accept_proposal_for(&w.alice, &w.org, &proposed.id, AcceptProposalRequest::default()).await.unwrap();
    assert_eq!(team_contents(&w, &w.bob, "invoices").await, ["Invoices belong to the billing service"]);

    let delete = ProposeRequest { action: Some(ProposalAction::Delete), memory_id: Some(fact.id.clone()), ..Default::default() };
    let rejected = propose(&w, &w.bob, delete.clone(), TokenKind::Agent).await.unwrap();
    w.bank.reject_proposal_for(&w.alice, &w.org, &rejected.id).await.unwrap();
    assert_eq!(team_contents(&w, &w.bob, "invoices").await.len(), 1, "a rejected delete deletes nothing");
    let accepted = propose(&w, &w.bob, delete, TokenKind::Agent).await.unwrap();
    w.bank.accept_proposal_for(&w.alice, &w.org, &accepted.id, AcceptProposalRequest::default()).await.unwrap();
    assert!(team_contents(&w, &w.bob, "invoices").await.is_empty(), "deleted once accepted");

    let direct = w.bank.save_to_team(&w.alice, &w.org, validate_save(request("Releases ship on Tuesdays")).unwrap()).await.unwrap();
    let edited = w.bank.edit_for(&w.alice, &w.org, &direct.id, edit("Releases ship on Wednesdays")).await.unwrap().unwrap();
    assert_eq!((edited.content.as_str(), edited.scope), ("Releases ship on Wednesdays", Scope::Org));
    // Its history: every member reads it, admins and owners restore from it.
    let history = w.bank.revisions_for(&w.bob, &w.org, &direct.id).await.unwrap().expect("a member reads a team memory's history");
    assert_eq!(history.iter().map(|r| r.content.as_str()).collect::<Vec<_>>(), ["Releases ship on Tuesdays"]);
    assert!(w.bank.revisions(&w.bob, &direct.id).await.unwrap().is_none(), "not through the personal bank");
    let refused = w.bank.restore_revision_for(&w.bob, &w.org, &direct.id, &history[0].id, None).await;
    assert!(matches!(refused, Err(StoreError::TeamRefused(TeamRefusal::NeedsAdmin))), "{refused:?}");
    let restored = w.bank.restore_revision_for(&w.alice, &w.org, &direct.id, &history[0].id, None).await.unwrap().unwrap();
    assert_eq!(restored.content, "Releases ship on Tuesdays");
    assert!(w.bank.delete_for(&w.alice, &w.org, &direct.id).await.unwrap());
    assert!(!w.bank.delete_for(&w.alice, &w.org, &direct.id).await.unwrap(), "gone");

    let bobs_own = save(&w, &w.bob, request("Bob's private note")).await;
    assert!(w.bank.edit_for(&w.alice, &w.org, &bobs_own.id, edit("Read by the owner")).await.unwrap().is_none(), "not hers");
    assert!(!w.bank.delete_for(&w.alice, &w.org, &bobs_own.id).await.unwrap());
    assert_eq!(w.bank.memory(&w.bob, &bobs_own.id).await.unwrap().unwrap().content, "Bob's private note");
    assert!(w.bank.edit_for(&w.bob, &w.org, &bobs_own.id, edit("Bob's own words")).await.unwrap().is_some(), "his own, as ever");

    let actions: Vec<(AuditAction, String)> = audit(&w).await.into_iter().map(|l| (l.0, l.1)).collect();
    let (a, b) = (w.alice.clone(), w.bob.clone());
    assert_eq!(
        actions,
        [
            (AuditAction::Saved, a.clone()),
            (AuditAction::Proposed, b.clone()),
            (AuditAction::Accepted, a.clone()),
            (AuditAction::Edited, a.clone()),
            (AuditAction::Proposed, b.clone()),
            (AuditAction::Rejected, a.clone()),
            (AuditAction::Proposed, b),
            (AuditAction::Accepted, a.clone()),
            (AuditAction::Deleted, a.clone()),
            (AuditAction::Saved, a.clone()),
            (AuditAction::Edited, a.clone()),
            (AuditAction::Edited, a.clone()),
            (AuditAction::Deleted, a),
        ],
        "every team change, and no personal one"
    );
}

/// The org's policy over proposals: with `agents_may_propose` off an agent's team
/// proposal is refused while a person's and any personal one go through; the team
/// bank's cap refuses the accept past it and leaves the proposal pending; with memory
/// off nothing is proposed or listed; someone outside the org finds nothing.
pub async fn org_policy_governs_team_proposals(f: &dyn Fixture) {
    let w = world(f).await;
    w.bank.set_org_policy(&w.org, &OrgPolicy { agents_may_propose: false, ..OrgPolicy::default() }).await.unwrap();
    let refused = propose(&w, &w.bob, to_team("From an agent"), TokenKind::Agent).await;
    assert!(
        matches!(refused, Err(ProposalError::Store(StoreError::TeamRefused(TeamRefusal::AgentsMayNotPropose)))),
        "{refused:?}"
    );
    let personal = ProposeRequest { content: Some("Bob's own, from his agent".into()), ..Default::default() };
    assert_eq!(propose(&w, &w.bob, personal, TokenKind::Agent).await.unwrap().scope, Scope::User);
    let by_hand = propose(&w, &w.bob, to_team("From Bob himself"), TokenKind::Full).await.unwrap();
    assert_eq!(w.bank.list_team_proposals(&w.alice, &w.org, None, None, None).await.unwrap().proposals.len(), 1);

    w.bank.set_org_policy(&w.org, &OrgPolicy { max_memories: Some(0), ..OrgPolicy::default() }).await.unwrap();
    let full = w.bank.accept_proposal_for(&w.alice, &w.org, &by_hand.id, AcceptProposalRequest::default()).await;
    assert!(matches!(full, Err(ProposalError::Store(StoreError::QuotaExceeded { limit: 0 }))), "{full:?}");
    assert_eq!(w.bank.proposal_for(&w.alice, &w.org, &by_hand.id).await.unwrap().status, ProposalStatus::Pending);

    w.bank.set_org_policy(&w.org, &OrgPolicy { memory_enabled: false, ..OrgPolicy::default() }).await.unwrap();
    let off = propose(&w, &w.bob, ProposeRequest { content: Some("While off".into()), ..Default::default() }, TokenKind::Agent).await;
    assert!(matches!(off, Err(ProposalError::Store(StoreError::TeamRefused(TeamRefusal::OrgMemoryDisabled)))), "{off:?}");
    let off = w.bank.list_proposals_for(&w.bob, &w.org, None, None, None).await;
    assert!(matches!(off, Err(StoreError::TeamRefused(TeamRefusal::OrgMemoryDisabled))), "{off:?}");

    w.bank.set_org_policy(&w.org, &OrgPolicy::default()).await.unwrap();
    let eve = w.bank.add_user("eve@example.com").await.unwrap().id;
    let outside = w.bank.proposal_for(&eve, &w.org, &by_hand.id).await;
    assert!(matches!(outside, Err(ProposalError::Store(StoreError::NotFound(_)))), "{outside:?}");
    w.bank.set_member_role(&w.org, &w.bob, Role::Admin).await.unwrap();
    let accepted = w.bank.accept_proposal_for(&w.bob, &w.org, &by_hand.id, AcceptProposalRequest::default()).await.unwrap();
    assert_eq!(accepted.memory.unwrap().confirmed_by.as_deref(), Some(w.bob.as_str()), "an admin may accept their own");
}

/// A member's view of the org Inbox is their own share of it: the team proposals they
/// made, by hand, by a team save or through their agents (the person is the proposer),
/// pending or decided, newest first and paged; never another member's nor a personal
/// proposal. An admin or owner lists all of it. The answer says whose view it is, and the
/// member still decides nothing; someone outside the org lists nothing.
pub async fn members_list_only_the_team_proposals_they_made(f: &dyn Fixture) {
    let w = world(f).await; // alice owns Acme, bob is a member
    let carol = w.bank.add_user("carol@example.com").await.unwrap().id;
    w.bank.add_member(&w.org, &carol).await.unwrap();
    let by_agent = propose(&w, &w.bob, to_team("Staging deploys need the VPN"), TokenKind::Agent).await.unwrap();
    w.clock.advance(1);
    let by_hand = propose(&w, &w.bob, to_team("Invoices belong to billing"), TokenKind::Full).await.unwrap();
    w.clock.advance(1);
    let carols = propose(&w, &carol, to_team("Releases ship on Tuesdays"), TokenKind::Agent).await.unwrap();
    w.clock.advance(1);
    propose(&w, &w.bob, ProposeRequest { content: Some("Bob's own note".into()), ..Default::default() }, TokenKind::Agent).await.unwrap();
    w.clock.advance(1);
    let team_save = SaveMemoryRequest { scope: Some(Scope::Org), ..request("The VPN config lives in the wiki") };
    let Saved::Proposed(saved) = w.bank.save_or_propose(&w.bob, &w.org, validate_save(team_save).unwrap()).await.unwrap() else {
        panic!("a member's team save is a proposal")
    };
    let ids = |listed: &ProposalListResponse| listed.proposals.iter().map(|p| p.id.clone()).collect::<Vec<_>>();
    let list = |user: String, status: Option<ProposalStatus>| {
        let bank = &w.bank;
        let org = w.org.clone();
        async move { bank.list_team_proposals(&user, &org, status, None, None).await.unwrap() }
    };

    let bobs = list(w.bob.clone(), None).await;
    assert_eq!(ids(&bobs), [saved.id.clone(), by_hand.id.clone(), by_agent.id.clone()], "his, newest first");
    assert!(bobs.proposals.iter().all(|p| p.proposer.as_deref() == Some(w.bob.as_str()) && p.scope == Scope::Org));
    assert_eq!(bobs.your_role, Some(Role::Member));
    let alices = list(w.alice.clone(), None).await;
    assert_eq!(ids(&alices), [saved.id.clone(), carols.id.clone(), by_hand.id.clone(), by_agent.id.clone()], "the whole org Inbox");
    assert_eq!(alices.your_role, Some(Role::Owner));
    assert_eq!(ids(&list(carol.clone(), None).await), [carols.id.as_str()]);

    // Paged like any Inbox.
    let first = w.bank.list_team_proposals(&w.bob, &w.org, None, Some(2), None).await.unwrap();
    let cursor = Cursor::decode_for("prop", first.next_cursor.as_deref().expect("a second page")).unwrap();
    let second = w.bank.list_team_proposals(&w.bob, &w.org, None, Some(2), Some(&cursor)).await.unwrap();
    assert!(second.next_cursor.is_none());
    assert_eq!([ids(&first), ids(&second)].concat(), ids(&bobs));

    // Decided ones stay in his list, with how they were decided; he decides none.
    needs_admin(w.bank.reject_proposal_for(&w.bob, &w.org, &saved.id).await);
    needs_admin(w.bank.accept_proposal_for(&w.bob, &w.org, &saved.id, AcceptProposalRequest::default()).await);
    w.bank.accept_proposal_for(&w.alice, &w.org, &by_agent.id, AcceptProposalRequest::default()).await.unwrap();
    w.bank.reject_proposal_for(&w.alice, &w.org, &by_hand.id).await.unwrap();
    let statuses: Vec<ProposalStatus> = list(w.bob.clone(), None).await.proposals.iter().map(|p| p.status).collect();
    assert_eq!(statuses, [ProposalStatus::Pending, ProposalStatus::Rejected, ProposalStatus::Accepted]);
    assert_eq!(ids(&list(w.bob.clone(), Some(ProposalStatus::Pending)).await), [saved.id.as_str()]);
    assert_eq!(ids(&list(w.bob.clone(), Some(ProposalStatus::Accepted)).await), [by_agent.id.as_str()]);
    assert_eq!(ids(&list(w.bob.clone(), Some(ProposalStatus::Rejected)).await), [by_hand.id.as_str()]);
    assert_eq!(ids(&list(w.alice.clone(), Some(ProposalStatus::Pending)).await), [saved.id.clone(), carols.id.clone()]);

    // Made an admin, he sees the whole org Inbox; someone outside the org, nothing.
    w.bank.set_member_role(&w.org, &w.bob, Role::Admin).await.unwrap();
    assert_eq!(list(w.bob.clone(), None).await.proposals.len(), 4);
    let eve = w.bank.add_user("eve@example.com").await.unwrap().id;
    let outside = w.bank.list_team_proposals(&eve, &w.org, None, None, None).await;
    assert!(matches!(outside, Err(StoreError::NotFound(_))), "{outside:?}");
}
