//! Recall on and off: the server entry gets `--recall`, and the agents with hooks (Claude
//! Code, Codex CLI, Gemini CLI) get the recall hook in their own hook file, next to the
//! person's hooks, which stay byte for byte; turning recall off takes exactly ours out.

use std::fs;

use memory_bank_agent_install::{
    apply, hook_command, plan_install_all, plan_remove_all, status, Agent, Change, Error, Part, Plan, ServerSpec,
};

use crate::{bin, read, spec, tree, Home};

fn on() -> ServerSpec {
    spec().with_recall(true)
}

fn apply_all(plans: &[Plan]) {
    for plan in plans {
        apply(plan).unwrap();
    }
}

fn changes(plans: &[Plan]) -> Vec<(Part, Change)> {
    plans.iter().map(|p| (p.part, p.change)).collect()
}

/// Where each agent keeps its hooks, relative to the home folder.
fn hook_file(agent: Agent) -> &'static str {
    match agent {
        Agent::ClaudeCode => ".claude/settings.json",
        Agent::Gemini => ".gemini/settings.json",
        Agent::Codex => ".codex/hooks.json",
        _ => unreachable!("{agent} has no hooks"),
    }
}

/// Our hook's JSON as the agent spells it, at `indent` spaces.
fn our_hook(agent: Agent, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let name = if agent == Agent::Gemini { format!("{pad}  \"name\": \"memory-bank-recall\",\n") } else { String::new() };
    let timeout = if agent == Agent::Gemini { 10_000 } else { 10 };
    format!(
        "{pad}{{\n{pad}  \"type\": \"command\",\n{pad}  \"command\": \"{bin} recall --agent {agent}\",\n{name}{pad}  \"timeout\": {timeout}\n{pad}}}",
        bin = bin(),
        agent = agent.name(),
    )
}

#[test]
fn the_agents_with_hooks_are_claude_code_codex_and_gemini() {
    let with: Vec<Agent> = Agent::ALL.into_iter().filter(|a| a.has_recall_hook()).collect();
    assert_eq!(with, [Agent::ClaudeCode, Agent::Codex, Agent::Gemini]);
}

#[test]
fn recall_on_in_an_empty_home_writes_the_server_with_recall_and_our_hook_on_each_event() {
    for agent in [Agent::ClaudeCode, Agent::Codex, Agent::Gemini] {
        let home = Home::new();
        let plans = plan_install_all(agent, &home.env, &on()).unwrap();
        let hook_change = if agent == Agent::Gemini { Change::Add } else { Change::Create };
        assert_eq!(changes(&plans), [(Part::Server, Change::Create), (Part::RecallHook, hook_change)], "{agent}");
        apply_all(&plans);
        let text = read(&home.path(hook_file(agent)));
        let events: &[&str] = if agent == Agent::Gemini { &["SessionStart", "BeforeAgent"] } else { &["SessionStart", "UserPromptSubmit"] };
        for event in events {
            let group = format!("\"{event}\": [\n      {{\n        \"hooks\": [\n{}\n        ]\n      }}\n    ]", our_hook(agent, 10));
            assert!(text.contains(&group), "{agent} {event}:\n{text}");
        }
        let st = status(agent, &home.env, &on());
        assert!(st.installed && st.entry_matches && st.recall && st.recall_hook == Some(true) && st.up_to_date, "{agent}: {st:?}");
        // Against recall off, the hook is one thing too many.
        assert!(!status(agent, &home.env, &spec()).up_to_date, "{agent}");
        // Again: nothing to do.
        let again = plan_install_all(agent, &home.env, &on()).unwrap();
        assert!(again.iter().all(|p| !p.changed), "{agent}: {:?}", changes(&again));
        // Remove: every file install created goes again (folders stay, as agents' folders).
        apply_all(&plan_remove_all(agent, &home.env).unwrap());
        let files: Vec<_> = tree(home.dir.path()).into_iter().filter(|p| !home.dir.path().join(p).is_dir()).collect();
        assert_eq!(files, Vec::<std::path::PathBuf>::new(), "{agent}");
    }
}

#[test]
fn the_server_entry_carries_recall_in_every_agent_and_agents_without_hooks_get_no_hook() {
    for agent in Agent::ALL {
        let home = Home::new();
        let plans = plan_install_all(agent, &home.env, &on()).unwrap();
        assert_eq!(plans.len(), if agent.has_recall_hook() { 2 } else { 1 }, "{agent}");
        apply_all(&plans);
        let st = status(agent, &home.env, &on());
        assert!(st.recall && st.entry_matches && st.up_to_date, "{agent}: {st:?}");
        assert_eq!(st.recall_hook.is_some(), agent.has_recall_hook(), "{agent}");
        assert_eq!(st.recall_notice.is_some(), agent == Agent::Codex, "{agent}");
        // Recall off: the same entry without --recall, and no hook.
        let off = plan_install_all(agent, &home.env, &spec()).unwrap();
        apply_all(&off);
        let st = status(agent, &home.env, &spec());
        assert!(!st.recall && st.entry_matches && st.up_to_date, "{agent}: {st:?}");
        assert!(st.recall_hook != Some(true), "{agent}: {st:?}");
    }
}

