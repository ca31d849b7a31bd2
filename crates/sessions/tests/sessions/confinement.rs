//! Session folders are untrusted: discovery does not follow a symbolic link out of the
//! folder it was given (one that stays inside is followed), and a JSONL line too long to
//! hold is skipped and reported while the rest of its file is read.
#![cfg(unix)]

use memory_bank_sessions::testing as common;

use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use memory_bank_sessions::testing::reader;
use memory_bank_sessions::{Problem, Roots, Source};
use memory_bank_sessions::testing::{Index, Unit};
use serde_json::json;

const A: &str = "0199e1a0-5b7c-7d2e-9f10-3a4b5c6d7e8f";
const B: &str = "5973b6c0-94b8-487b-a530-2aeb6098ae0e";

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

fn rollout_a() -> PathBuf {
    fixture(&format!(
        "codex/home/sessions/2025/10/14/rollout-2025-10-14T11-30-00-{A}.jsonl"
    ))
}

fn rollout_b() -> PathBuf {
    fixture(&format!(
        "codex/home/sessions/2025/09/02/rollout-2025-09-02T19-17-41-{B}.jsonl"
    ))
}

fn discover(source: Source, root: &Path) -> (Vec<Unit>, Vec<Problem>) {
    common::discover(reader(source), root)
}

fn mkdirs(p: &Path) -> &Path {
    std::fs::create_dir_all(p).unwrap();
    p
}

/// Whether a problem names `path` as a link not followed.
fn reported(problems: &[Problem], path: &Path) -> bool {
    problems
        .iter()
        .any(|p| p.path == path && p.message.contains("not followed"))
}

#[test]
fn a_codex_rollout_linked_from_outside_the_folder_is_not_indexed_or_listed() {
    let dir = tempfile::tempdir().unwrap();
    let outside = mkdirs(&dir.path().join("outside")).join("secret.jsonl");
    std::fs::copy(rollout_a(), &outside).unwrap();
    let home = dir.path().join("home");
    let day = mkdirs(&home.join(".codex/sessions/2026/01/01")).to_path_buf();
    let link = day.join(format!("rollout-2026-01-01T00-00-00-{A}.jsonl"));
    symlink(&outside, &link).unwrap();
    // A linked folder leading out is not walked either.
    let other = mkdirs(&dir.path().join("elsewhere/05")).to_path_buf();
    std::fs::copy(
        rollout_b(),
        other.join(format!("rollout-2025-09-02T19-17-41-{B}.jsonl")),
    )
    .unwrap();
    symlink(
        dir.path().join("elsewhere"),
        home.join(".codex/sessions/2027"),
    )
    .unwrap();

    let (units, problems) = discover(Source::Codex, &home.join(".codex"));
    assert!(units.is_empty(), "{units:#?}");
    assert!(reported(&problems, &link), "{problems:?}");
    assert!(
        reported(&problems, &home.join(".codex/sessions/2027")),
        "{problems:?}"
    );

    let lib = common::library(&home, None);
    let list = lib.list_sessions(Default::default()).unwrap();
    assert_eq!(list.total, 0, "{list:?}");
}

