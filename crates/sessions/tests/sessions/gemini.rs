//! The Gemini CLI reader against a checked-in synthetic `~/.gemini` (slug, registry and
//! legacy hash project folders; JSONL and legacy JSON sessions) and generated quirk files.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::testing as common;

use common::{messages, ms, unit_named};
use memory_bank_sessions::testing::{read_unit, ParsedSession};
use memory_bank_sessions::testing::reader;
use memory_bank_sessions::{Env, Role, Source};
use memory_bank_sessions::testing::{Event, SourceReader, TitleRank, Unit, UnitKind};

const S1: &str = "3f2a9c1e-7b64-4d0a-9e21-5c8d0f4b6a17"; // atlas, JSONL with every record kind
const S2: &str = "77aa88bb-1111-4222-8333-444455556666"; // kind: subagent
const S3: &str = "c0ffee00-aaaa-4bbb-8ccc-0123456789ab"; // docs-site, converted from .json
const S4: &str = "b1c2d3e4-5f60-4718-8a9b-0c1d2e3f4a5b"; // legacy hash dir, pretty JSON
const S5: &str = "f0f0f0f0-1111-4222-8333-444444444444"; // unresolvable hash dir
const LEGACY_HASH: &str = "0838d2c60763ebb8b60ccedce0251a8cf3e4de8e3ce9062ff6517393062a427e";
const UNKNOWN_HASH: &str = "3acd1260b31b9a42c5252f045df857b4a1d2bf165e9c610b275e716c22554fbb";

fn gemini() -> &'static dyn SourceReader {
    reader(Source::Gemini)
}

fn fixture_home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini/home")
}

fn fixture_root() -> PathBuf {
    fixture_home().join(".gemini/tmp")
}

fn discover(root: &Path) -> (Vec<Unit>, Vec<memory_bank_sessions::Problem>) {
    common::discover(gemini(), root)
}

fn read_one(unit: &Unit) -> ParsedSession {
    common::read_one(gemini(), unit)
}

fn write_jsonl(dir: &Path, lines: &[serde_json::Value]) -> Unit {
    let path = dir.join("session-2026-06-01T00-00-abcdef12.jsonl");
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(&path, text).unwrap();
    Unit::new(Source::Gemini, path, UnitKind::Jsonl)
}

#[test]
fn default_root_is_gemini_cli_home_else_home() {
    let env = Env { home: Some(PathBuf::from("/home/ana")), vars: HashMap::new() };
    assert_eq!(gemini().default_roots(&env), vec![PathBuf::from("/home/ana/.gemini/tmp")]);
    let mut vars = HashMap::new();
    vars.insert("GEMINI_CLI_HOME".to_string(), "/srv/alt-home".to_string());
    let env = Env { home: Some(PathBuf::from("/home/ana")), vars };
    assert_eq!(gemini().default_roots(&env), vec![PathBuf::from("/srv/alt-home/.gemini/tmp")]);
    assert!(gemini().default_roots(&Env::default()).is_empty());

    // The default root of a test home is the fixture.
    let env = Env { home: Some(fixture_home()), vars: HashMap::new() };
    assert_eq!(gemini().default_roots(&env), vec![fixture_root()]);
}

#[test]
fn discover_lists_sessions_with_workspaces_and_skips_subagent_folders() {
    let root = fixture_root();
    let (units, problems) = discover(&root);
    assert!(problems.is_empty(), "{problems:?}");
    let got: Vec<(String, UnitKind, Option<String>)> = units
        .iter()
        .map(|u| {
            let rel = u.path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            (rel, u.kind, u.workspace_hint.clone())
        })
        .collect();
    let e = |p: String, k: UnitKind, w: Option<&str>| (p, k, w.map(String::from));
    assert_eq!(
        got,
        vec![
            e(
                format!("{LEGACY_HASH}/chats/session-2025-09-01T12-00-b1c2d3e4.json"),
                UnitKind::Whole,
                Some("/home/ana/legacy-app")
            ),
            e(format!("{UNKNOWN_HASH}/chats/session-2025-08-20T07-30-f0f0f0f0.json"), UnitKind::Whole, None),
            e(
                "atlas/chats/session-2026-05-02T10-15-3f2a9c1e.jsonl".into(),
                UnitKind::Jsonl,
                Some("/home/ana/projects/atlas")
            ),
            e(
                "atlas/chats/session-2026-05-03T08-00-77aa88bb.jsonl".into(),
                UnitKind::Jsonl,
                Some("/home/ana/projects/atlas")
            ),
            // The converted .json beside it is not listed.
            e(
                "docs-site/chats/session-2026-04-20T09-00-c0ffee00.jsonl".into(),
                UnitKind::Jsonl,
                Some("/home/ana/docs-site")
            ),
        ]
    );
    assert!(units.iter().all(|u| u.source == Source::Gemini && u.session_hint.is_none()));

    // `~/.gemini` itself is accepted as a root too.
    let (same, _) = discover(&fixture_home().join(".gemini"));
    assert_eq!(same, units);
}