/// A lived-in Claude Code settings file: the person's own hooks, one of them on the
/// event we use, and other settings.
const CLAUDE_SETTINGS: &str = r#"{
  "model": "opus",
  "permissions": { "allow": ["Bash(npm test:*)"] },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{ "type": "command", "command": "~/bin/check-bash" }]
      }
    ],
    "UserPromptSubmit": [
      {
        "hooks": [
          { "type": "command", "command": "~/bin/add-branch" }
        ]
      }
    ]
  }
}
"#;

#[test]
fn the_persons_hooks_and_settings_stay_byte_for_byte_through_on_again_and_off() {
    let home = Home::new();
    let path = home.write(".claude/settings.json", CLAUDE_SETTINGS);
    let plans = plan_install_all(Agent::ClaudeCode, &home.env, &on()).unwrap();
    assert_eq!(changes(&plans)[1], (Part::RecallHook, Change::Add));
    apply_all(&plans);
    let installed = read(&path);
    let expected = CLAUDE_SETTINGS.replace(
        "          { \"type\": \"command\", \"command\": \"~/bin/add-branch\" }\n        ]\n      }\n    ]\n  }\n}",
        &format!(
            "          {{ \"type\": \"command\", \"command\": \"~/bin/add-branch\" }}\n        ]\n      }},\n      {{\n        \"hooks\": [\n{}\n        ]\n      }}\n    ],\n    \"SessionStart\": [\n      {{\n        \"hooks\": [\n{}\n        ]\n      }}\n    ]\n  }}\n}}",
            our_hook(Agent::ClaudeCode, 10),
            our_hook(Agent::ClaudeCode, 10)
        ),
    );
    assert_eq!(installed, expected);
    // Re-installing changes nothing.
    assert!(plan_install_all(Agent::ClaudeCode, &home.env, &on()).unwrap().iter().all(|p| !p.changed));
    // Recall off: exactly the person's file again.
    apply_all(&plan_install_all(Agent::ClaudeCode, &home.env, &spec()).unwrap());
    assert_eq!(read(&path), CLAUDE_SETTINGS);
    // The backup is the person's original.
    assert_eq!(read(&home.path(".claude/settings.json.memory-bank.bak")), CLAUDE_SETTINGS);
}

#[test]
fn gemini_settings_with_comments_keep_them_and_share_the_file_with_the_server() {
    let original = "// Gemini CLI settings\n{\n  \"theme\": \"GitHub\", // the person's theme\n  \"mcpServers\": {\n    \"github\": { \"command\": \"gh-mcp\" }\n  },\n  \"hooks\": {\n    // the person's own\n    \"AfterAgent\": [{ \"hooks\": [{ \"type\": \"command\", \"command\": \"notify-send done\" }] }]\n  }\n}\n";
    let home = Home::new();
    let path = home.write(".gemini/settings.json", original);
    let plans = plan_install_all(Agent::Gemini, &home.env, &on()).unwrap();
    assert_eq!(changes(&plans), [(Part::Server, Change::Add), (Part::RecallHook, Change::Add)]);
    assert_eq!(plans[1].before, plans[0].after, "the hook's plan starts from the server's");
    apply_all(&plans);
    let text = read(&path);
    for kept in ["// Gemini CLI settings", "// the person's theme", "// the person's own", "notify-send done", "gh-mcp"] {
        assert!(text.contains(kept), "{kept}: {text}");
    }
    assert!(text.contains(&our_hook(Agent::Gemini, 10)), "{text}");
    apply_all(&plan_remove_all(Agent::Gemini, &home.env).unwrap());
    assert_eq!(read(&path), original);
}

#[test]
fn codex_hooks_go_in_hooks_json_beside_the_persons() {
    let original = "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [{ \"type\": \"command\", \"command\": \"say done\", \"timeout\": 5 }]\n      }\n    ]\n  }\n}\n";
    let home = Home::new();
    let path = home.write(".codex/hooks.json", original);
    apply_all(&plan_install_all(Agent::Codex, &home.env, &on()).unwrap());
    let text = read(&path);
    assert!(text.starts_with("{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [{ \"type\": \"command\", \"command\": \"say done\", \"timeout\": 5 }]"), "{text}");
    assert!(text.contains(&our_hook(Agent::Codex, 10)), "{text}");
    apply_all(&plan_install_all(Agent::Codex, &home.env, &spec()).unwrap());
    assert_eq!(read(&path), original);
}