#[test]
fn links_that_stay_inside_the_folder_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    let codex = dir.path().join("home/.codex");
    let store = mkdirs(&codex.join("store")).to_path_buf();
    std::fs::copy(rollout_a(), store.join("a.jsonl")).unwrap();
    let day = mkdirs(&codex.join("sessions/2026/01/01")).to_path_buf();
    let link = day.join(format!("rollout-2026-01-01T00-00-00-{A}.jsonl"));
    // Relative, as `ln -s` usually makes them.
    symlink("../../../../store/a.jsonl", &link).unwrap();
    let month = mkdirs(&store.join("2025/09/02")).to_path_buf();
    std::fs::copy(
        rollout_b(),
        month.join(format!("rollout-2025-09-02T19-17-41-{B}.jsonl")),
    )
    .unwrap();
    symlink(store.join("2025"), codex.join("sessions/2025")).unwrap();

    let (units, problems) = discover(Source::Codex, &codex);
    assert!(problems.is_empty(), "{problems:?}");
    let hints: Vec<Option<&str>> = units.iter().map(|u| u.session_hint.as_deref()).collect();
    assert_eq!(hints, [Some(B), Some(A)]);

    // Claude too: a session file linked from elsewhere in `~/.claude`.
    let claude = dir.path().join("home/.claude");
    let kept = mkdirs(&claude.join("kept")).join("s1.jsonl");
    std::fs::write(&kept, "").unwrap();
    symlink(
        &kept,
        mkdirs(&claude.join("projects/-work-a")).join("s1.jsonl"),
    )
    .unwrap();
    let (units, problems) = discover(Source::ClaudeCode, &claude);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(units.len(), 1);
    assert_eq!(units[0].session_hint.as_deref(), Some("s1"));
}

#[test]
fn every_reader_skips_and_reports_links_out_of_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let outside = mkdirs(&dir.path().join("outside")).to_path_buf();
    std::fs::write(outside.join("s.jsonl"), "").unwrap();
    std::fs::write(outside.join("s.json"), "{}").unwrap();
    mkdirs(&outside.join("chats"));
    std::fs::write(
        outside.join("chats/session-2026-01-01T00-00-aaaaaaaa.jsonl"),
        "",
    )
    .unwrap();

    let claude = dir.path().join(".claude");
    let file = mkdirs(&claude.join("projects/-work-a")).join("s1.jsonl");
    symlink(outside.join("s.jsonl"), &file).unwrap();
    symlink(&outside, claude.join("projects/-work-b")).unwrap();
    let (units, problems) = discover(Source::ClaudeCode, &claude);
    assert!(units.is_empty(), "{units:#?}");
    assert!(
        reported(&problems, &file) && reported(&problems, &claude.join("projects/-work-b")),
        "{problems:?}"
    );

    let tmp = dir.path().join(".gemini/tmp");
    let file = mkdirs(&tmp.join("proj/chats")).join("session-2026-01-02T00-00-bbbbbbbb.jsonl");
    symlink(outside.join("s.jsonl"), &file).unwrap();
    symlink(&outside, tmp.join("linked")).unwrap();
    let (units, problems) = discover(Source::Gemini, &tmp);
    assert!(units.is_empty(), "{units:#?}");
    assert!(
        reported(&problems, &file) && reported(&problems, &tmp.join("linked")),
        "{problems:?}"
    );

    let opencode = mkdirs(&dir.path().join("opencode")).to_path_buf();
    symlink(outside.join("s.json"), opencode.join("opencode.db")).unwrap();
    let (units, problems) = discover(Source::Opencode, &opencode);
    assert!(units.is_empty(), "{units:#?}");
    assert!(
        reported(&problems, &opencode.join("opencode.db")),
        "{problems:?}"
    );
    std::fs::remove_file(opencode.join("opencode.db")).unwrap();
    let file = mkdirs(&opencode.join("storage/session/p1")).join("ses_1.json");
    symlink(outside.join("s.json"), &file).unwrap();
    let (units, problems) = discover(Source::Opencode, &opencode);
    assert!(units.is_empty(), "{units:#?}");
    assert!(reported(&problems, &file), "{problems:?}");
}

