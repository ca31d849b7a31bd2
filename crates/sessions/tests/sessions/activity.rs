//! Tool activity (the tool calls between messages, shown collapsed in the app): every
//! reader reports it, the index places it exactly as a whole read does, and rewinds and
//! appended bytes keep it in step.

use memory_bank_sessions::testing as common;

use std::collections::BTreeMap;

use memory_bank_sessions::testing::read_unit;
use memory_bank_sessions::testing::all;
use memory_bank_sessions::{ActivityArgs, ErrorCode, ListArgs};
use serde_json::json;

fn activity(lib: &memory_bank_sessions::Library, id: &str) -> Vec<(i64, Vec<String>)> {
    let args = ActivityArgs { session_id: Some(id.into()), ..Default::default() };
    lib.session_activity(args).unwrap().activity.into_iter().map(|e| (e.after_index, e.tools)).collect()
}

#[test]
fn the_index_places_tool_calls_exactly_as_a_whole_read() {
    let (_dir, home) = common::full_home();
    let lib = common::library(&home, None);
    let env = common::env_with_home(&home);
    let mut with_tools = 0;
    for reader in all() {
        for root in reader.default_roots(&env) {
            let (mut units, mut problems) = (Vec::new(), Vec::new());
            reader.discover(&root, &mut units, &mut problems);
            for unit in units {
                for session in read_unit(reader, &unit).unwrap() {
                    let Some(id) = session.session_id.clone() else { continue };
                    if session.hidden {
                        continue;
                    }
                    let mut expected: BTreeMap<i64, Vec<String>> = BTreeMap::new();
                    for call in &session.tool_calls {
                        expected.entry(call.after).or_default().push(call.name.clone());
                    }
                    let expected: Vec<(i64, Vec<String>)> = expected.into_iter().collect();
                    if lib.list_sessions(ListArgs { query: Some(id.clone()), ..Default::default() }).unwrap().total == 0 {
                        continue; // an ExternalTitle-only unit (Codex session_index)
                    }
                    with_tools += usize::from(!expected.is_empty());
                    assert_eq!(activity(&lib, &id), expected, "{}", unit.path.display());
                }
            }
        }
    }
    assert!(with_tools >= 4, "fixtures of every tool have tool calls ({with_tools})");
}

#[test]
fn each_reader_reports_its_tools() {
    let (_dir, home) = common::full_home();
    let lib = common::library(&home, None);
    // Claude: the `tool_use` block of msg_01A follows its text (message 1).
    assert_eq!(activity(&lib, "5b0e8a52-1f0c-4c0e-9a53-6f3f1d7a2b10"), vec![(1, vec!["Read".to_string()])]);
    let names = |id: &str| activity(&lib, id).into_iter().flat_map(|(_, t)| t).collect::<Vec<_>>();
    // Codex rollout (function_call) and the TypeScript-era document.
    assert!(names("0199e1a0-5b7c-7d2e-9f10-3a4b5c6d7e8f").contains(&"shell".to_string()));
    assert!(!names("0c5a1d2e-3f4b-4c6d-8e9f-a0b1c2d3e4f5").is_empty());
    // Gemini toolCalls, appended again with the same id: listed once.
    let gemini = names("3f2a9c1e-7b64-4d0a-9e21-5c8d0f4b6a17");
    assert!(!gemini.is_empty());
    let mut unique = gemini.clone();
    unique.dedup();
    assert_eq!(gemini, unique, "a repeated call id is one call");
    // Tool calls are never messages.
    let t = lib
        .read_transcript(memory_bank_sessions::ReadArgs {
            session_id: Some("5b0e8a52-1f0c-4c0e-9a53-6f3f1d7a2b10".into()),
            count: Some(json!(30)),
            before: None,
            ..Default::default()
        })
        .unwrap();
    assert!(t.messages.iter().all(|m| !m.text.contains("tool_use")));
}

#[test]
fn ranges_and_bad_arguments() {
    let (_dir, home) = common::full_home();
    let lib = common::library(&home, None);
    let id = "5b0e8a52-1f0c-4c0e-9a53-6f3f1d7a2b10";
    let range = |from: serde_json::Value, to: serde_json::Value| {
        lib.session_activity(ActivityArgs { session_id: Some(id.into()), from_index: Some(from), to_index: Some(to) })
    };
    assert_eq!(range(json!(2), json!(4)).unwrap().activity.len(), 1, "from - 1 is included");
    assert!(range(json!(3), json!(4)).unwrap().activity.is_empty());
    assert!(range(json!(0), json!(0)).unwrap().activity.is_empty());
    assert_eq!(range(json!(-1), json!(2)).unwrap_err().code, ErrorCode::InvalidRequest);
    assert_eq!(range(json!("x"), json!(2)).unwrap_err().code, ErrorCode::InvalidRequest);
    let missing = lib.session_activity(ActivityArgs { session_id: Some("nope".into()), ..Default::default() });
    assert_eq!(missing.unwrap_err().code, ErrorCode::SessionNotFound);
}