#[test]
fn marker_file_wins_over_registry() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join(".gemini/tmp");
    std::fs::create_dir_all(tmp.join("proj/chats")).unwrap();
    std::fs::write(tmp.join("proj/.project_root"), "  D:\\work\\proj\n").unwrap();
    std::fs::write(dir.path().join(".gemini/projects.json"), r#"{"projects":{"/elsewhere/proj":"proj"}}"#)
        .unwrap();
    std::fs::write(tmp.join("proj/chats/session-2026-01-01T00-00-aaaaaaaa.jsonl"), "").unwrap();
    let (units, problems) = discover(&tmp);
    assert!(problems.is_empty());
    assert_eq!(units.len(), 1);
    assert_eq!(units[0].workspace_hint.as_deref(), Some("D:\\work\\proj"));
}

#[test]
fn discover_tolerates_missing_broken_and_unreadable_things() {
    let dir = tempfile::tempdir().unwrap();
    let (units, problems) = discover(&dir.path().join("nope"));
    assert!(units.is_empty() && problems.is_empty());

    let tmp = dir.path().join(".gemini/tmp");
    std::fs::create_dir_all(tmp.join("good/chats")).unwrap();
    std::fs::create_dir_all(tmp.join("broken")).unwrap();
    // `chats` is a file: listing it fails, which is reported, and the other project is read.
    std::fs::write(tmp.join("broken/chats"), "x").unwrap();
    // A registry being rewritten is ignored.
    std::fs::write(dir.path().join(".gemini/projects.json"), "{\"projects\":{\"/a\":").unwrap();
    std::fs::write(tmp.join("good/chats/session-2026-01-01T00-00-aaaaaaaa.jsonl"), "").unwrap();
    let (units, problems) = discover(&tmp);
    assert_eq!(units.len(), 1);
    assert_eq!(units[0].workspace_hint, None);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].path, tmp.join("broken/chats"));
}

#[test]
fn jsonl_session_applies_replacements_rewinds_and_set() {
    let (units, _) = discover(&fixture_root());
    let s = read_one(&unit_named(&units, "3f2a9c1e.jsonl"));
    assert_eq!(s.session_id.as_deref(), Some(S1));
    assert_eq!(s.workspace.as_deref(), Some("/home/ana/projects/atlas"));
    assert!(!s.hidden);
    assert_eq!(
        messages(&s),
        vec![
            // displayContent (what was typed), not the expanded @file prompt.
            ("a1000000-0000-4000-8000-000000000001".into(), Role::User, "Find where tiles are evicted @src/cache.rs".into()),
            // Appended twice: the last record wins. The tool-call-only reply and the
            // functionResponse user record are not messages.
            ("a1000000-0000-4000-8000-000000000004".into(), Role::Assistant, "Tiles are evicted in `evict()` in src/cache.rs.".into()),
            // "Make it LRU" and its reply were rewound; info/error notices are skipped.
            ("a1000000-0000-4000-8000-000000000007".into(), Role::User, "Make it LRU, capped at 512 tiles".into()),
            ("a1000000-0000-4000-8000-000000000008".into(), Role::Assistant, "Done: LRU with a 512-tile cap.".into()),
        ]
    );
    assert!(s.messages.iter().all(|m| m.key == m.message_id));
    assert_eq!(s.messages[1].timestamp, ms("2026-05-02T10:15:30.000Z"));
    // `$set.summary` is the title; a `$set.messages` checkpoint does not rewrite history.
    assert_eq!(s.title_candidate, Some((TitleRank::Generated, "Make tile cache LRU".to_string())));
    assert_eq!(s.title(), "Make tile cache LRU");
    assert_eq!(s.created, ms("2026-05-02T10:15:03.210Z"));
    assert_eq!(s.updated, ms("2026-05-02T10:17:46.000Z"));
}