#[test]
fn a_gemini_project_root_marker_linked_out_of_the_folder_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "/the/secret/content\n").unwrap();
    let tmp = dir.path().join(".gemini/tmp");
    std::fs::write(
        mkdirs(&tmp.join("proj/chats")).join("session-2026-01-01T00-00-aaaaaaaa.jsonl"),
        "",
    )
    .unwrap();
    let marker = tmp.join("proj/.project_root");
    symlink(&secret, &marker).unwrap();
    let (units, problems) = discover(Source::Gemini, &tmp);
    assert_eq!(units.len(), 1);
    assert_eq!(units[0].workspace_hint, None);
    assert!(reported(&problems, &marker), "{problems:?}");

    // A marker linked to a file inside the folder is read.
    std::fs::remove_file(&marker).unwrap();
    std::fs::write(tmp.join("proj/root.txt"), "/work/proj\n").unwrap();
    symlink("root.txt", &marker).unwrap();
    let (units, problems) = discover(Source::Gemini, &tmp);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(units[0].workspace_hint.as_deref(), Some("/work/proj"));
}

fn user(uuid: &str, text: &str, minute: u32) -> String {
    json!({"type":"user","uuid":uuid,"cwd":"/work/app","timestamp":format!("2026-11-01T10:{minute:02}:00.000Z"),
           "message":{"role":"user","content":text}})
    .to_string()
        + "\n"
}

#[test]
fn a_line_over_the_cap_is_skipped_and_reported_and_the_rest_is_read() {
    let h = common::TempHome::new();
    let path = h.session_path("-work-app", "long");
    let mut file = std::fs::File::create(&path).unwrap();
    file.write_all(user("u1", "before the long line", 1).as_bytes())
        .unwrap();
    // A record one byte over the cap, written sparsely: the hole reads as zero bytes.
    let prefix = br#"{"type":"user","uuid":"u2","message":{"role":"user","content":""#;
    file.write_all(prefix).unwrap();
    let cap = memory_bank_sessions::testing::MAX_LINE_BYTES as u64;
    let suffix = b"\"}}";
    file.seek(SeekFrom::Current(
        (cap + 1 - prefix.len() as u64 - suffix.len() as u64) as i64,
    ))
    .unwrap();
    file.write_all(suffix).unwrap();
    file.write_all(b"\n").unwrap();
    file.write_all(user("u3", "after the long line", 3).as_bytes())
        .unwrap();
    drop(file);

    let roots = Roots::new(&common::env_with_home(&h.home), &[]).0;
    let keys: Vec<String> = roots
        .iter()
        .map(|(_, p)| p.to_string_lossy().into_owned())
        .collect();
    let mut index = Index::in_memory().unwrap();
    let report = index.refresh(&roots).unwrap();
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert_eq!(report.problems[0].path, path);
    assert!(
        report.problems[0].message.contains("line 2"),
        "{}",
        report.problems[0].message
    );
    let found = index.find(&keys, "long", None).unwrap().unwrap();
    let texts: Vec<String> = index
        .messages_before(found.row, 10, 10)
        .unwrap()
        .into_iter()
        .map(|m| m.text)
        .collect();
    assert_eq!(texts, ["before the long line", "after the long line"]);
    // Read once: a later refresh does not report it again.
    assert!(index.refresh(&roots).unwrap().problems.is_empty());
}

#[test]
fn a_session_file_replaced_by_a_link_out_is_not_read_on_open() {
    let h = common::TempHome::new();
    let path = h.write("-work-app", "s1", &[user("u1", "first", 1)]);
    let lib = h.library();
    // Opening a transcript reads what was appended, by the path indexed before.
    let outside = h.index.parent().unwrap().join("outside.jsonl");
    std::fs::write(
        &outside,
        user("u1", "first", 1) + &user("u2", "from outside", 2),
    )
    .unwrap();
    std::fs::remove_file(&path).unwrap();
    symlink(&outside, &path).unwrap();
    let read = |lib: &memory_bank_sessions::Library| {
        let args = memory_bank_sessions::ReadArgs {
            session_id: Some("s1".into()),
            count: None,
            before: None,
            ..Default::default()
        };
        lib.read_transcript(args)
            .map(|t| t.messages.into_iter().map(|m| m.text).collect::<Vec<_>>())
    };
    assert_eq!(read(&lib).unwrap(), ["first"]);
}
