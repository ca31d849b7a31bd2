//! Where Aider's histories are looked for: the default roots, the walk of an added
//! folder, and the library over both.

use std::collections::HashMap;
use std::path::Path;

use memory_bank_sessions::testing as common;
use memory_bank_sessions::{Env, Library, ListArgs, ReadArgs, Role, Roots, SearchArgs, Source};
use memory_bank_sessions::testing::UnitKind;
use serde_json::json;

use super::fixtures::{HISTORY, INPUTS};
use super::{aider, md, tag, write};

#[test]
fn default_roots_are_the_existing_home_history_and_a_history_moved_for_every_project() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let env = |vars: &[(&str, &str)]| Env {
        home: Some(home.clone()),
        vars: vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    };
    // None of them exists: no default root.
    let in_home = home.join(".aider.chat.history.md");
    let moved = dir.path().join("notes/aider.md");
    let moved_str = moved.to_string_lossy().into_owned();
    assert!(aider().default_roots(&env(&[("AIDER_CHAT_HISTORY_FILE", &moved_str)])).is_empty());
    write(&in_home, "");
    write(&moved, "");
    assert_eq!(aider().default_roots(&env(&[])), std::slice::from_ref(&in_home));
    assert!(aider().default_roots(&Env::default()).is_empty());

    // `AIDER_CHAT_HISTORY_FILE` (Aider's own variable), when absolute.
    assert_eq!(aider().default_roots(&env(&[("AIDER_CHAT_HISTORY_FILE", &moved_str)])), [moved.clone(), in_home.clone()]);
    assert_eq!(aider().default_roots(&env(&[("AIDER_CHAT_HISTORY_FILE", ".aider.chat.history.md")])), std::slice::from_ref(&in_home));

    // `chat-history-file:` in `~/.aider.conf.yml`, plain or quoted, with a comment.
    let config = home.join(".aider.conf.yml");
    for line in [format!("chat-history-file: {moved_str}  # every project"), format!("chat-history-file: '{moved_str}'")] {
        write(&config, &format!("model: sonnet\n{line}\nauto-commits: false\n"));
        assert_eq!(aider().default_roots(&env(&[])), [moved.clone(), in_home.clone()], "{line}");
    }
    write(&config, "#chat-history-file: /x.md\nchat-history-file: relative/to/each/project.md\n");
    assert_eq!(aider().default_roots(&env(&[])), [in_home]);
}

#[test]
fn discovery_walks_the_added_folder_for_histories_and_skips_what_holds_none() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("code");
    let history = ".aider.chat.history.md";
    for rel in [
        "atlas",
        "clients/acme/api",
        "a/b/c/d/e/f",   // six folders deep: found
        "a/b/c/d/e/f/g", // seven: too deep
        "node_modules/pkg",
        "atlas/target",
        "atlas/.venv",
        "atlas/venv",
        "atlas/__pycache__",
        "atlas/dist",
        "atlas/build",
        "atlas/.git",
        ".hidden-project",
    ] {
        write(&root.join(rel).join(history), &md(HISTORY));
    }
    write(&root.join("atlas/.aider.input.history"), INPUTS);
    write(&root.join("atlas/notes.md"), "# notes\n");

    let (units, problems) = common::discover(aider(), &root);
    assert!(problems.is_empty(), "{problems:?}");
    let found: Vec<(String, UnitKind, Option<String>, bool)> = units
        .iter()
        .map(|u| {
            let rel = u.path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            (rel, u.kind, u.workspace_hint.clone(), u.fingerprint != 0)
        })
        .collect();
    let ws = |rel: &str| Some(root.join(rel).to_string_lossy().into_owned());
    assert_eq!(
        found,
        [
            (format!("atlas/{history}"), UnitKind::Whole, ws("atlas"), true),
            (format!("clients/acme/api/{history}"), UnitKind::Whole, ws("clients/acme/api"), false),
            (format!("a/b/c/d/e/f/{history}"), UnitKind::Whole, ws("a/b/c/d/e/f"), false),
        ]
    );
    // A missing folder holds nothing, and is no problem.
    assert_eq!(common::discover(aider(), &dir.path().join("nope")), (vec![], vec![]));
}

