//! The `<id>.jsonl` files of goose before 1.10, shaped as goose 1.x wrote them: a metadata
//! line, then one message per line; the earliest files without the metadata line.

use std::path::Path;

use memory_bank_sessions::testing::{self as kit, TitleRank, UnitKind};
use memory_bank_sessions::{Role, Source};
use serde_json::{json, Value};

use super::{discover, read_root, texts, tools};

/// 2025-06-20T01:36:17Z in seconds.
const T0: i64 = 1_750_383_377;

fn message(role: &str, created: i64, content: Value) -> String {
    json!({"id": null, "role": role, "created": created, "content": content, "metadata": {"userVisible": true, "agentVisible": true}}).to_string()
}

fn write(dir: &Path, name: &str, lines: &[String]) {
    std::fs::create_dir_all(dir).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join(name), text).unwrap();
}

/// A session of goose 1.x: metadata, a prompt, a reply with a tool call, the tool's output
/// (a user message), the final reply.
fn session_lines() -> Vec<String> {
    let meta = json!({"working_dir": "/home/dev/site", "description": "Fix CSS build", "schedule_id": null, "message_count": 4,
                      "total_tokens": 5120, "input_tokens": 5000, "output_tokens": 120,
                      "accumulated_total_tokens": 9000, "accumulated_input_tokens": 8700, "accumulated_output_tokens": 300});
    let call = json!({"type": "toolRequest", "id": "toolu_01", "toolCall": {"status": "success",
                      "value": {"name": "developer__shell", "arguments": {"command": "npm run build"}}}});
    let output = json!({"type": "toolResponse", "id": "toolu_01", "toolResult": {"status": "success",
                        "value": [{"type": "text", "text": "error: unknown at-rule", "annotations": {"audience": ["assistant"]}}]}});
    vec![
        meta.to_string(),
        message("user", T0, json!([{"type": "text", "text": "The CSS build fails."}])),
        message("assistant", T0 + 5, json!([{"type": "text", "text": "I'll run the build."}, call])),
        message("user", T0 + 9, json!([output])),
        message("assistant", T0 + 12, json!([{"type": "text", "text": "Fixed: the at-rule needed a plugin."}])),
    ]
}

#[test]
fn a_session_file_is_one_whole_unit_named_by_its_id() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "20250620_013617.jsonl", &session_lines());
    write(dir.path(), "notes.txt", &["not a session".into()]);
    let (units, problems) = discover(dir.path());
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(units.len(), 1);
    assert_eq!((units[0].kind, units[0].session_hint.as_deref()), (UnitKind::Whole, Some("20250620_013617")));
    assert_eq!(discover(&dir.path().join("20250620_013617.jsonl")).0, units, "a session file is a root too");

    let all = read_root(dir.path());
    let s = &all["20250620_013617"];
    assert_eq!(s.title_candidate, Some((TitleRank::Generated, "Fix CSS build".into())));
    assert_eq!(s.workspace.as_deref(), Some("/home/dev/site"));
    assert_eq!((s.created, s.updated), (Some(T0 * 1000), Some((T0 + 12) * 1000)));
    assert_eq!(
        texts(s),
        [(Role::User, "The CSS build fails."), (Role::Assistant, "I'll run the build."), (Role::Assistant, "Fixed: the at-rule needed a plugin.")]
    );
    let ids: Vec<&str> = s.messages.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(ids, ["L2", "L3", "L5"], "no ids in these files: the line is cited");
    assert_eq!(tools(s), [("toolu_01", "developer__shell", 1)]);
}

#[test]
fn the_earliest_files_have_no_metadata_line_and_named_sessions_keep_their_name() {
    let dir = tempfile::tempdir().unwrap();
    // goose's first releases named files by a random id and wrote messages only.
    let early = [message("user", T0, json!([{"type": "text", "text": "hello goose"}])), message("assistant", T0 + 1, json!([{"type": "text", "text": "Hello!"}]))];
    write(dir.path(), "ccK9OTmS.jsonl", &early);
    // `goose session --name react-migration`; later 1.x messages carry ids.
    let named = [
        json!({"working_dir": "/w", "description": "", "schedule_id": null, "message_count": 1}).to_string(),
        json!({"id": "msg_7f2c", "role": "user", "created": T0, "content": [{"type": "text", "text": "migrate to React 19"}],
               "metadata": {"userVisible": true, "agentVisible": true}})
        .to_string(),
    ];
    write(dir.path(), "react-migration.jsonl", &named);
    let all = read_root(dir.path());
    assert_eq!(texts(&all["ccK9OTmS"]), [(Role::User, "hello goose"), (Role::Assistant, "Hello!")]);
    assert_eq!(all["ccK9OTmS"].messages[0].message_id, "L1");
    let named = &all["react-migration"];
    assert_eq!(named.title_candidate, None, "no description yet: the list shows the first prompt");
    assert_eq!(named.messages[0].message_id, "msg_7f2c");
}

#[test]
fn files_without_messages_and_broken_lines_are_nothing_never_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "20250701_090000.jsonl", &[json!({"working_dir": "/w", "description": "", "message_count": 0}).to_string()]);
    std::fs::write(dir.path().join("20250701_090001.jsonl"), b"").unwrap();
    let mut lines = session_lines();
    lines.insert(2, "{\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"cut".into());
    lines.insert(3, "\u{0}\u{0} garbage".into());
    lines.push(message("user", T0 + 20, json!([{"type": "text", "text": "goose hid this", "annotations": {"audience": ["assistant"]}}])));
    lines.push(json!({"role": "user", "created": T0 + 21, "content": [{"type": "text", "text": "a summary"}],
                      "metadata": {"userVisible": false, "agentVisible": true}}).to_string());
    write(dir.path(), "20250701_090002.jsonl", &lines);
    let all = read_root(dir.path());
    assert_eq!(all.len(), 1);
    assert_eq!(all["20250701_090002"].messages.len(), 3);
}

#[test]
fn the_library_lists_legacy_sessions_from_the_default_folder() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    write(&super::sessions_dir(&home), "20250620_013617.jsonl", &session_lines());
    let lib = kit::library(&home, None);
    let list = lib.list_sessions(memory_bank_sessions::ListArgs { source: Some("goose".into()), ..Default::default() }).unwrap();
    assert_eq!(list.sessions.len(), 1);
    let s = &list.sessions[0];
    assert_eq!((s.session_id.as_str(), s.source, s.title.as_str(), s.message_count), ("20250620_013617", Source::Goose, "Fix CSS build", 3));
    assert_eq!(s.created_at.as_deref(), Some("2025-06-20T01:36:17.000Z"));
}
