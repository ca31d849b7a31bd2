//! Claude Code reader: every quirk of the format, read through the reader alone and
//! through the index (both must agree).

use memory_bank_sessions::testing as common;

use memory_bank_sessions::testing::read_unit;
use memory_bank_sessions::testing::reader;
use memory_bank_sessions::{ListArgs, ReadArgs, Role, Source};
use serde_json::json;

const SHOP: &str = "5b0e8a52-1f0c-4c0e-9a53-6f3f1d7a2b10";
const CHINESE: &str = "9d3c1a77-7d5e-4b8e-8d0e-0c4b6b6e2a01";
const EMPTY: &str = "0e3f1a00-0000-4000-8000-000000000001";

fn units(home: &std::path::Path) -> Vec<memory_bank_sessions::testing::Unit> {
    let r = reader(Source::ClaudeCode);
    let mut units = Vec::new();
    let mut problems = Vec::new();
    for root in r.default_roots(&common::env_with_home(home)) {
        r.discover(&root, &mut units, &mut problems);
    }
    assert!(problems.is_empty(), "{problems:?}");
    units.sort_by(|a, b| a.path.cmp(&b.path));
    units
}

#[test]
fn discovers_sessions_but_not_sub_agents() {
    let (_dir, home) = common::claude_home();
    let names: Vec<String> =
        units(&home).iter().map(|u| u.path.file_name().unwrap().to_string_lossy().into()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names.iter().all(|n| !n.starts_with("agent-")), "{names:?}");
}

#[test]
fn claude_config_dir_moves_the_root() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_fixture("claude", &dir.path().join("elsewhere"));
    let mut env = common::env_with_home(&dir.path().join("nohome"));
    env.vars.insert("CLAUDE_CONFIG_DIR".into(), dir.path().join("elsewhere").to_string_lossy().into());
    assert_eq!(reader(Source::ClaudeCode).default_roots(&env), vec![dir.path().join("elsewhere")]);
}

#[test]
fn messages_titles_and_workspace_follow_the_format_rules() {
    let (_dir, home) = common::claude_home();
    let all = units(&home);
    let shop = all.iter().find(|u| u.path.to_string_lossy().contains(SHOP)).unwrap();
    let session = read_unit(reader(Source::ClaudeCode), shop).unwrap().remove(0);
    assert_eq!(session.session_id.as_deref(), Some(SHOP));
    // The last custom title wins over the AI title; the summary of another file is ignored.
    assert_eq!(session.title(), "Client migration");
    assert_eq!(session.workspace.as_deref(), Some("/work/shop-api"));
    let texts: Vec<(Role, &str, &str)> =
        session.messages.iter().map(|m| (m.role, m.message_id.as_str(), m.text.as_str())).collect();
    assert_eq!(
        texts,
        vec![
            (Role::User, "u1", "Plan the client migration to Postgres 17 <b>today</b>"),
            // Thinking and tool_use blocks of msg_01A are not text; its text block is.
            (Role::Assistant, "a2", "First I will read the schema."),
            (Role::Assistant, "a4", "The schema has one table, `client`. 客户迁移计划 is ready."),
            // A lone surrogate escape is replaced, not fatal; the image block is skipped.
            (Role::User, "u2", "Thanks! Emoji cut \u{fffd} here"),
            (Role::Assistant, "a5", "You're welcome."),
        ]
    );
    // The half-written last line is not a message (yet).
    assert_eq!(session.created, memory_bank_sessions::parse_time("2026-11-20T09:59:58Z"));
    assert_eq!(session.updated, memory_bank_sessions::parse_time("2026-11-20T10:06:04Z"));
}

#[test]
fn workspace_comes_from_cwd_and_a_summary_titles_its_own_file() {
    let (_dir, home) = common::claude_home();
    let all = units(&home);
    let unit = all.iter().find(|u| u.path.to_string_lossy().contains(CHINESE)).unwrap();
    let session = read_unit(reader(Source::ClaudeCode), unit).unwrap().remove(0);
    assert_eq!(session.workspace.as_deref(), Some("/Users/lin/Projects/数据平台"));
    assert_eq!(session.title(), "绿茶与迁移");
    assert_eq!(session.messages.len(), 2);
}