#[test]
fn subagent_kind_is_hidden() {
    let (units, _) = discover(&fixture_root());
    let s = read_one(&unit_named(&units, "77aa88bb.jsonl"));
    assert_eq!(s.session_id.as_deref(), Some(S2));
    assert!(s.hidden);
    assert_eq!(s.messages.len(), 2);
}

#[test]
fn metadata_summary_and_registry_workspace() {
    let (units, _) = discover(&fixture_root());
    let s = read_one(&unit_named(&units, "c0ffee00.jsonl"));
    assert_eq!(s.session_id.as_deref(), Some(S3));
    assert_eq!(s.workspace.as_deref(), Some("/home/ana/docs-site"));
    assert_eq!(s.title(), "Docs build fix");
    assert!(!s.hidden); // kind: main
    assert_eq!(
        messages(&s),
        vec![
            ("d1".into(), Role::User, r"Why does the docs build fail on Windows paths like C:\docs\index.md?".into()),
            ("d2".into(), Role::Assistant, "The sidebar plugin joins paths with '/'.".into()),
        ]
    );
    assert_eq!(s.updated, ms("2026-04-20T09:00:40.000Z"));
}

#[test]
fn legacy_json_in_a_hash_folder() {
    let (units, _) = discover(&fixture_root());
    let unit = unit_named(&units, "b1c2d3e4.json");
    let sessions = read_unit(gemini(), &unit).unwrap();
    assert_eq!(sessions.len(), 1);
    let s = &sessions[0];
    assert_eq!(s.key, "");
    assert_eq!(s.session_id.as_deref(), Some(S4));
    assert_eq!(s.workspace.as_deref(), Some("/home/ana/legacy-app"));
    assert_eq!(s.title(), "Upgrade to Node 22");
    assert_eq!(
        messages(s),
        vec![
            ("e1".into(), Role::User, "Upgrade the app to Node 22".into()),
            ("e2".into(), Role::Assistant, "I'll update `.nvmrc` and the CI matrix.".into()),
            ("e4".into(), Role::User, "Also bump the engines field".into()),
            ("e5".into(), Role::Assistant, "Bumped `engines.node` to >=22.".into()),
        ]
    );
    assert_eq!(s.created, ms("2025-09-01T12:00:05.000Z"));
    assert_eq!(s.updated, ms("2025-09-01T12:09:59.000Z"));

    let s = read_one(&unit_named(&units, "f0f0f0f0.json"));
    assert_eq!(s.session_id.as_deref(), Some(S5));
    assert_eq!(s.workspace, None);
    // No summary: the first user message in full.
    assert_eq!(s.title(), "hello");
}

#[test]
fn broken_legacy_json_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session-2025-09-01T12-00-b1c2d3e4.json");
    std::fs::write(&path, "{\n  \"sessionId\": \"x\",\n  \"messages\": [\n    {").unwrap();
    assert!(read_unit(gemini(), &Unit::new(Source::Gemini, path, UnitKind::Whole)).is_err());
}

#[test]
fn rewind_to_a_record_without_text_deletes_the_later_messages() {
    let dir = tempfile::tempdir().unwrap();
    let unit = write_jsonl(
        dir.path(),
        &[
            serde_json::json!({"sessionId":"s","projectHash":"h","startTime":"2026-06-01T00:00:00Z","lastUpdated":"2026-06-01T00:00:00Z"}),
            serde_json::json!({"id":"u1","timestamp":"2026-06-01T00:00:01Z","type":"user","content":"first"}),
            serde_json::json!({"id":"g1","timestamp":"2026-06-01T00:00:02Z","type":"gemini","content":"","toolCalls":[{"id":"t"}]}),
            serde_json::json!({"id":"u2","timestamp":"2026-06-01T00:00:03Z","type":"user","content":[{"functionResponse":{"id":"t","response":{}}}]}),
            serde_json::json!({"id":"g2","timestamp":"2026-06-01T00:00:04Z","type":"gemini","content":"answer"}),
            serde_json::json!({"$rewindTo":"g1"}),
            serde_json::json!({"id":"u3","timestamp":"2026-06-01T00:00:05Z","type":"user","content":"again"}),
            // Rewinding to an id never seen deletes nothing.
            serde_json::json!({"$rewindTo":"nope"}),
        ],
    );
    let s = read_one(&unit);
    assert_eq!(
        messages(&s),
        vec![("u1".into(), Role::User, "first".into()), ("u3".into(), Role::User, "again".into())]
    );
}

