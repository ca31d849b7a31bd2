//! Suite case for a bank's count, what the quotas are checked against: however a store
//! keeps it (counted on demand, or kept beside the rows), every write path leaves it
//! equal to the rows the bank lists.

use memory_bank_contract::edit::{validate_edit, EditMemoryRequest};
use memory_bank_contract::transfer::OnConflict;
use memory_bank_contract::validate::{validate_propose, validate_save};
use memory_bank_contract::wire::{AcceptProposalRequest, ProposalAction, ProposeRequest, Scope};

use crate::suite::{request, save, world, Fixture, World};
use crate::{terms, BankKey, ImportRow, NewMemory, Offboard, TokenKind};

/// The rows the bank lists.
async fn listed(w: &World, bank: BankKey<'_>) -> u64 {
    w.bank.store().list_memories(bank, None, 1_000).await.unwrap().len() as u64
}

/// Each bank's count is what it lists, and what counting its rows gives.
async fn assert_counted(w: &World, after: &str, expected: [u64; 3]) {
    let banks = [BankKey::Personal(&w.alice), BankKey::Personal(&w.bob), BankKey::Team(&w.org)];
    for (bank, expected) in banks.into_iter().zip(expected) {
        let store = w.bank.store();
        let (kept, recounted, rows) = (store.count_memories(bank).await.unwrap(), store.recount_memories(bank).await.unwrap(), listed(w, bank).await);
        assert_eq!((kept, recounted, rows), (expected, expected, expected), "after {after}, {bank:?}: kept, recounted, listed");
    }
}

fn proposal_request(action: ProposalAction, memory_id: Option<&str>, content: Option<&str>, scope: Option<Scope>) -> ProposeRequest {
    ProposeRequest { action: Some(action), memory_id: memory_id.map(Into::into), content: content.map(Into::into), scope, ..Default::default() }
}

/// Saves, team saves, bulk inserts, accepted proposals (personal and team; saves and
/// deletes), edits, deletes, imports (new and overwriting) and offboarding: after each,
/// every bank's count is its rows.
pub async fn every_write_path_keeps_each_bank_s_count(f: &dyn Fixture) {
    let w = world(f).await; // alice owns Acme, bob is a member
    assert_counted(&w, "nothing", [0, 0, 0]).await;
    let first = save(&w, &w.alice, request("Deploys need the staging VPN")).await;
    save(&w, &w.alice, request("The billing service owns invoices")).await;
    save(&w, &w.bob, request("Bob keeps the compiler notes")).await;
    assert_counted(&w, "saves", [2, 1, 0]).await;

    let team = w.bank.save_to_team(&w.alice, &w.org, validate_save(request("Releases ship on Tuesdays")).unwrap()).await.unwrap();
    w.bank.save_to_team(&w.alice, &w.org, validate_save(request("Staging has its own VPN")).unwrap()).await.unwrap();
    assert_counted(&w, "team saves", [2, 1, 2]).await;

    let bulk: Vec<NewMemory> = (0..7)
        .map(|i| NewMemory::plain(if i < 5 { &w.alice } else { &w.bob }, &w.org, format!("bulk line {i}"), 1_764_000_000_000 + i))
        .collect();
    w.bank.store().insert_memories(&bulk).await.unwrap();
    assert_counted(&w, "a bulk insert", [7, 3, 2]).await;

    let proposed = w.bank.propose(&w.alice, &w.org, validate_propose(proposal_request(ProposalAction::Save, None, Some("Ada prefers tea"), None)).unwrap()).await.unwrap();
    w.bank.accept_proposal(&w.alice, &proposed.id, AcceptProposalRequest::default()).await.unwrap();
    let delete = w.bank.propose(&w.alice, &w.org, validate_propose(proposal_request(ProposalAction::Delete, Some(&first.id), None, None)).unwrap()).await.unwrap();
    w.bank.accept_proposal(&w.alice, &delete.id, AcceptProposalRequest::default()).await.unwrap();
    assert_counted(&w, "accepted proposals, a save and a delete", [7, 3, 2]).await;

    let to_team = proposal_request(ProposalAction::Save, None, Some("Invoices belong to billing"), Some(Scope::Org));
    let proposed = w.bank.propose_as(&w.bob, &w.org, validate_propose(to_team).unwrap(), TokenKind::Agent).await.unwrap();
    w.bank.accept_proposal_for(&w.alice, &w.org, &proposed.id, AcceptProposalRequest::default()).await.unwrap();
    assert_counted(&w, "an accepted team save", [7, 3, 3]).await;
    let delete = w.bank.propose_as(&w.bob, &w.org, validate_propose(proposal_request(ProposalAction::Delete, Some(&team.id), None, None)).unwrap(), TokenKind::Agent).await.unwrap();
    w.bank.accept_proposal_for(&w.alice, &w.org, &delete.id, AcceptProposalRequest::default()).await.unwrap();
    assert_counted(&w, "an accepted team delete", [7, 3, 2]).await;

    let edit = validate_edit(EditMemoryRequest { content: Some("Bulk line, reworded".into()), ..Default::default() }).unwrap();
    w.bank.edit(&w.alice, &bulk[0].id, edit).await.unwrap().unwrap();
    assert_counted(&w, "an edit", [7, 3, 2]).await;
    assert!(w.bank.delete(&w.alice, &bulk[1].id).await.unwrap());
    assert!(!w.bank.delete(&w.alice, &bulk[1].id).await.unwrap(), "gone already: counted out once");
    assert_counted(&w, "a delete", [6, 3, 2]).await;

    // Alice's export: one line imported back over its memory, one whose memory was deleted.
    let (page, _) = w.bank.export_page(&w.alice, None).await.unwrap();
    let again = page.iter().find(|m| m.id == bulk[2].id).unwrap().clone();
    assert!(w.bank.delete(&w.alice, &bulk[2].id).await.unwrap());
    let over = page.iter().find(|m| m.id == bulk[3].id).unwrap().clone();
    let rows: Vec<ImportRow> = [again, over]
        .into_iter()
        .map(|memory| ImportRow { search_text: terms::memory_index_text(&w.alice, &memory.content, &[], std::iter::empty()), memory })
        .collect();
    w.bank.store().import_memories(&w.alice, &w.org, &rows, OnConflict::Overwrite).await.unwrap();
    assert_counted(&w, "an import of a new line and an overwrite", [6, 3, 2]).await;

    w.bank.offboard(Offboard::User(&w.bob), 2).await.unwrap();
    assert_counted(&w, "offboarding a member", [6, 0, 2]).await;
    w.bank.offboard(Offboard::Org(&w.org), 4).await.unwrap();
    assert_counted(&w, "offboarding the org", [0, 0, 0]).await;
}