#[test]
fn split_assistant_blocks_merge_into_one_message() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join(".claude/projects/-p");
    std::fs::create_dir_all(&project).unwrap();
    let line = |uuid: &str, block: serde_json::Value| {
        json!({"type":"assistant","uuid":uuid,"cwd":"/p","timestamp":"2026-01-01T00:00:00Z",
               "message":{"id":"msg_X","role":"assistant","content":[block]}})
        .to_string()
    };
    let lines = [
        json!({"type":"user","uuid":"u","cwd":"/p","timestamp":"2026-01-01T00:00:00Z",
               "message":{"role":"user","content":"go"}}).to_string(),
        line("b1", json!({"type":"text","text":"part one"})),
        line("b2", json!({"type":"tool_use","id":"t","name":"Bash","input":{}})),
        line("b3", json!({"type":"text","text":"part two"})),
    ];
    std::fs::write(project.join("s1.jsonl"), lines.join("\n") + "\n").unwrap();
    let lib = common::library(dir.path(), None);
    let t = lib.read_transcript(ReadArgs { session_id: Some("s1".into()), ..Default::default() }).unwrap();
    assert_eq!(t.message_count, 2);
    assert_eq!(t.messages[1].text, "part one\n\npart two");
    assert_eq!(t.messages[1].message_id, "b1");
    // With no title record, the title is the first user message in full.
    assert_eq!(t.title, "go");
}

#[test]
fn content_of_unexpected_shapes_keeps_the_rest_of_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join(".claude/projects/-p");
    std::fs::create_dir_all(&project).unwrap();
    let record = |kind: &str, uuid: &str, content: serde_json::Value| {
        json!({"type":kind,"uuid":uuid,"cwd":"/p","timestamp":"2026-01-01T00:00:00Z",
               "message":{"id":format!("msg_{uuid}"),"role":kind,"content":content}})
        .to_string()
    };
    let big_output = "x".repeat(200_000);
    let lines = [
        // A tool result holding nested output: skipped, and the record's time still counts.
        record("user", "r1", json!([{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":big_output}]}])),
        // Blocks that are not objects, and fields of other types, are dropped one by one.
        record("assistant", "a1", json!(["stray", 7, {"type":"text","text":42}, {"type":"text","text":"kept"},
                                          {"type":"tool_use","id":9,"name":["Bash"]}])),
        record("user", "u1", json!({"unexpected":"object"})),
        record("user", "u2", json!("plain text")),
    ];
    std::fs::write(project.join("s1.jsonl"), lines.join("\n") + "\n").unwrap();
    let lib = common::library(dir.path(), None);
    let t = lib.read_transcript(ReadArgs { session_id: Some("s1".into()), ..Default::default() }).unwrap();
    let texts: Vec<&str> = t.messages.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["kept", "plain text"]);
    let activity = lib
        .session_activity(memory_bank_sessions::ActivityArgs { session_id: Some("s1".into()), ..Default::default() })
        .unwrap();
    let tools: Vec<&String> = activity.activity.iter().flat_map(|e| &e.tools).collect();
    assert_eq!(tools, ["tool"], "a tool_use whose name is not a string is still a call");
}

#[test]
fn the_index_agrees_with_the_reader_and_lists_empty_sessions() {
    let (_dir, home) = common::claude_home();
    let lib = common::library(&home, None);
    let list = lib.list_sessions(ListArgs::default()).unwrap();
    assert_eq!(list.total, 3);
    let ids: Vec<&str> = list.sessions.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, vec![EMPTY, CHINESE, SHOP], "newest first");
    let empty = &list.sessions[0];
    assert_eq!((empty.message_count, empty.title.as_str()), (0, ""));
    assert_eq!(empty.workspace.as_deref(), Some("/work/empty"));
    for unit in units(&home) {
        let parsed = read_unit(reader(Source::ClaudeCode), &unit).unwrap().remove(0);
        let id = parsed.session_id.clone().unwrap();
        let info = list.sessions.iter().find(|s| s.session_id == id).unwrap();
        assert_eq!(info.title, parsed.title());
        assert_eq!(info.message_count, parsed.messages.len() as u64);
        if parsed.messages.is_empty() {
            continue;
        }
        let t = lib
            .read_transcript(ReadArgs { session_id: Some(id), count: Some(json!(30)), ..Default::default() })
            .unwrap();
        let from_index: Vec<&str> = t.messages.iter().map(|m| m.text.as_str()).collect();
        let from_reader: Vec<&str> = parsed.messages.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(from_index, from_reader);
    }
}
