//! goose's YAML file: its fixture for the shared behaviours (`per_agent.rs`), then how
//! strictly it is read, the layouts a person may have written, and what install and remove
//! do to each, byte for byte.

use std::fs;

use memory_bank_agent_install::{apply, plan_install, plan_remove, status, Agent, Change, Error};

use crate::fixtures::Fixture;
use crate::{bin, expand, read, spec, tree, Home};

const GOOSE: Agent = Agent::Goose;

/// Install, check `installed` (with `{BIN}`), remove, check the original is back.
fn round_trip(original: &str, installed: &str) {
    let home = Home::new();
    let path = home.config(GOOSE, original);
    let plan = plan_install(GOOSE, &home.env, &spec()).unwrap();
    assert_eq!(plan.after.as_deref(), Some(expand(installed).as_str()), "{}", plan.diff);
    apply(&plan).unwrap();
    let st = status(GOOSE, &home.env, &spec());
    assert!(st.installed && st.entry_matches && st.problem.is_none(), "{st:?}");
    assert_eq!(plan_install(GOOSE, &home.env, &spec()).unwrap().change, Change::AlreadyInstalled);
    apply(&plan_remove(GOOSE, &home.env).unwrap()).unwrap();
    assert_eq!(read(&path), original, "install + remove gives back the original bytes");
}

const NEW_ENTRY: &str = "  memory-bank:
    type: stdio
    cmd: {BIN}
    args:
      - mcp
    name: memory-bank
    enabled: true
    description: \"Memory Bank: the person's plaintext memory and their past agent sessions.\"
    timeout: 300
    envs: {}
    env_keys: []
";

#[test]
fn what_goose_would_refuse_is_a_syntax_error_naming_the_line() {
    let cases = [
        ("extensions:\n\tdeveloper:\n\t\tenabled: true\n", 2),      // tabs
        ("GOOSE_MODEL: a\nGOOSE_PROVIDER: b\nGOOSE_MODEL: c\n", 3), // a duplicate key
        ("GOOSE_MODEL: a\n---\nGOOSE_MODEL: b\n", 2),               // two documents
        ("extensions:\n  developer: {enabled: true\n", 3),          // an unclosed flow map
        ("GOOSE_MODEL: a\n  GOOSE_MODE: auto\n", 2),                // a key out of line
        ("extensions:\n  github:\n    args: *default_args\n", 3),   // an undefined alias
        ("GOOSE_MODEL: 'unterminated\n", 1),
    ];
    for (text, line) in cases {
        let home = Home::new();
        let path = home.config(GOOSE, text);
        let files = tree(home.dir.path());
        for err in [plan_install(GOOSE, &home.env, &spec()).unwrap_err(), plan_remove(GOOSE, &home.env).unwrap_err()] {
            match &err {
                Error::Syntax { line: l, column, .. } => {
                    assert_eq!((*l, column.is_some()), (Some(line), true), "{text:?}: {err}")
                }
                other => panic!("{text:?}: unexpected {other:?}"),
            }
            assert!(err.to_string().contains(&path.display().to_string()), "{err}");
        }
        assert!(status(GOOSE, &home.env, &spec()).problem.is_some());
        assert_eq!(read(&path), text);
        assert_eq!(tree(home.dir.path()), files);
    }
}

#[test]
fn the_top_level_and_extensions_must_be_maps() {
    let cases = [
        ("- developer\n", "the top level", "a list"),
        ("just words\n", "the top level", "a string"),
        ("extensions:\n", "`extensions`", "null"),
        ("extensions: developer\n", "`extensions`", "a string"),
        ("extensions: [developer]\n", "`extensions`", "a list"),
    ];
    for (text, key, found) in cases {
        let home = Home::new();
        let path = home.config(GOOSE, text);
        let err = plan_install(GOOSE, &home.env, &spec()).unwrap_err();
        match &err {
            Error::Shape { key: k, found: f, expected, .. } => {
                assert_eq!((k.as_str(), *f, *expected), (key, found, "a map"), "{text:?}")
            }
            other => panic!("{text:?}: unexpected {other:?}"),
        }
        assert!(err.to_string().contains("by hand"), "{err}");
        assert_eq!(read(&path), text);
    }
}

