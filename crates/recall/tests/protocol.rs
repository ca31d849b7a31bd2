//! The recall hook's protocol against the events the agents' docs specify, and the
//! bounds of what it prints.

use std::path::Path;

use memory_bank_contract::Timestamp;
use memory_bank_recall::{answer, folder_name, render, HookInput, Moment, MAX_CONTEXT_BYTES, MAX_MEMORIES};
use memory_bank_store::Recalled;

fn memory(n: usize, content: &str) -> Recalled {
    Recalled {
        id: format!("mem_01JDZ{n:021}"),
        content: content.to_owned(),
        created_at: Timestamp::from_unix_ms(1_700_000_000_000),
        weight: 1.0,
        coverage: 0.5,
    }
}

fn moment(json: &str) -> Option<Moment> {
    HookInput::parse(json.as_bytes()).expect("a hook event").moment(Some(Path::new("/home/ada")))
}

#[test]
fn claude_codes_user_prompt_submit_is_a_prompt_with_its_folder() {
    // The fields Claude Code's hooks reference lists for UserPromptSubmit.
    let event = r#"{"session_id":"abc123","transcript_path":"/home/ada/.claude/projects/x/abc123.jsonl",
        "cwd":"/home/ada/src/billing","permission_mode":"default","hook_event_name":"UserPromptSubmit",
        "prompt":"How do I deploy to staging?"}"#;
    assert_eq!(
        moment(event),
        Some(Moment::Prompt { prompt: "How do I deploy to staging?".into(), folder: "billing".into() })
    );
    assert_eq!(HookInput::parse(event.as_bytes()).unwrap().event_name(), "UserPromptSubmit");
}

#[test]
fn gemini_clis_before_agent_is_a_prompt() {
    let event = r#"{"session_id":"s","transcript_path":"/tmp/t.json","cwd":"/work/app","hook_event_name":"BeforeAgent",
        "timestamp":"2026-12-05T10:00:00.000Z","prompt":"why is the build slow"}"#;
    assert_eq!(moment(event), Some(Moment::Prompt { prompt: "why is the build slow".into(), folder: "app".into() }));
}

#[test]
fn what_gemini_cli_put_before_the_prompt_is_not_the_prompt() {
    // Gemini CLI's BeforeAgent prompt starts with what SessionStart hooks added.
    let event = r#"{"hook_event_name":"BeforeAgent","cwd":"/work/app",
        "prompt":"<hook_context>Memory Bank recalled these… - Billing owns invoices [mem_1]</hook_context>\nhow do I deploy?"}"#;
    assert_eq!(moment(event), Some(Moment::Prompt { prompt: "how do I deploy?".into(), folder: "app".into() }));
    let only_context = r#"{"hook_event_name":"BeforeAgent","prompt":"<hook_context>x</hook_context>"}"#;
    assert_eq!(moment(only_context), None);
}

#[test]
fn a_session_start_recalls_by_the_projects_name_and_not_in_the_home_folder() {
    let start = |cwd: &str| moment(&format!(r#"{{"hook_event_name":"SessionStart","source":"startup","cwd":"{cwd}"}}"#));
    assert_eq!(start("/home/ada/src/billing"), Some(Moment::SessionStart { project: "billing".into() }));
    assert_eq!(start("/home/ada"), None);
    assert_eq!(start("/home"), None);
    assert_eq!(start("/"), None);
    assert_eq!(folder_name(Path::new("/srv/memory-bank"), None), "memory-bank");
}

#[test]
fn events_with_nothing_to_go_on_recall_nothing() {
    assert_eq!(moment(r#"{"hook_event_name":"UserPromptSubmit","prompt":"   "}"#), None);
    assert_eq!(moment(r#"{"hook_event_name":"UserPromptSubmit"}"#), None);
    assert_eq!(moment(r#"{"hook_event_name":"PreToolUse","tool_name":"Bash"}"#), None);
    assert!(HookInput::parse(b"not json").is_err());
    assert!(HookInput::parse(br#"{"prompt": 3}"#).is_err());
    // No event name: read as a prompt, the commonest event.
    assert!(matches!(moment(r#"{"prompt":"deploy"}"#), Some(Moment::Prompt { .. })));
}

#[test]
fn a_prompt_and_a_session_start_are_judged_by_their_own_rules() {
    let prompt = Moment::Prompt { prompt: "x".into(), folder: String::new() }.rule();
    let start = Moment::SessionStart { project: "x".into() }.rule();
    assert_eq!(prompt.max_memories, MAX_MEMORIES);
    assert_eq!(start.max_memories, MAX_MEMORIES);
    // A memory naming the project need not be only about it.
    assert_eq!(start.min_coverage, 0.0);
    assert!(prompt.min_coverage > 0.0);
}

#[test]
fn at_most_five_memories_and_two_kilobytes() {
    let many: Vec<Recalled> = (0..9).map(|n| memory(n, &format!("Staging deploys need the VPN, note {n}."))).collect();
    let text = render(&many).expect("something to say");
    assert_eq!(text.lines().filter(|l| l.starts_with("- ")).count(), MAX_MEMORIES);
    assert!(text.contains("note 4.") && !text.contains("note 5."), "{text}");

    let long = "长".repeat(3000); // 9 000 bytes of three-byte characters
    let big: Vec<Recalled> = (0..5).map(|n| memory(n, &format!("{n} {long}"))).collect();
    let text = render(&big).expect("something to say");
    assert!(text.len() <= MAX_CONTEXT_BYTES, "{} bytes", text.len());
    assert!(text.contains('…'));
    assert!(std::str::from_utf8(text.as_bytes()).is_ok());
    let shown: Vec<&str> = text.lines().filter(|l| l.starts_with("- ")).collect();
    // Each long memory gets its share: all five are there, cut.
    assert_eq!(shown.len(), MAX_MEMORIES, "{text}");
    // Every line shown ends with its id, so it can be cited even when cut.
    assert!(shown.iter().all(|l| l.ends_with(']') && l.contains("[mem_")), "{shown:?}");
}

#[test]
fn nothing_recalled_is_nothing_printed() {
    assert_eq!(render(&[]), None);
}

#[test]
fn a_memory_is_one_line_however_it_was_written() {
    let text = render(&[memory(1, "First line\nsecond line\r\n\tthird")]).unwrap();
    assert!(text.contains("- First line second line third ["), "{text}");
}

#[test]
fn the_answer_is_the_additional_context_of_the_event_that_asked() {
    let json: serde_json::Value = serde_json::from_str(&answer("SessionStart", "ctx \"quoted\"")).unwrap();
    assert_eq!(json["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert_eq!(json["hookSpecificOutput"]["additionalContext"], "ctx \"quoted\"");
    assert_eq!(json.as_object().unwrap().len(), 1);
}
