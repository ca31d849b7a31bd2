//! The Codex reader against checked-in synthetic rollouts (one per format generation) and
//! generated files for the binary quirks.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::testing as common;

use common::{messages, ms, unit_named};
use memory_bank_sessions::testing::{read_unit, ParsedSession};
use memory_bank_sessions::testing::reader;
use memory_bank_sessions::{format_ms, Env, Role, Source};
use memory_bank_sessions::testing::{SourceReader, Unit, UnitKind};

const A: &str = "0199e1a0-5b7c-7d2e-9f10-3a4b5c6d7e8f"; // envelope era
const B: &str = "5973b6c0-94b8-487b-a530-2aeb6098ae0e"; // bare era
const C: &str = "019cb7e2-0a1b-7c2d-8e3f-405162738495"; // sub-agent
const D: &str = "019cb900-1111-7222-8333-944455566677"; // fork, Windows cwd
const E: &str = "0199f000-aaaa-7bbb-8ccc-dddddddddddd"; // archived, meta only
const F: &str = "0c5a1d2e-3f4b-4c6d-8e9f-a0b1c2d3e4f5"; // TypeScript CLI .json

fn codex() -> &'static dyn SourceReader {
    reader(Source::Codex)
}

fn fixture_home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex/home")
}

fn discover(root: &Path) -> (Vec<Unit>, Vec<memory_bank_sessions::Problem>) {
    common::discover(codex(), root)
}

fn read_one(unit: &Unit) -> ParsedSession {
    common::read_one(codex(), unit)
}

fn jsonl_unit(path: &Path) -> Unit {
    Unit::new(Source::Codex, path.to_path_buf(), UnitKind::Jsonl)
}

#[test]
fn default_root_is_codex_home_else_dot_codex_in_home() {
    let home = tempfile::tempdir().unwrap();
    let env = Env { home: Some(home.path().to_path_buf()), vars: HashMap::new() };
    assert_eq!(codex().default_roots(&env), vec![home.path().join(".codex")]);

    let mut vars = HashMap::new();
    vars.insert("CODEX_HOME".to_string(), "/srv/codex-home".to_string());
    let env = Env { home: Some(home.path().to_path_buf()), vars };
    assert_eq!(codex().default_roots(&env), vec![PathBuf::from("/srv/codex-home")]);

    // A blank CODEX_HOME is ignored; no home and no variable means no root.
    let mut vars = HashMap::new();
    vars.insert("CODEX_HOME".to_string(), "  ".to_string());
    let env = Env { home: Some(home.path().to_path_buf()), vars };
    assert_eq!(codex().default_roots(&env), vec![home.path().join(".codex")]);
    assert!(codex().default_roots(&Env::default()).is_empty());
}

#[test]
fn discover_finds_every_generation_and_the_index_only() {
    let root = fixture_home();
    let (units, problems) = discover(&root);
    assert!(problems.is_empty(), "{problems:?}");
    let rel: Vec<(String, UnitKind, Option<String>)> = units
        .iter()
        .map(|u| {
            let rel = u.path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            (rel, u.kind, u.session_hint.clone())
        })
        .collect();
    let expect = |p: &str, k: UnitKind, h: Option<&str>| (p.to_string(), k, h.map(String::from));
    assert_eq!(
        rel,
        vec![
            expect(&format!("archived_sessions/rollout-2025-11-20T08-00-00-{E}.jsonl"), UnitKind::Jsonl, Some(E)),
            expect(&format!("sessions/2025/09/02/rollout-2025-09-02T19-17-41-{B}.jsonl"), UnitKind::Jsonl, Some(B)),
            expect(&format!("sessions/2025/10/14/rollout-2025-10-14T11-30-00-{A}.jsonl"), UnitKind::Jsonl, Some(A)),
            expect(&format!("sessions/2026/03/05/rollout-2026-03-05T10-00-00-{C}.jsonl"), UnitKind::Jsonl, Some(C)),
            expect(&format!("sessions/2026/03/06/rollout-2026-03-06T08-00-00-{D}.jsonl"), UnitKind::Jsonl, Some(D)),
            expect(&format!("sessions/rollout-2025-04-16-{F}.json"), UnitKind::Whole, Some(F)),
            expect("session_index.jsonl", UnitKind::Jsonl, None),
        ]
    );
    assert!(units.iter().all(|u| u.source == Source::Codex && u.workspace_hint.is_none()));
}