#[test]
fn empty_comment_only_and_bare_document_files_are_an_empty_map_and_come_back_as_they_were() {
    round_trip("", &format!("extensions:\n{NEW_ENTRY}"));
    round_trip("\n", &format!("\nextensions:\n{NEW_ENTRY}"));
    round_trip("# goose settings\n", &format!("# goose settings\nextensions:\n{NEW_ENTRY}"));
    round_trip("---\n", &format!("---\nextensions:\n{NEW_ENTRY}"));
    // A top-level map written flow style stays one.
    round_trip("{}\n", "{extensions: {memory-bank: {type: stdio, cmd: {BIN}, args: [mcp], name: memory-bank, enabled: true, \
         description: \"Memory Bank: the person's plaintext memory and their past agent sessions.\", timeout: 300, envs: {}, env_keys: []}}}\n");
}

#[test]
fn a_flow_style_extensions_map_gets_our_entry_flow_style_on_its_line() {
    let ours = "memory-bank: {type: stdio, cmd: {BIN}, args: [mcp], name: memory-bank, enabled: true, \
                description: \"Memory Bank: the person's plaintext memory and their past agent sessions.\", timeout: 300, envs: {}, env_keys: []}";
    round_trip("GOOSE_MODEL: gpt-4o\nextensions: {}\n", &format!("GOOSE_MODEL: gpt-4o\nextensions: {{{ours}}}\n"));
    round_trip(
        "extensions: {developer: {type: builtin, enabled: true}}  # mine\nGOOSE_MODE: auto\n",
        &format!("extensions: {{developer: {{type: builtin, enabled: true}}, {ours}}}  # mine\nGOOSE_MODE: auto\n"),
    );
}

#[test]
fn extensions_at_another_indentation_get_our_entry_at_theirs() {
    let original = "extensions:\n    developer:\n        enabled: true\n        type: builtin\nGOOSE_MODE: auto\n";
    let installed = "extensions:\n    developer:\n        enabled: true\n        type: builtin\n    memory-bank:\n      type: stdio\n      \
                     cmd: {BIN}\n      args:\n        - mcp\n      name: memory-bank\n      enabled: true\n      description: \"Memory Bank: \
                     the person's plaintext memory and their past agent sessions.\"\n      timeout: 300\n      envs: {}\n      env_keys: []\nGOOSE_MODE: auto\n";
    round_trip(original, installed);
}

#[test]
fn a_remote_entry_of_ours_becomes_the_stdio_one_without_its_address_or_headers() {
    let home = Home::new();
    let path = home.config(
        GOOSE,
        "extensions:\n  memory-bank:\n    description: the hosted one\n    enabled: false\n    env_keys: []\n    envs: {}\n    headers:\n      \
         Authorization: Bearer ${MB_TOKEN}\n    name: memory-bank\n    socket: null\n    timeout: 60\n    type: streamable_http\n    \
         uri: https://m.example.com/mcp\n",
    );
    apply(&plan_install(GOOSE, &home.env, &spec()).unwrap()).unwrap();
    let expected = format!(
        "extensions:\n  memory-bank:\n    description: the hosted one\n    enabled: false\n    env_keys: []\n    envs: {{}}\n    \
         name: memory-bank\n    timeout: 60\n    type: stdio\n    cmd: {}\n    args:\n      - mcp\n",
        bin()
    );
    assert_eq!(read(&path), expected);
    assert!(status(GOOSE, &home.env, &spec()).entry_matches);
}

#[test]
fn our_args_keep_the_layout_the_person_or_goose_gave_them() {
    let recall = spec().with_recall(true);
    let cases = [
        ("    args: [serve]   # old\n", "    args: [mcp, '--recall']   # old\n"),
        ("    args:\n    - serve\n", "    args:\n    - mcp\n    - '--recall'\n"),
        ("    args:\n      - mcp\n      - --words-only\n", "    args:\n      - mcp\n      - '--recall'\n"),
    ];
    for (args, updated) in cases {
        let home = Home::new();
        let head = "extensions:\n  memory-bank:\n    type: stdio\n    name: memory-bank\n    cmd: {BIN}\n";
        let path = home.config(GOOSE, &format!("{head}{args}    enabled: true\n").replace("{BIN}", bin()));
        let plan = plan_install(GOOSE, &home.env, &recall).unwrap();
        assert_eq!(plan.change, Change::Update);
        apply(&plan).unwrap();
        assert_eq!(read(&path), format!("{head}{updated}    enabled: true\n").replace("{BIN}", bin()));
        let st = status(GOOSE, &home.env, &recall);
        assert!(st.recall && st.entry_matches && st.up_to_date, "{st:?}");
    }
}