#[test]
fn discovery_stops_after_its_folder_budget_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("everything");
    for i in 0..10_000 {
        std::fs::create_dir_all(root.join(format!("f{i:05}"))).unwrap();
    }
    write(&root.join("zz/.aider.chat.history.md"), &md(HISTORY));
    let (units, problems) = common::discover(aider(), &root);
    assert!(units.is_empty(), "{units:?}");
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].path, root);
}

#[cfg(unix)]
#[test]
fn links_out_of_the_added_folder_are_reported_not_followed() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("elsewhere");
    write(&outside.join("secret/.aider.chat.history.md"), &md(HISTORY));
    let root = dir.path().join("code");
    std::fs::create_dir_all(root.join("atlas")).unwrap();
    symlink(outside.join("secret"), root.join("linked-project")).unwrap();
    symlink(outside.join("secret/.aider.chat.history.md"), root.join("atlas/.aider.chat.history.md")).unwrap();
    // A link that stays inside is followed.
    write(&root.join("store/history.md"), &md(HISTORY));
    std::fs::create_dir_all(root.join("kept")).unwrap();
    symlink("../store/history.md", root.join("kept/.aider.chat.history.md")).unwrap();

    let (units, problems) = common::discover(aider(), &root);
    let paths: Vec<&Path> = units.iter().map(|u| u.path.as_path()).collect();
    assert_eq!(paths, [root.join("kept/.aider.chat.history.md")]);
    let mut reported: Vec<&Path> = problems.iter().map(|p| p.path.as_path()).collect();
    reported.sort();
    assert_eq!(reported, [root.join("atlas/.aider.chat.history.md"), root.join("linked-project")]);
}


#[test]
fn the_library_lists_reads_and_searches_the_histories_of_an_added_folder() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    // Aider run in the home folder itself: a default root.
    write(&home.join(".aider.chat.history.md"), &md("\n# aider chat started at 2026-03-01 07:30:00\n\n> Aider v0.86.2␣␣\n\n#### hello from home␣␣\n\nHello!\n\n"));
    let code = dir.path().join("code");
    let history = write(&code.join("atlas/.aider.chat.history.md"), &md(HISTORY));
    write(&code.join("atlas/.aider.input.history"), INPUTS);
    let roots = Roots::new(&common::env_with_home(&home), &[(Source::Aider, code.clone())]);
    let lib = Library::open(None, roots, None).unwrap();
    assert!(lib.refresh().unwrap().problems.is_empty());

    let list = lib.list_sessions(ListArgs { source: Some("aider".into()), limit: Some(json!(50)), ..Default::default() }).unwrap();
    let listed: HashMap<String, (String, Option<String>, u64)> =
        list.sessions.into_iter().map(|s| (s.session_id, (s.title, s.workspace, s.message_count))).collect();
    let t = tag(&history);
    let atlas = Some(code.join("atlas").to_string_lossy().into_owned());
    assert_eq!(listed.len(), 4, "{listed:#?}");
    assert_eq!(
        listed[&format!("aider-{t}-20260302091502")],
        ("add a --verbose flag to the cli\nand print each file as it is processed".into(), atlas.clone(), 4)
    );
    assert_eq!(listed[&format!("aider-{t}-20260303080000")], ("what changed since yesterday?".into(), atlas, 2));
    let home_id = format!("aider-{}-20260301073000", tag(&home.join(".aider.chat.history.md")));
    assert_eq!(listed[&home_id], ("hello from home".into(), Some(home.to_string_lossy().into_owned()), 2));

    let read = lib.read_transcript(ReadArgs { session_id: Some(format!("aider-{t}-20260302144011")), ..Default::default() }).unwrap();
    let got: Vec<(&str, Role)> = read.messages.iter().map(|m| (m.message_id.as_str(), m.role)).collect();
    assert_eq!(got, [("M1", Role::User), ("M2", Role::Assistant), ("M3", Role::Assistant)]);
    assert!(read.messages[0].timestamp.is_some() && read.messages[1].timestamp.is_none());

    let hits = lib.search_messages(SearchArgs { query: Some("standard library".into()), ..Default::default() }).unwrap().hits;
    assert_eq!(hits.iter().map(|h| (h.session_id.as_str(), h.message_id.as_str())).collect::<Vec<_>>(), [(format!("aider-{t}-20260302091502").as_str(), "M4")]);
}