#[test]
fn discover_tolerates_missing_and_unreadable_folders() {
    let dir = tempfile::tempdir().unwrap();
    let (units, problems) = discover(&dir.path().join("nowhere"));
    assert!(units.is_empty() && problems.is_empty());

    // `sessions` is a file, so listing it fails: reported, not fatal, and the archive is
    // still read.
    std::fs::write(dir.path().join("sessions"), "oops").unwrap();
    std::fs::create_dir(dir.path().join("archived_sessions")).unwrap();
    std::fs::write(
        dir.path().join(format!("archived_sessions/rollout-2025-11-20T08-00-00-{E}.jsonl")),
        "",
    )
    .unwrap();
    let (units, problems) = discover(dir.path());
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].path, dir.path().join("sessions"));
    assert_eq!(units.len(), 1);
}

#[test]
fn envelope_era_rollout() {
    let (units, _) = discover(&fixture_home());
    let s = read_one(&unit_named(&units, A));
    assert_eq!(s.session_id.as_deref(), Some(A));
    assert_eq!(s.workspace.as_deref(), Some("/home/ana/projects/atlas"));
    assert!(!s.hidden);
    // Only response_item user/assistant text: no developer permissions, AGENTS.md,
    // environment context, event_msg copies, reasoning, tools or compacted history.
    assert_eq!(
        messages(&s),
        vec![
            ("L6".into(), Role::User, "Why does the tile cache miss on every zoom level change?".into()),
            (
                "L11".into(),
                Role::Assistant,
                "`TileKey` has no zoom field, so keys from different zoom levels collide and get evicted.".into()
            ),
            ("L16".into(), Role::User, "Add the zoom to the key and a regression test.".into()),
            (
                "L19".into(),
                Role::Assistant,
                "Done: `TileKey` now carries `z`, and `zoom_change_keeps_cache` covers it.".into()
            ),
        ]
    );
    assert!(s.messages.iter().all(|m| m.key == m.message_id));
    assert_eq!(s.messages[0].timestamp, ms("2025-10-14T09:31:10.512Z"));
    assert_eq!(s.messages[3].timestamp, ms("2025-10-14T09:42:05.750Z"));
    // No title stored in the file: the first real user message in full.
    assert_eq!(s.title_candidate, None);
    assert_eq!(s.title(), "Why does the tile cache miss on every zoom level change?");
    // Created = the meta timestamp; updated = the last line's timestamp (an unknown event).
    assert_eq!(s.created, ms("2025-10-14T09:30:00.100Z"));
    assert_eq!(s.updated, ms("2025-10-14T09:42:06.000Z"));
    assert_eq!(format_ms(s.updated.unwrap()).as_deref(), Some("2025-10-14T09:42:06.000Z"));
    assert!(s.external_titles.is_empty());
}

#[test]
fn bare_era_rollout_takes_cwd_from_environment_context() {
    let (units, _) = discover(&fixture_home());
    let s = read_one(&unit_named(&units, B));
    assert_eq!(s.session_id.as_deref(), Some(B));
    assert_eq!(s.workspace.as_deref(), Some("/home/ana/projects/exporter"));
    assert_eq!(
        messages(&s),
        vec![
            ("L6".into(), Role::User, "Export the report as CSV with a header row.".into()),
            ("L10".into(), Role::Assistant, "Added `export_csv` with a header row.".into()),
        ]
    );
    assert!(s.messages.iter().all(|m| m.timestamp.is_none()));
    assert_eq!(s.created, ms("2025-09-02T17:17:41.762Z"));
    assert_eq!(s.updated, ms("2025-09-02T17:17:41.762Z"));
    assert_eq!(s.title(), "Export the report as CSV with a header row.");
}

