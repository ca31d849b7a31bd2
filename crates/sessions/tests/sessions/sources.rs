//! The sources on this machine (`source_folders`) and the person's choice to turn one off
//! (`SourceSettings`): a source turned off is not read, so its sessions are not listed,
//! nor archived as deleted, and they are back when it is turned on again.

use std::path::Path;

use memory_bank_sessions::testing as kit;
use memory_bank_sessions::{source_folders, Library, ListArgs, Roots, Source, SourceSettings, SOURCE_SETTINGS_FILE};
use serde_json::json;

fn listed_sources(lib: &Library) -> Vec<Source> {
    let list = lib.list_sessions(ListArgs { status: Some("all".into()), limit: Some(json!(200)), ..Default::default() }).unwrap();
    let mut sources: Vec<Source> = list.sessions.into_iter().map(|s| s.source).collect();
    sources.sort();
    sources.dedup();
    sources
}

fn library(home: &Path, index: &Path, settings: &SourceSettings) -> Library {
    let roots = Roots::enabled(&kit::env_with_home(home), &[], settings);
    let lib = Library::open(Some(index), roots, kit::suite_key()).unwrap();
    lib.refresh().unwrap();
    lib
}

#[test]
fn a_source_turned_off_is_not_read_and_its_sessions_come_back_unarchived() {
    let (dir, home) = kit::full_home();
    let index = dir.path().join("index.sqlite");
    let all = listed_sources(&library(&home, &index, &SourceSettings::default()));
    assert!(all.contains(&Source::Codex) && all.contains(&Source::ClaudeCode), "{all:?}");

    let off = SourceSettings::default().with(Source::Codex, false);
    let lib = library(&home, &index, &off);
    let without = listed_sources(&lib);
    assert!(!without.contains(&Source::Codex) && without.contains(&Source::ClaudeCode), "{without:?}");
    drop(lib);

    let lib = library(&home, &index, &off.with(Source::Codex, true));
    let list = lib.list_sessions(ListArgs { status: Some("archived".into()), ..Default::default() }).unwrap();
    assert!(list.sessions.is_empty(), "nothing was taken as deleted: {:?}", list.sessions);
    assert_eq!(listed_sources(&lib), all);
}

#[test]
fn settings_are_kept_private_in_the_data_folder_and_a_broken_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(SourceSettings::load(dir.path()).unwrap(), SourceSettings::default(), "no file: every source on");
    let settings = SourceSettings::default().with(Source::Gemini, false).with(Source::Aider, false);
    settings.save(dir.path()).unwrap();
    assert_eq!(SourceSettings::load(dir.path()).unwrap(), settings);
    assert!(!settings.enabled(Source::Gemini) && settings.enabled(Source::Codex));
    let file = dir.path().join(SOURCE_SETTINGS_FILE);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    }
    // A source this release does not know (a newer one's) is passed over, not an error.
    std::fs::write(&file, r#"{"disabled": ["codex", "some-future-tool"]}"#).unwrap();
    assert_eq!(SourceSettings::load(dir.path()).unwrap().disabled, [Source::Codex]);
    std::fs::write(&file, "{ not json").unwrap();
    let broken = SourceSettings::load(dir.path()).unwrap_err();
    assert!(broken.contains(SOURCE_SETTINGS_FILE) && broken.contains("fix or delete it"), "{broken}");
}

#[test]
fn every_source_is_listed_with_its_folders_found_or_not_and_those_added() {
    let (_dir, home) = kit::full_home();
    let added = home.join("old-laptop/.codex");
    std::fs::create_dir_all(&added).unwrap();
    let settings = SourceSettings::default().with(Source::Gemini, false);
    let sources = source_folders(&kit::env_with_home(&home), &[(Source::Codex, added.clone())], &settings);
    assert_eq!(sources.iter().map(|s| s.source).collect::<Vec<_>>(), Source::ALL);
    let of = |source: Source| sources.iter().find(|s| s.source == source).unwrap();
    let claude = of(Source::ClaudeCode);
    assert!(claude.found && claude.enabled, "{claude:?}");
    assert_eq!(claude.folders[0].path, home.join(".claude"));
    let codex = of(Source::Codex);
    assert!(codex.folders.iter().any(|f| f.path == added && f.added && f.exists), "{codex:?}");
    assert!(!of(Source::Gemini).enabled);
    // Imported chat exports are read from the app's data folder.
    let imports = kit::env_with_home(&home).app_data_dir().unwrap().join("imports");
    assert_eq!(of(Source::Chatgpt).folders[0].path, imports.join("chatgpt"));
    assert_eq!(of(Source::ClaudeAi).folders[0].path, imports.join("claude-ai"));
}

#[test]
fn a_source_kept_encrypted_is_found_and_says_why_it_cannot_be_read() {
    let (dir, home) = kit::full_home();
    std::fs::create_dir_all(home.join(".codeium/windsurf/cascade")).unwrap();
    // Encrypted bytes, as Windsurf leaves them: nothing to list, nothing to fail on.
    std::fs::write(home.join(".codeium/windsurf/cascade/6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9.pb"), [0x9c_u8, 0x41, 0xe7, 0x02, 0xff]).unwrap();
    let sources = source_folders(&kit::env_with_home(&home), &[], &SourceSettings::default());
    let of = |source: Source| sources.iter().find(|s| s.source == source).unwrap();
    let windsurf = of(Source::Windsurf);
    assert!(windsurf.found, "{windsurf:?}");
    assert!(windsurf.unreadable.as_deref().is_some_and(|why| why.contains("encrypted")), "{windsurf:?}");
    assert!(of(Source::Antigravity).unreadable.is_some());
    // Every other source can be read: none says otherwise.
    let readable: Vec<Source> = sources.iter().filter(|s| s.unreadable.is_none()).map(|s| s.source).collect();
    assert_eq!(readable.len(), Source::ALL.len() - 2, "{readable:?}");
    let index = dir.path().join("index.sqlite");
    assert!(!listed_sources(&library(&home, &index, &SourceSettings::default())).contains(&Source::Windsurf));
}