#[test]
fn a_stale_hook_of_ours_is_brought_up_to_date_in_place_keeping_the_persons_keys() {
    // An older binary path, another timeout, and a key the person added.
    let stale = "{\n  \"hooks\": {\n    \"UserPromptSubmit\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"/old/path/memory-bank recall --agent claude-code\",\n            \"timeout\": 3,\n            \"statusMessage\": \"Recalling\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";
    let home = Home::new();
    let path = home.write(".claude/settings.json", stale);
    let st = status(Agent::ClaudeCode, &home.env, &on());
    assert_eq!((st.recall_hook, st.up_to_date), (Some(true), false), "there, but stale: {st:?}");
    let plans = plan_install_all(Agent::ClaudeCode, &home.env, &on()).unwrap();
    assert_eq!(changes(&plans)[1], (Part::RecallHook, Change::Update));
    apply_all(&plans);
    let text = read(&path);
    let updated = format!(
        "          {{\n            \"type\": \"command\",\n            \"command\": \"{} recall --agent claude-code\",\n            \"timeout\": 10,\n            \"statusMessage\": \"Recalling\"\n          }}",
        bin()
    );
    assert!(text.contains(&updated), "{text}");
    assert_eq!(text.matches("recall --agent claude-code").count(), 2, "one per event, no duplicate: {text}");
    assert!(status(Agent::ClaudeCode, &home.env, &on()).up_to_date);
}

#[test]
fn a_duplicate_of_ours_is_taken_out_and_another_agents_hook_is_not_ours() {
    let text = format!(
        "{{\"hooks\": {{\"UserPromptSubmit\": [{{\"hooks\": [{{\"type\": \"command\", \"command\": \"{b} recall --agent claude-code\"}}]}}, {{\"hooks\": [{{\"type\": \"command\", \"command\": \"/x/memory-bank recall --agent claude-code\"}}, {{\"type\": \"command\", \"command\": \"{b} recall --agent codex\"}}]}}]}}}}\n",
        b = bin()
    );
    let home = Home::new();
    let path = home.write(".claude/settings.json", &text);
    apply_all(&plan_install_all(Agent::ClaudeCode, &home.env, &on()).unwrap());
    let after = read(&path);
    assert_eq!(after.matches("--agent claude-code").count(), 2, "{after}");
    assert!(after.contains("recall --agent codex"), "{after}");
    apply_all(&plan_remove_all(Agent::ClaudeCode, &home.env).unwrap());
    let removed = read(&path);
    assert!(!removed.contains("--agent claude-code") && removed.contains("recall --agent codex"), "{removed}");
}

#[test]
fn a_hook_list_that_is_not_a_list_is_an_error_and_nothing_is_written() {
    let home = Home::new();
    let path = home.write(".claude/settings.json", "{\"hooks\": {\"UserPromptSubmit\": {\"command\": \"x\"}}}\n");
    match plan_install_all(Agent::ClaudeCode, &home.env, &on()) {
        Err(Error::Shape { key, expected, .. }) => assert_eq!((key.as_str(), expected), ("\"hooks.UserPromptSubmit\"", "a list")),
        other => panic!("{other:?}"),
    }
    home.write(".claude/settings.json", "{\"hooks\": [1]}\n");
    assert!(matches!(plan_install_all(Agent::ClaudeCode, &home.env, &on()), Err(Error::Shape { .. })));
    // Claude Code's settings are plain JSON: a comment is refused as Claude Code would.
    home.write(".claude/settings.json", "// no\n{}\n");
    assert!(matches!(plan_install_all(Agent::ClaudeCode, &home.env, &on()), Err(Error::Syntax { .. })));
    assert_eq!(fs::read_to_string(&path).unwrap(), "// no\n{}\n");
    assert!(!home.path(".claude.json").exists(), "the server entry waits for the hook file to be readable");
}

#[test]
fn crlf_files_stay_crlf() {
    let original = "{\r\n  \"model\": \"opus\"\r\n}\r\n";
    let home = Home::new();
    let path = home.write(".claude/settings.json", original);
    apply_all(&plan_install_all(Agent::ClaudeCode, &home.env, &on()).unwrap());
    let text = read(&path);
    assert!(!text.replace("\r\n", "").contains('\n'), "{text:?}");
    apply_all(&plan_install_all(Agent::ClaudeCode, &home.env, &spec()).unwrap());
    assert_eq!(read(&path), original);
}

#[test]
fn the_hook_runs_the_binary_with_the_banks_key_file_quoted_for_the_shell() {
    let spec = ServerSpec::new("/Applications/Memory Bank.app/Contents/MacOS/memory-bank")
        .unwrap()
        .with_options(vec!["--index".into(), "/i".into(), "--db-key-file".into(), "/keys/it's.key".into()]);
    assert_eq!(
        hook_command(Agent::ClaudeCode, &spec),
        r"'/Applications/Memory Bank.app/Contents/MacOS/memory-bank' recall --db-key-file '/keys/it'\''s.key' --agent claude-code"
    );
}

#[test]
fn hook_files_follow_the_agents_env_vars() {
    let home = Home::new();
    let claude = home.path("claude-config");
    let codex = home.path("codex-home");
    let env = home.env.clone().with_var("CLAUDE_CONFIG_DIR", claude.to_str().unwrap()).with_var("CODEX_HOME", codex.to_str().unwrap());
    let plans = plan_install_all(Agent::ClaudeCode, &env, &on()).unwrap();
    assert_eq!(plans[1].path, claude.join("settings.json"));
    let plans = plan_install_all(Agent::Codex, &env, &on()).unwrap();
    assert_eq!(plans[1].path, codex.join("hooks.json"));
}