#[test]
fn typescript_cli_json_is_read_whole_with_item_positions_as_ids() {
    let (units, _) = discover(&fixture_home());
    let unit = unit_named(&units, F);
    assert_eq!(unit.kind, UnitKind::Whole);
    let sessions = read_unit(codex(), &unit).unwrap();
    assert_eq!(sessions.len(), 1);
    let s = &sessions[0];
    assert_eq!(s.key, "");
    assert_eq!(s.session_id.as_deref(), Some(F));
    assert_eq!(s.workspace, None);
    assert_eq!(
        messages(s),
        vec![
            ("I1".into(), Role::User, "Rename the `utils` module to `support`.".into()),
            ("I5".into(), Role::Assistant, "Renamed and updated 4 imports.".into()),
            ("I6".into(), Role::User, "Thanks, commit it.".into()),
            ("I7".into(), Role::Assistant, "Committed as `refactor: rename utils to support`.".into()),
        ]
    );
    assert_eq!(s.created, ms("2025-04-16T14:02:11.345Z"));
    assert_eq!(s.updated, ms("2025-04-16T14:02:11.345Z"));
    assert_eq!(s.title(), "Rename the `utils` module to `support`.");
}

#[test]
fn broken_typescript_json_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("rollout-2025-04-16-{F}.json"));
    std::fs::write(&path, "{\"session\":{\"id\":\"x\"},\"items\":[{\"type\":").unwrap();
    let unit = Unit::new(Source::Codex, path, UnitKind::Whole);
    assert!(read_unit(codex(), &unit).is_err());
}

#[test]
fn subagent_thread_is_hidden() {
    let (units, _) = discover(&fixture_home());
    let s = read_one(&unit_named(&units, C));
    assert!(s.hidden);
    assert_eq!(s.session_id.as_deref(), Some(C));
    assert_eq!(s.messages.len(), 2);
}

#[test]
fn fork_keeps_the_first_meta_and_windows_cwd() {
    let (units, _) = discover(&fixture_home());
    let s = read_one(&unit_named(&units, D));
    assert_eq!(s.session_id.as_deref(), Some(D));
    assert_eq!(s.workspace.as_deref(), Some(r"C:\Users\ana\src\atlas"));
    assert!(!s.hidden);
    // The copied parent history is part of the fork's transcript.
    assert_eq!(
        s.messages.iter().map(|m| m.message_id.as_str()).collect::<Vec<_>>(),
        vec!["L3", "L4", "L5", "L6"]
    );
    assert_eq!(s.messages[3].text, r"Under %LOCALAPPDATA%\atlas\tiles.");
    // The parent's (older) meta says nothing about the fork: not its id, time or source.
    assert_eq!(s.created, ms("2026-03-06T07:00:00.000Z"));
    assert_eq!(s.updated, ms("2026-03-06T07:05:30.000Z"));
}

#[test]
fn meta_only_archived_session_has_no_messages() {
    let (units, _) = discover(&fixture_home());
    let s = read_one(&unit_named(&units, E));
    assert_eq!(s.session_id.as_deref(), Some(E));
    assert_eq!(s.workspace.as_deref(), Some("/home/ana/scratch"));
    assert!(s.messages.is_empty());
    assert_eq!(s.title(), "");
    assert_eq!(s.created, ms("2025-11-20T08:00:00.000Z"));
}

#[test]
fn session_index_only_emits_external_titles() {
    let (units, _) = discover(&fixture_home());
    let s = read_one(&unit_named(&units, "session_index.jsonl"));
    assert_eq!(
        s.external_titles,
        vec![
            (A.to_string(), "Tile cache misses".to_string()),
            (D.to_string(), "Windows cache path".to_string()),
            (A.to_string(), "Tile cache: zoom in key".to_string()),
        ]
    );
    assert_eq!(s.session_id, None);
    assert!(s.messages.is_empty());
    assert_eq!(s.title_candidate, None);
    assert_eq!((s.created, s.updated), (None, None));

    // The latest line per id is the title.
    let latest: HashMap<_, _> = s.external_titles.iter().cloned().collect();
    assert_eq!(latest[A], "Tile cache: zoom in key");
}

#[test]
fn session_index_tolerates_bad_lines_and_null_names() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session_index.jsonl");
    std::fs::write(
        &path,
        format!(
            "{{\"id\":\"{A}\",\"thread_name\":\"Old\"}}\nnot json\n{{\"thread_name\":\"no id\"}}\n\
             {{\"id\":\"{A}\",\"thread_name\":null}}\n{{\"id\":\"{D}\",\"thread_name\":\"half"
        ),
    )
    .unwrap();
    let s = read_one(&jsonl_unit(&path));
    assert_eq!(s.external_titles, vec![(A.to_string(), "Old".to_string()), (A.to_string(), String::new())]);
}

