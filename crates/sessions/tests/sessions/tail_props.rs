//! Property tests of incremental reading: a live JSONL file is indexed while it is being
//! written (cut at random byte offsets, inside lines and inside UTF-8 characters), and
//! after every pass the index holds exactly what a fresh read of the complete lines
//! holds (messages and the tool calls between them); at the end, exactly what reading
//! the whole file holds.

use memory_bank_sessions::testing as common;

use std::path::Path;

use memory_bank_sessions::testing::read_unit;
use memory_bank_sessions::testing::reader;
use memory_bank_sessions::{Library, ReadArgs, Roots, Source};
use memory_bank_sessions::testing::{Unit, UnitKind};
use proptest::prelude::*;
use serde_json::json;

#[derive(Debug, Clone)]
enum Record {
    User(String),
    /// Blocks of one assistant reply, written as one record each: text, or a tool call
    /// (`true`) named by the string.
    Assistant(Vec<(bool, String)>),
    Noise(u8),
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 .,!?\"\\\\]{1,40}",
        "[客户迁移计划绿茶数据]{1,12}",
        "[🎉😀a-z ]{1,10}",
        Just("LONE_SURROGATE here".to_string()),
        Just("BAD_UTF8 here".to_string()),
    ]
}

fn record() -> impl Strategy<Value = Record> {
    prop_oneof![
        4 => text().prop_map(Record::User),
        4 => prop::collection::vec((prop::bool::weighted(0.3), text()), 1..4).prop_map(Record::Assistant),
        1 => any::<u8>().prop_map(Record::Noise),
    ]
}

/// The bytes of a session file holding `records`.
fn file_bytes(records: &[Record]) -> Vec<u8> {
    let mut out = Vec::new();
    let line = |out: &mut Vec<u8>, v: serde_json::Value| {
        let text = v.to_string();
        // Quirks real files have: a lone surrogate escape, and invalid UTF-8.
        let text = text.replace("LONE_SURROGATE", "\\ud83c");
        let mut bytes = text.into_bytes();
        if let Some(at) = bytes.windows(8).position(|w| w == b"BAD_UTF8") {
            bytes[at] = 0xFF;
        }
        out.extend_from_slice(&bytes);
        out.push(b'\n');
    };
    for (n, record) in records.iter().enumerate() {
        let ts = format!("2026-01-01T00:{:02}:{:02}.000Z", n / 60 % 60, n % 60);
        match record {
            Record::User(t) => line(&mut out, json!({"type":"user","uuid":format!("u{n}"),"cwd":"/p","timestamp":ts,
                "message":{"role":"user","content":t}})),
            Record::Assistant(blocks) => {
                for (b, (tool, t)) in blocks.iter().enumerate() {
                    let block = if *tool {
                        json!({"type":"tool_use","id":format!("toolu_{n}_{b}"),"name":t,"input":{}})
                    } else {
                        json!({"type":"text","text":t})
                    };
                    line(&mut out, json!({"type":"assistant","uuid":format!("a{n}_{b}"),"cwd":"/p","timestamp":ts,
                        "message":{"id":format!("msg_{n}"),"role":"assistant","content":[block]}}));
                }
            }
            Record::Noise(k) => match k % 3 {
                0 => line(&mut out, json!({"type":"progress","data":{"k":k}})),
                1 => out.extend_from_slice(b"this is not json\n"),
                _ => line(&mut out, json!({"type":"user","uuid":format!("t{n}"),"timestamp":ts,
                    "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"out"}]}})),
            },
        }
    }
    out
}

fn activity(lib: &Library) -> Vec<(i64, String)> {
    if lib.list_sessions(Default::default()).unwrap().total == 0 {
        return Vec::new();
    }
    let args = memory_bank_sessions::ActivityArgs { session_id: Some("live".into()), ..Default::default() };
    let entries = lib.session_activity(args).unwrap().activity;
    entries.into_iter().flat_map(|e| e.tools.into_iter().map(move |t| (e.after_index, t))).collect()
}

fn fresh_activity(path: &Path) -> Vec<(i64, String)> {
    let mut unit = Unit::new(Source::ClaudeCode, path.to_path_buf(), UnitKind::Jsonl);
    unit.session_hint = Some("live".into());
    let session = read_unit(reader(Source::ClaudeCode), &unit).unwrap().remove(0);
    session.tool_calls.into_iter().map(|c| (c.after, c.name)).collect()
}

fn transcript(lib: &Library) -> Vec<(String, String, String)> {
    let list = lib.list_sessions(Default::default()).unwrap();
    let Some(info) = list.sessions.first() else { return Vec::new() };
    let total = info.message_count;
    let mut all = Vec::new();
    let mut before = total;
    while before > 0 {
        let page = lib
            .read_transcript(ReadArgs {
                session_id: Some("live".into()),
                count: Some(json!(30)),
                before: Some(json!(before)),
                ..Default::default()
            })
            .unwrap();
        before = page.messages[0].index;
        for m in page.messages.into_iter().rev() {
            all.push((m.message_id, m.role.as_str().to_string(), m.text));
        }
    }
    all.reverse();
    all
}

fn fresh_read(path: &Path) -> Vec<(String, String, String)> {
    let mut unit = Unit::new(Source::ClaudeCode, path.to_path_buf(), UnitKind::Jsonl);
    unit.session_hint = Some("live".into());
    let session = read_unit(reader(Source::ClaudeCode), &unit).unwrap().remove(0);
    session.messages.into_iter().map(|m| (m.message_id, m.role.as_str().to_string(), m.text)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn a_file_read_while_written_ends_up_exactly_as_read_whole(
        records in prop::collection::vec(record(), 1..40),
        cuts in prop::collection::vec(0.0f64..1.0, 1..5),
    ) {
        let bytes = file_bytes(&records);
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join(".claude/projects/-p");
        std::fs::create_dir_all(&project).unwrap();
        let path = project.join("live.jsonl");
        let lib = Library::open(None, Roots::new(&common::env_with_home(dir.path()), &[]), None).unwrap();
        let mut offsets: Vec<usize> = cuts.iter().map(|c| (c * bytes.len() as f64) as usize).collect();
        offsets.push(bytes.len());
        offsets.sort_unstable();
        offsets.dedup();
        for end in offsets {
            std::fs::write(&path, &bytes[..end]).unwrap();
            lib.refresh().unwrap();
            prop_assert_eq!(transcript(&lib), fresh_read(&path), "after writing {} of {} bytes", end, bytes.len());
            prop_assert_eq!(activity(&lib), fresh_activity(&path), "tool calls after {} bytes", end);
        }
        let whole = fresh_read(&path);
        // Blank text is not a message.
        let expected = records
            .iter()
            .filter(|r| match r {
                Record::User(t) => !t.trim().is_empty(),
                Record::Assistant(blocks) => blocks.iter().any(|(tool, t)| !tool && !t.trim().is_empty()),
                Record::Noise(_) => false,
            })
            .count();
        prop_assert_eq!(whole.len(), expected, "every message is read once the file is complete");
    }
}
