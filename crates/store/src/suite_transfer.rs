//! The shared suite's export and import cases: an export imported back exports the
//! same but for its provenance (the file's claim is kept as `importedFrom`), and an
//! export of imported memories byte for byte; importing twice changes nothing;
//! overwrite replaces; an id someone else has is imported under a new id without
//! touching their memory; a repeated id is the line's problem; the cap is per line.

use memory_bank_contract::edit::{validate_edit, EditMemoryRequest};
use memory_bank_contract::transfer::{parse_import_line, ExportedMemory, ImportReport, OnConflict};
use memory_bank_contract::wire::{ConfirmedVia, ContextInput, ImportedFrom, SaveMemoryRequest};

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

fn file(exported: &[ExportedMemory]) -> String {
    exported.iter().map(|m| line_text(m) + "\n").collect()
}

async fn import(w: &World, user: &str, exported: &[ExportedMemory], on_conflict: OnConflict) -> ImportReport {
    import_text(w, &w.bank, user, &file(exported), on_conflict).await
}

/// `exported` as an import stores it: confirmed by `import`, with what the line said
/// about its confirmation (and its revisions') kept as the file's claim.
fn as_imported(exported: &ExportedMemory) -> ExportedMemory {
    let claim = |confirmed_via: Option<ConfirmedVia>, proposed_by: Option<String>| {
        (confirmed_via.is_some() || proposed_by.is_some()).then_some(ImportedFrom { confirmed_via, proposed_by })
    };
    let mut stored = exported.clone();
    stored.imported_from = claim(stored.confirmed_via.take(), stored.proposed_by.take());
    stored.confirmed_via = Some(ConfirmedVia::Import);
    for revision in &mut stored.revisions {
        revision.imported_from = claim(revision.revision.confirmed_via.take(), None);
        revision.revision.confirmed_via = Some(ConfirmedVia::Import);
    }
    stored
}