#[test]
fn a_comment_the_person_wrote_in_extensions_keeps_the_map_on_remove() {
    let home = Home::new();
    let path = home.config(GOOSE, "GOOSE_MODEL: gpt-4o\n");
    apply(&plan_install(GOOSE, &home.env, &spec()).unwrap()).unwrap();
    let installed = read(&path).replace("extensions:\n", "extensions:\n  # add more below\n");
    fs::write(&path, &installed).unwrap();
    apply(&plan_remove(GOOSE, &home.env).unwrap()).unwrap();
    assert_eq!(read(&path), "GOOSE_MODEL: gpt-4o\nextensions:\n  # add more below\n  {}\n");
    // It reads back as an empty map, for goose and for us.
    assert!(plan_install(GOOSE, &home.env, &spec()).is_ok());
}

#[test]
fn goose_is_detected_by_its_config_folder_or_its_binary() {
    let home = Home::new();
    assert!(!status(GOOSE, &home.env, &spec()).detected);
    fs::create_dir_all(home.path(".config/goose")).unwrap();
    assert!(status(GOOSE, &home.env, &spec()).detected, "~/.config/goose exists");

    let home = Home::new();
    home.write("bin/goose", "#!/bin/sh\n");
    let env = home.env.clone().with_var("PATH", home.path("bin").to_string_lossy());
    assert!(status(GOOSE, &env, &spec()).detected, "goose on PATH");
}

/// goose's YAML, as `goose configure` writes it (keys sorted, lists not indented) with the
/// person's comments and blank lines.
pub const FIXTURE: Fixture = Fixture {
    rel_path: ".config/goose/config.yaml",
    created: r#"extensions:
  memory-bank:
    type: stdio
    cmd: {BIN}
    args:
      - mcp
    name: memory-bank
    enabled: true
    description: "Memory Bank: the person's plaintext memory and their past agent sessions."
    timeout: 300
    envs: {}
    env_keys: []
"#,
    realistic: r#"# goose configuration
GOOSE_PROVIDER: anthropic
GOOSE_MODEL: claude-sonnet-4-5
GOOSE_MODE: smart_approve # ask before risky tools

extensions:
  developer:
    bundled: true
    display_name: Developer
    enabled: true
    name: developer
    timeout: 300
    type: builtin

  # GitHub's MCP server, started by npx
  github:
    args:
    - -y
    - '@modelcontextprotocol/server-github'
    cmd: npx
    description: GitHub issues and pull requests
    enabled: true
    env_keys:
    - GITHUB_PERSONAL_ACCESS_TOKEN
    envs: {}
    name: github
    timeout: 300
    type: stdio

GOOSE_TELEMETRY_ENABLED: false
"#,
    realistic_installed: r#"# goose configuration
GOOSE_PROVIDER: anthropic
GOOSE_MODEL: claude-sonnet-4-5
GOOSE_MODE: smart_approve # ask before risky tools

extensions:
  developer:
    bundled: true
    display_name: Developer
    enabled: true
    name: developer
    timeout: 300
    type: builtin

  # GitHub's MCP server, started by npx
  github:
    args:
    - -y
    - '@modelcontextprotocol/server-github'
    cmd: npx
    description: GitHub issues and pull requests
    enabled: true
    env_keys:
    - GITHUB_PERSONAL_ACCESS_TOKEN
    envs: {}
    name: github
    timeout: 300
    type: stdio
  memory-bank:
    type: stdio
    cmd: {BIN}
    args:
      - mcp
    name: memory-bank
    enabled: true
    description: "Memory Bank: the person's plaintext memory and their past agent sessions."
    timeout: 300
    envs: {}
    env_keys: []

GOOSE_TELEMETRY_ENABLED: false
"#,
    no_container: "# goose\nGOOSE_PROVIDER: openai\nGOOSE_MODEL: gpt-4o\n",
    stale: r#"GOOSE_PROVIDER: ollama

extensions:
  # ours, from an old install
  memory-bank:
    args:
    - serve
    cmd: /old/place/memory-bank   # moved since
    description: my notes
    enabled: false
    env_keys: []
    envs:
      FOO: bar
    name: memory-bank
    timeout: 60
    type: stdio
  other:
    args: []
    cmd: other
    enabled: true
    name: other
    type: stdio
"#,
    stale_updated: r#"GOOSE_PROVIDER: ollama

extensions:
  # ours, from an old install
  memory-bank:
    args:
    - mcp
    cmd: {BIN}   # moved since
    description: my notes
    enabled: false
    env_keys: []
    envs:
      FOO: bar
    name: memory-bank
    timeout: 60
    type: stdio
  other:
    args: []
    cmd: other
    enabled: true
    name: other
    type: stdio
"#,
    // goose reads YAML strictly: a key out of line with its siblings is an error.
    syntax_error: ("GOOSE_MODEL: gpt-4o\nextensions:\n  developer:\n    enabled: true\n   type: builtin\n", 5),
    wrong_shape: "extensions:\n- developer\n",
};