/// One envelope line.
fn line(ts: &str, ty: &str, payload: serde_json::Value) -> String {
    serde_json::json!({"timestamp": ts, "type": ty, "payload": payload}).to_string()
}

fn user(text: &str) -> serde_json::Value {
    serde_json::json!({"type":"message","role":"user","content":[{"type":"input_text","text":text}]})
}

fn assistant(text: &str) -> serde_json::Value {
    serde_json::json!({"type":"message","role":"assistant","content":[{"type":"output_text","text":text}]})
}

#[test]
fn binary_quirks_lose_no_other_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("rollout-2026-01-02T03-04-05-{A}.jsonl"));
    let mut bytes: Vec<u8> = Vec::new();
    let mut push = |l: &[u8]| {
        bytes.extend_from_slice(l);
        bytes.push(b'\n');
    };
    push(
        line(
            "2026-01-02T03:04:05.000Z",
            "session_meta",
            serde_json::json!({"id": A, "timestamp": "2026-01-02T03:04:05.000Z", "cwd": "/w", "source": "cli"}),
        )
        .as_bytes(),
    ); // L1
    push(line("2026-01-02T03:04:06.000Z", "response_item", user("first")).as_bytes()); // L2
    // L3: invalid UTF-8 inside the text.
    let mut bad = line("2026-01-02T03:04:07.000Z", "response_item", user("caf@ au lait")).into_bytes();
    let at = bad.iter().position(|&b| b == b'@').unwrap();
    bad[at] = 0xE9;
    push(&bad);
    // L4: a lone surrogate escape (output cut mid-emoji).
    push(
        br#"{"timestamp":"2026-01-02T03:04:08.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"party \ud83c"}]}}"#,
    );
    // L5: a 2 MB tool output line.
    let big = "x".repeat(2 * 1024 * 1024);
    push(
        line(
            "2026-01-02T03:04:09.000Z",
            "response_item",
            serde_json::json!({"type":"function_call_output","call_id":"c1","output": big}),
        )
        .as_bytes(),
    );
    // L6: a 1.5 MB message is kept whole.
    let long = "y".repeat(1536 * 1024);
    push(line("2026-01-02T03:04:10.000Z", "response_item", assistant(&long)).as_bytes());
    // L7: an unknown record type, L8 not JSON at all, L9 a payload of the wrong shape.
    push(line("2026-01-02T03:04:11.000Z", "brand_new_kind", serde_json::json!({"a": [1, 2]})).as_bytes());
    push(b"\x00\x00garbage{{");
    push(br#"{"timestamp":"2026-01-02T03:04:12.000Z","type":"response_item","payload":"oops"}"#);
    // L10: content of an unexpected shape still yields nothing rather than failing.
    push(
        br#"{"timestamp":"2026-01-02T03:04:13.000Z","type":"response_item","payload":{"type":"message","role":"user","content":42}}"#,
    );
    push(line("2026-01-02T03:04:14.000Z", "response_item", user("last")).as_bytes()); // L11
    // A half-written last line is not read.
    bytes.extend_from_slice(br#"{"timestamp":"2026-01-02T03:05:00.000Z","type":"response_item","payload":{"type":"mess"#);
    std::fs::write(&path, &bytes).unwrap();

    let s = read_one(&jsonl_unit(&path));
    let got: Vec<(String, Role, String)> = messages(&s);
    assert_eq!(got.len(), 5, "{:?}", got.iter().map(|m| &m.0).collect::<Vec<_>>());
    assert_eq!(got[0], ("L2".into(), Role::User, "first".into()));
    assert_eq!(got[1], ("L3".into(), Role::User, "caf\u{fffd} au lait".into()));
    assert_eq!(got[2], ("L4".into(), Role::Assistant, "party \u{fffd}".into()));
    assert_eq!(got[3].0, "L6");
    assert_eq!(got[3].2.len(), long.len());
    assert_eq!(got[4], ("L11".into(), Role::User, "last".into()));
    assert_eq!(s.updated, ms("2026-01-02T03:04:14.000Z"));
}

#[test]
fn injected_context_variants_are_hidden_but_real_text_beside_them_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout-x.jsonl");
    let mixed = serde_json::json!({"type":"message","role":"user","content":[
        {"type":"input_text","text":"<environment_context>\n  <cwd>/from/context</cwd>\n</environment_context>"},
        {"type":"input_text","text":"the real question"}
    ]});
    let lines = [
        line("2026-01-01T00:00:00.000Z", "response_item", user("<user_instructions>\nbe terse\n</user_instructions>")),
        line("2026-01-01T00:00:01.000Z", "response_item", user("<user_shell_command>\nls\n</user_shell_command>")),
        line("2026-01-01T00:00:02.000Z", "response_item", user("<turn_aborted>\ninterrupted\n</turn_aborted>")),
        line(
            "2026-01-01T00:00:03.000Z",
            "response_item",
            serde_json::json!({"type":"message","role":"system","content":[{"type":"input_text","text":"system prompt"}]}),
        ),
        line("2026-01-01T00:00:04.000Z", "response_item", mixed),
        line(
            "2026-01-01T00:00:05.000Z",
            "response_item",
            serde_json::json!({"type":"reasoning","summary":[{"type":"summary_text","text":"thinking"}],"content":[{"type":"reasoning_text","text":"raw"}]}),
        ),
        line("2026-01-01T00:00:06.000Z", "event_msg", serde_json::json!({"type":"user_message","message":"dup"})),
        line("2026-01-01T00:00:07.000Z", "response_item", user("Please handle <div> tags in the parser")),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let s = read_one(&jsonl_unit(&path));
    // No session_meta: the workspace comes from the environment context.
    assert_eq!(s.workspace.as_deref(), Some("/from/context"));
    assert_eq!(
        messages(&s),
        vec![
            ("L5".into(), Role::User, "the real question".into()),
            ("L8".into(), Role::User, "Please handle <div> tags in the parser".into()),
        ]
    );
    // Without a session_meta, created is the first message's time.
    assert_eq!(s.created, ms("2026-01-01T00:00:04.000Z"));
    assert_eq!(s.updated, ms("2026-01-01T00:00:07.000Z"));
}

#[test]
fn appended_lines_parsed_in_a_second_pass_continue_the_session() {
    use memory_bank_sessions::testing::read_complete_lines;
    use memory_bank_sessions::testing::ParsedSession;
    use memory_bank_sessions::testing::LinePos;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("rollout-2026-01-02T03-04-05-{A}.jsonl"));
    let first = [
        line(
            "2026-01-02T03:04:05.000Z",
            "session_meta",
            serde_json::json!({"id": A, "timestamp": "2026-01-02T03:04:05.000Z", "cwd": "/w"}),
        ),
        line("2026-01-02T03:04:06.000Z", "response_item", user("one")),
    ];
    std::fs::write(&path, first.join("\n") + "\n").unwrap();
    let unit = jsonl_unit(&path);
    let mut session = ParsedSession::default();
    let mut line_no = 0;
    let mut pass = |from: u64, session: &mut ParsedSession| {
        let mut parser = codex().line_parser(&unit);
        let mut events = Vec::new();
        let mut file = std::fs::File::open(&path).unwrap();
        let end = read_complete_lines(&mut file, from, |l| {
            line_no += 1;
            parser.line(l.bytes, LinePos { offset: l.offset, line_no }, &mut events);
        })
        .unwrap();
        events.into_iter().for_each(|e| session.apply(e));
        end
    };
    let end = pass(0, &mut session);
    let more = line("2026-01-02T03:09:00.000Z", "response_item", assistant("two")) + "\n";
    let mut all = std::fs::read(&path).unwrap();
    all.extend_from_slice(more.as_bytes());
    std::fs::write(&path, all).unwrap();
    pass(end, &mut session);
    assert_eq!(session, read_one(&unit));
    assert_eq!(messages(&session).last().unwrap(), &("L3".to_string(), Role::Assistant, "two".to_string()));
    assert_eq!(session.updated, ms("2026-01-02T03:09:00.000Z"));
}