async fn seed(w: &World) {
    let contexts = vec![ContextInput { snippet: "from the kitchen".into(), message_id: Some("m9".into()), ..Default::default() }];
    save(
        w,
        &w.alice,
        SaveMemoryRequest {
            tags: Some(vec!["tea".into()]),
            contexts: Some(contexts),
            confirmed_via: Some(ConfirmedVia::App),
            ..request("green tea at noon")
        },
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

/// Export, delete everything, import: the second export is the first with every
/// confirmation moved into `importedFrom` (an import confirms nothing), search works;
/// and that export, deleted and imported again, exports byte for byte the same.
pub async fn an_export_imported_back_exports_the_same(f: &dyn Fixture) {
    let w = world(f).await;
    seed(&w).await;
    let before = export_all(&w, &w.alice).await;
    assert_eq!(before.len(), 5);
    assert_eq!(before.iter().map(|m| m.revisions.len()).sum::<usize>(), 1);
    assert!(before.iter().any(|m| m.confirmed_via == Some(ConfirmedVia::App)));
    for memory in &before {
        assert!(w.bank.delete(&w.alice, &memory.id).await.unwrap());
    }
    let report = import(&w, &w.alice, &before, OnConflict::Skip).await;
    assert_eq!((report.imported, report.skipped, report.failed_count, report.new_id_count), (5, 0, 0, 0));
    let after = export_all(&w, &w.alice).await;
    let expected: Vec<ExportedMemory> = before.iter().map(as_imported).collect();
    assert_eq!(serde_json::to_string(&after).unwrap(), serde_json::to_string(&expected).unwrap());
    assert_eq!(search(&w, &w.alice, "kitchen").await, ["green tea at noon"]);
    assert_eq!(search(&w, &w.alice, "second").await, ["second wording of a plan"]);
    assert!(search(&w, &w.alice, "first").await.is_empty(), "a revision's text is history, not the memory");

    for memory in &after {
        assert!(w.bank.delete(&w.alice, &memory.id).await.unwrap());
    }
    import(&w, &w.alice, &after, OnConflict::Skip).await;
    assert_eq!(file(&export_all(&w, &w.alice).await), file(&after), "an export of imported memories imports as it is");
}

/// Editing an imported memory is a confirmation of the new wording: the memory says
/// how it was confirmed, and the file's claim stays with the version it was about.
pub async fn editing_an_imported_memory_keeps_the_files_claim_with_the_replaced_version(f: &dyn Fixture) {
    let w = world(f).await;
    let forged = r#"{"id":"mem_01kaaaaaaaaaaaaaaaaaaaaaaa","content":"forged provenance","createdAt":"2025-11-01T10:00:00.000Z","confirmedVia":"elicitation","proposedBy":"claude-code"}"#;
    let report = import_text(&w, &w.bank, &w.alice, forged, OnConflict::Skip).await;
    assert_eq!(report.imported, 1, "{report:?}");
    let claim = ImportedFrom { confirmed_via: Some(ConfirmedVia::Elicitation), proposed_by: Some("claude-code".into()) };
    let imported = w.bank.memory(&w.alice, "mem_01kaaaaaaaaaaaaaaaaaaaaaaa").await.unwrap().unwrap();
    assert_eq!((imported.confirmed_via, imported.proposed_by.as_deref()), (Some(ConfirmedVia::Import), None));
    assert_eq!(imported.imported_from.as_ref(), Some(&claim));
    let edit = validate_edit(EditMemoryRequest { content: Some("provenance, reworded".into()), tags: None, confirmed_via: Some(ConfirmedVia::App) }).unwrap();
    let edited = w.bank.edit(&w.alice, &imported.id, edit).await.unwrap().unwrap();
    assert_eq!((edited.confirmed_via, edited.imported_from), (Some(ConfirmedVia::App), None));
    let exported = export_all(&w, &w.alice).await;
    let revision = &exported[0].revisions[0];
    assert_eq!((revision.revision.content.as_str(), revision.revision.confirmed_via), ("forged provenance", Some(ConfirmedVia::Import)));
    assert_eq!(revision.imported_from.as_ref(), Some(&claim));
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
    assert_eq!(now[0], as_imported(&changed[0]));
    assert_eq!(list_all(&w, &w.alice).await.len(), 5);
    assert_eq!(search(&w, &w.alice, "replaced").await, ["replaced by the file"]);
}

/// Imports `text` as the service does: each line checked, then the good ones imported.
async fn import_text(w: &World, bank: &crate::Bank, user: &str, text: &str, on_conflict: OnConflict) -> ImportReport {
    let mut report = ImportReport::default();
    let mut good = Vec::new();
    for (i, line) in text.lines().enumerate() {
        match parse_import_line(i + 1, line, w.bank.now()) {
            Ok(Some(line)) => good.push(line),
            Ok(None) => {}
            Err(refused) => report.fail(refused),
        }
    }
    bank.import(user, &w.org, good, on_conflict, report).await.unwrap()
}

fn line_text(memory: &ExportedMemory) -> String {
    serde_json::to_string(memory).unwrap()
}

/// A repeated id is the line's problem, not the file's: a line citing one context id
/// twice is reported (it was a 500 that rolled back the whole file), a later line repeating a memory id is reported, a later line
/// reusing a context id of an earlier one is imported with a new context id, and the
/// good lines are imported.
pub async fn a_repeated_id_is_reported_by_line_and_the_good_lines_imported(f: &dyn Fixture) {
    let w = world(f).await;
    seed(&w).await;
    let exported = export_all(&w, &w.alice).await;
    for memory in &exported {
        assert!(w.bank.delete(&w.alice, &memory.id).await.unwrap());
    }
    let cited = exported.iter().find(|m| !m.contexts.is_empty()).unwrap().clone();
    let mut twice_cited = exported[1].clone();
    twice_cited.contexts = vec![cited.contexts[0].clone(), cited.contexts[0].clone()];
    let mut same_context = exported[2].clone();
    same_context.contexts = vec![cited.contexts[0].clone()];
    let repeated_memory = exported[3].clone();
    let text = [line_text(&twice_cited), line_text(&cited), line_text(&same_context), line_text(&repeated_memory), line_text(&exported[3])].join("\n");
    let report = import_text(&w, &w.bank, &w.alice, &text, OnConflict::Skip).await;
    assert_eq!((report.imported, report.skipped, report.failed_count), (3, 0, 2), "{report:?}");
    assert_eq!((report.failed[0].line, report.failed[0].error.as_str()), (1, "invalid_request"));
    assert!(report.failed[0].message.contains("contexts[1].id repeats contexts[0].id"), "{:?}", report.failed[0]);
    assert_eq!((report.failed[1].line, report.failed[1].error.as_str()), (5, "invalid_request"));
    assert!(report.failed[1].message.contains("line 4"), "{:?}", report.failed[1]);
    let now = export_all(&w, &w.alice).await;
    let by_id = |id: &str| now.iter().find(|m| m.id == id).unwrap().clone();
    assert_eq!(by_id(&cited.id).contexts, cited.contexts, "the first line keeps its ids");
    let moved = by_id(&same_context.id);
    assert_eq!(moved.contexts[0].snippet, cited.contexts[0].snippet);
    assert_ne!(moved.contexts[0].id, cited.contexts[0].id, "a context id another memory has is replaced");
    assert_eq!(now.len(), 3);
}

/// Another user importing someone's export gets every line imported, under new ids it
/// is told of, exactly as if the ids were new: nothing says whose they were, and the
/// owner's memories are untouched. Importing the file again changes nothing.
pub async fn an_id_another_user_has_is_imported_under_a_new_id_and_theirs_is_untouched(f: &dyn Fixture) {
    let w = world(f).await;
    seed(&w).await;
    let exported = export_all(&w, &w.alice).await;
    let text = file(&exported);
    let report = import_text(&w, &w.bank, &w.bob, &text, OnConflict::Skip).await;
    assert_eq!((report.imported, report.failed_count), (5, 0), "{report:?}");
    let bobs = export_all(&w, &w.bob).await;
    assert_eq!(bobs.len(), 5);
    let alices_ids: std::collections::HashSet<&str> = exported
        .iter()
        .flat_map(|m| {
            std::iter::once(m.id.as_str())
                .chain(m.contexts.iter().map(|c| c.id.as_str()))
                .chain(m.revisions.iter().map(|r| r.revision.id.as_str()))
        })
        .collect();
    for memory in &bobs {
        assert!(!alices_ids.contains(memory.id.as_str()));
        assert!(memory.contexts.iter().all(|c| !alices_ids.contains(c.id.as_str())));
        assert!(memory.revisions.iter().all(|r| !alices_ids.contains(r.revision.id.as_str()) && r.revision.memory_id == memory.id));
    }
    assert_eq!(report.new_ids.len(), 5);
    for (new, line) in report.new_ids.iter().zip(1..) {
        assert_eq!(new.line, line);
        assert_eq!(bobs.iter().find(|m| m.id == new.id).unwrap().content, exported[line - 1].content);
    }
    assert_eq!(search(&w, &w.bob, "kitchen").await, ["green tea at noon"]);
    for on_conflict in [OnConflict::Skip, OnConflict::Overwrite] {
        let again = import_text(&w, &w.bank, &w.bob, &text, on_conflict).await;
        assert_eq!((again.imported, again.failed_count), (0, 0), "{again:?}");
        assert_eq!(export_all(&w, &w.bob).await, bobs, "the same file again finds the memories it made");
    }
    assert_eq!(export_all(&w, &w.alice).await, exported);
}

/// At the memory cap an import takes the new lines that fit, in file order, and
/// reports each one past it as `quota_exceeded`; lines the person already has pass.
pub async fn an_import_past_the_cap_imports_what_fits_and_reports_the_rest(f: &dyn Fixture) {
    let w = world(f).await;
    seed(&w).await;
    let exported = export_all(&w, &w.alice).await;
    for memory in &exported[1..] {
        assert!(w.bank.delete(&w.alice, &memory.id).await.unwrap());
    }
    let capped = crate::Bank::with_clock(f.store(), w.clock.clone()).with_memory_quota(Some(3));
    let report = import_text(&w, &capped, &w.alice, &file(&exported), OnConflict::Skip).await;
    assert_eq!((report.imported, report.skipped, report.failed_count), (2, 1, 2), "{report:?}");
    assert_eq!(report.failed.iter().map(|f| (f.line, f.error.as_str())).collect::<Vec<_>>(), [(4, "quota_exceeded"), (5, "quota_exceeded")]);
    assert!(report.failed[0].message.contains("at most 3 memories"), "{:?}", report.failed[0]);
    let kept: Vec<String> = export_all(&w, &w.alice).await.into_iter().map(|m| m.id).collect();
    assert_eq!(kept, exported[..3].iter().map(|m| m.id.clone()).collect::<Vec<_>>());
}
