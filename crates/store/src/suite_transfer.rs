//! The shared suite's export and import cases: an export imported back exports the
//! same, ids and timestamps kept; importing twice changes nothing; overwrite replaces;
//! an id someone else has is refused without touching their memory.

use memory_bank_contract::edit::{validate_edit, EditMemoryRequest};
use memory_bank_contract::transfer::{ExportedMemory, ImportReport, OnConflict, ValidImport};
use memory_bank_contract::wire::{ConfirmedVia, ContextInput, SaveMemoryRequest};

use crate::suite::{list_all, request, save, search, world, Fixture, World};

async fn export_all(w: &World, user: &str) -> Vec<ExportedMemory> {
    let mut all = Vec::new();
    let mut cursor = None;
    loop {
        let (page, next) = w.bank.export_page(user, cursor.as_ref()).await.unwrap();
        all.extend(page);
        match next {
            Some(next) => cursor = Some(next),
            None => return all,
        }
    }
}

fn lines(exported: &[ExportedMemory]) -> Vec<ValidImport> {
    exported.iter().enumerate().map(|(i, m)| ValidImport { line: i + 1, memory: m.clone() }).collect()
}

async fn import(w: &World, user: &str, exported: &[ExportedMemory], on_conflict: OnConflict) -> ImportReport {
    w.bank.import(user, &w.org, lines(exported), on_conflict, ImportReport::default()).await.unwrap()
}

async fn seed(w: &World) {
    let contexts = vec![ContextInput { snippet: "from the kitchen".into(), message_id: Some("m9".into()), ..Default::default() }];
    save(
        w,
        &w.alice,
        SaveMemoryRequest { tags: Some(vec!["tea".into()]), contexts: Some(contexts), ..request("green tea at noon") },
    )
    .await;
    w.clock.advance(1_000);
    let edited = save(w, &w.alice, request("first wording of a plan")).await;
    w.clock.advance(1_000);
    let edit = validate_edit(EditMemoryRequest {
        content: Some("second wording of a plan".into()),
        tags: None,
        confirmed_via: Some(ConfirmedVia::Cli),
    })
    .unwrap();
    w.bank.edit(&w.alice, &edited.id, edit).await.unwrap().unwrap();
    for i in 0..3 {
        w.clock.advance(1_000);
        save(w, &w.alice, request(&format!("plain memory {i}"))).await;
    }
}

/// Export, delete everything, import: the second export equals the first, search works.
pub async fn an_export_imported_back_exports_the_same(f: &dyn Fixture) {
    let w = world(f).await;
    seed(&w).await;
    let before = export_all(&w, &w.alice).await;
    assert_eq!(before.len(), 5);
    assert_eq!(before.iter().map(|m| m.revisions.len()).sum::<usize>(), 1);
    for memory in &before {
        assert!(w.bank.delete(&w.alice, &memory.id).await.unwrap());
    }
    let report = import(&w, &w.alice, &before, OnConflict::Skip).await;
    assert_eq!((report.imported, report.skipped, report.failed_count), (5, 0, 0));
    let after = export_all(&w, &w.alice).await;
    assert_eq!(serde_json::to_string(&after).unwrap(), serde_json::to_string(&before).unwrap());
    assert_eq!(search(&w, &w.alice, "kitchen").await, ["green tea at noon"]);
    assert_eq!(search(&w, &w.alice, "second").await, ["second wording of a plan"]);
    assert!(search(&w, &w.alice, "first").await.is_empty(), "a revision's text is history, not the memory");
}

/// The same file twice changes nothing; `overwrite` replaces what is there.
pub async fn importing_twice_changes_nothing_and_overwrite_replaces(f: &dyn Fixture) {
    let w = world(f).await;
    seed(&w).await;
    let exported = export_all(&w, &w.alice).await;
    let report = import(&w, &w.alice, &exported, OnConflict::Skip).await;
    assert_eq!((report.imported, report.skipped), (0, 5));
    assert_eq!(export_all(&w, &w.alice).await, exported);

    let mut changed = exported.clone();
    changed[0].content = "replaced by the file".into();
    changed[0].revisions.clear();
    let report = import(&w, &w.alice, &changed[..1], OnConflict::Overwrite).await;
    assert_eq!((report.imported, report.overwritten), (0, 1));
    let now = export_all(&w, &w.alice).await;
    assert_eq!(now[0], changed[0]);
    assert_eq!(list_all(&w, &w.alice).await.len(), 5);
    assert_eq!(search(&w, &w.alice, "replaced").await, ["replaced by the file"]);
}

/// Another user importing someone's export gets `id_in_use` per line; nothing changes.
pub async fn an_id_another_user_has_is_refused_and_changes_nothing(f: &dyn Fixture) {
    let w = world(f).await;
    seed(&w).await;
    let exported = export_all(&w, &w.alice).await;
    for on_conflict in [OnConflict::Skip, OnConflict::Overwrite] {
        let report = import(&w, &w.bob, &exported, on_conflict).await;
        assert_eq!((report.imported, report.failed_count), (0, 5));
        assert!(report.failed.iter().all(|f| f.error == "id_in_use"), "{report:?}");
    }
    assert!(list_all(&w, &w.bob).await.is_empty());
    assert_eq!(export_all(&w, &w.alice).await, exported);
}