#[test]
fn rewind_met_in_a_later_pass_is_passed_on() {
    // A parser fed only the appended lines does not know the id: it emits the rewind as is,
    // for the index to apply to what it stored.
    let mut parser = gemini().line_parser(&Unit::new(Source::Gemini, PathBuf::from("x.jsonl"), UnitKind::Jsonl));
    let mut out = Vec::new();
    parser.line(br#"{"$rewindTo":"u9"}"#, memory_bank_sessions::testing::LinePos { offset: 0, line_no: 7 }, &mut out);
    assert_eq!(out, vec![Event::Rewind { key: "u9".into() }]);
}

#[test]
fn binary_quirks_lose_no_other_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session-2026-06-01T00-00-abcdef12.jsonl");
    let mut bytes: Vec<u8> = Vec::new();
    let mut push = |l: &[u8]| {
        bytes.extend_from_slice(l);
        bytes.push(b'\n');
    };
    push(br#"{"sessionId":"q","projectHash":"h","startTime":"2026-06-01T00:00:00.000Z","lastUpdated":"2026-06-01T00:00:00.000Z"}"#);
    push(br#"{"id":"m1","timestamp":"2026-06-01T00:00:01.000Z","type":"user","content":[{"text":"hello"}]}"#);
    // Invalid UTF-8.
    let mut bad = br#"{"id":"m2","timestamp":"2026-06-01T00:00:02.000Z","type":"gemini","content":[{"text":"caf@"}]}"#.to_vec();
    let at = bad.iter().position(|&b| b == b'@').unwrap();
    bad[at] = 0xE9;
    push(&bad);
    // A lone surrogate.
    push(br#"{"id":"m3","timestamp":"2026-06-01T00:00:03.000Z","type":"user","content":"cut \ud83d"}"#);
    // A 2 MB tool result inside a reply that also has text.
    let big = "z".repeat(2 * 1024 * 1024);
    let line = serde_json::json!({"id":"m4","timestamp":"2026-06-01T00:00:04.000Z","type":"gemini",
        "content":[{"text":"read it"}],
        "toolCalls":[{"id":"t1","name":"read_file","args":{},"status":"success","result":[{"functionResponse":{"response":{"output":big}}}]}]});
    push(line.to_string().as_bytes());
    // Unknown shapes and garbage.
    push(br#"{"id":"m5","timestamp":"2026-06-01T00:00:05.000Z","type":"gemini","content":{"weird":true}}"#);
    push(br#"{"id":7,"type":"user","content":"numeric id is not a message"}"#);
    push(b"garbage\xff\xfe");
    push(br#"{"$set":"not an object"}"#);
    push(br#"{"id":"m6","timestamp":"2026-06-01T00:00:06.000Z","type":"user","content":{"text":"single part object"}}"#);
    // Half-written last line.
    bytes.extend_from_slice(br#"{"id":"m7","timestamp":"2026-06-01T00:00:07.000Z","type":"user","content":"unfin"#);
    std::fs::write(&path, &bytes).unwrap();

    let s = read_one(&Unit::new(Source::Gemini, path, UnitKind::Jsonl));
    assert_eq!(
        messages(&s),
        vec![
            ("m1".into(), Role::User, "hello".into()),
            ("m2".into(), Role::Assistant, "caf\u{fffd}".into()),
            ("m3".into(), Role::User, "cut \u{fffd}".into()),
            ("m4".into(), Role::Assistant, "read it".into()),
            ("m6".into(), Role::User, "single part object".into()),
        ]
    );
    assert_eq!(s.updated, ms("2026-06-01T00:00:06.000Z"));
}

#[test]
fn summary_set_later_replaces_an_earlier_one() {
    let dir = tempfile::tempdir().unwrap();
    let unit = write_jsonl(
        dir.path(),
        &[
            serde_json::json!({"sessionId":"s","projectHash":"h","startTime":"2026-06-01T00:00:00Z","lastUpdated":"2026-06-01T00:00:00Z","summary":"Old"}),
            serde_json::json!({"id":"u1","timestamp":"2026-06-01T00:00:01Z","type":"user","content":"hi"}),
            serde_json::json!({"$set":{"summary":"New"}}),
            serde_json::json!({"$set":{"sessionId":"s"}}),
        ],
    );
    assert_eq!(read_one(&unit).title(), "New");
}
