//! Behaviours that are not per agent: names, paths, detection, safety rails.

use std::fs;
use std::str::FromStr;

use memory_bank_agent_install::{
    apply, plan_install, plan_remove, status, Agent, AgentEnv, Change, Error, ServerSpec,
};

use crate::fixtures::fixture;
use crate::{read, spec, Home};

#[test]
fn agent_names_round_trip_through_from_str_display_and_serde() {
    let names = ["claude-code", "codex", "opencode", "gemini", "claude-desktop", "cursor", "vscode", "windsurf", "zed", "goose"];
    let display =
        ["Claude Code", "Codex CLI", "opencode", "Gemini CLI", "Claude Desktop", "Cursor", "VS Code", "Windsurf", "Zed", "goose"];
    assert_eq!(Agent::ALL.len(), names.len());
    for ((agent, name), shown) in Agent::ALL.into_iter().zip(names).zip(display) {
        assert_eq!(agent.to_string(), name);
        assert_eq!(Agent::from_str(name).unwrap(), agent);
        assert_eq!(agent.display_name(), shown);
        assert_eq!(serde_json::to_string(&agent).unwrap(), format!("\"{name}\""));
        assert_eq!(serde_json::from_str::<Agent>(&format!("\"{name}\"")).unwrap(), agent);
    }
}

#[test]
fn unknown_agent_name_lists_the_valid_ones() {
    let err = Agent::from_str("claude").unwrap_err();
    assert!(matches!(err, Error::UnknownAgent(ref n) if n == "claude"));
    assert!(err.to_string().contains("claude-code, codex, opencode, gemini, claude-desktop, cursor, vscode, windsurf, zed, goose"), "{err}");
}

#[test]
fn config_paths_default_under_home() {
    let home = Home::new();
    for agent in Agent::ALL {
        let st = status(agent, &home.env, &spec());
        assert_eq!(st.config_path, home.path(fixture(agent).rel_path), "{agent}");
        assert!(!st.detected && !st.installed && !st.entry_matches && st.problem.is_none(), "{st:?}");
    }
}

#[test]
fn config_paths_follow_agent_env_vars() {
    let home = Home::new();
    let dir = |name: &str| home.path(name).to_string_lossy().into_owned();
    let env = home
        .env
        .clone()
        .with_var("CLAUDE_CONFIG_DIR", dir("claude-alt"))
        .with_var("CODEX_HOME", dir("codex-alt"))
        .with_var("XDG_CONFIG_HOME", dir("xdg"))
        .with_var("GEMINI_CLI_HOME", dir("gemini-home"));
    let path = |agent| status(agent, &env, &spec()).config_path;
    assert_eq!(path(Agent::ClaudeCode), home.path("claude-alt/.claude.json"));
    assert_eq!(path(Agent::Codex), home.path("codex-alt/config.toml"));
    assert_eq!(path(Agent::Opencode), home.path("xdg/opencode/opencode.json"));
    assert_eq!(path(Agent::Gemini), home.path("gemini-home/.gemini/settings.json"));
    // The apps that keep settings under the XDG config folder on Linux follow it too.
    #[cfg(target_os = "linux")]
    {
        assert_eq!(path(Agent::ClaudeDesktop), home.path("xdg/Claude/claude_desktop_config.json"));
        assert_eq!(path(Agent::VsCode), home.path("xdg/Code/User/mcp.json"));
        assert_eq!(path(Agent::Zed), home.path("xdg/zed/settings.json"));
    }
    // goose follows XDG_CONFIG_HOME on macOS too (its folders are XDG's everywhere but Windows).
    #[cfg(not(windows))]
    assert_eq!(path(Agent::Goose), home.path("xdg/goose/config.yaml"));
    let rooted = env.clone().with_var("GOOSE_PATH_ROOT", dir("goose-root"));
    assert_eq!(status(Agent::Goose, &rooted, &spec()).config_path, home.path("goose-root/config/config.yaml"));
    assert_eq!(path(Agent::Cursor), home.path(".cursor/mcp.json"));
    assert_eq!(path(Agent::Windsurf), home.path(".codeium/windsurf/mcp_config.json"));

    // Blank variables count as unset.
    let blank = home.env.clone().with_var("CODEX_HOME", "  ");
    assert_eq!(status(Agent::Codex, &blank, &spec()).config_path, home.path(".codex/config.toml"));

    // Plans follow the same paths.
    let plan = plan_install(Agent::Codex, &env, &spec()).unwrap();
    apply(&plan).unwrap();
    assert!(home.path("codex-alt/config.toml").is_file());
}

#[test]
fn opencode_edits_the_jsonc_file_when_only_that_exists() {
    let home = Home::new();
    let jsonc = home.write(".config/opencode/opencode.jsonc", "{\n  // mine\n  \"model\": \"x\"\n}\n");
    let plan = plan_install(Agent::Opencode, &home.env, &spec()).unwrap();
    assert_eq!(plan.path, jsonc);
    assert_eq!(plan.change, Change::Add);

    let json = home.write(".config/opencode/opencode.json", "{}\n");
    assert_eq!(plan_install(Agent::Opencode, &home.env, &spec()).unwrap().path, json);
}

#[test]
fn detection_uses_config_folder_or_binary_on_path() {
    let home = Home::new();
    assert!(!status(Agent::ClaudeCode, &home.env, &spec()).detected);
    fs::create_dir_all(home.path(".claude")).unwrap();
    assert!(status(Agent::ClaudeCode, &home.env, &spec()).detected, "~/.claude exists");
    home.write(".codex/config.toml", "");
    assert!(status(Agent::Codex, &home.env, &spec()).detected, "config file exists");

    home.write("bin/gemini", "#!/bin/sh\n");
    let bin = home.path("bin");
    let env = home.env.clone().with_var("PATH", std::env::join_paths([bin]).unwrap().to_string_lossy());
    assert!(status(Agent::Gemini, &env, &spec()).detected, "gemini on PATH");
    assert!(!status(Agent::Opencode, &env, &spec()).detected);
}

#[test]
fn no_token_or_secret_is_ever_written() {
    // `ServerSpec` has no token, URL or env field, so this holds by construction; check the
    // bytes anyway, and that each entry has exactly the keys the agent documents.
    let home = Home::new();
    let expected_keys: [(Agent, &[&str]); 10] = [
        (Agent::ClaudeCode, &["args", "command", "env", "type"]),
        (Agent::Codex, &["args", "command"]),
        (Agent::Opencode, &["command", "enabled", "type"]),
        (Agent::Gemini, &["args", "command"]),
        (Agent::ClaudeDesktop, &["args", "command"]),
        (Agent::Cursor, &["args", "command"]),
        (Agent::VsCode, &["args", "command", "type"]),
        (Agent::Windsurf, &["args", "command"]),
        (Agent::Zed, &["args", "command"]),
        (Agent::Goose, &["args", "cmd", "description", "enabled", "env_keys", "envs", "name", "timeout", "type"]),
    ];
    for (agent, keys) in expected_keys {
        let plan = plan_install(agent, &home.env, &spec()).unwrap();
        let after = plan.after.unwrap();
        for word in ["token", "secret", "bearer", "password", "authorization", "api_key", "apikey", "url"] {
            assert!(!after.to_lowercase().contains(word), "{agent} entry contains {word:?}: {after}");
        }
        let entry: serde_json::Value = if agent == Agent::Codex {
            let doc: toml_edit::DocumentMut = after.parse().unwrap();
            let table = &doc["mcp_servers"]["memory-bank"];
            let keys =
                table.as_table().unwrap().iter().map(|(k, _)| (k.to_string(), serde_json::Value::Null));
            serde_json::Value::Object(keys.collect())
        } else if agent == Agent::Goose {
            let file: yaml_edit::YamlFile = after.parse().unwrap();
            let entry = file.document().unwrap().as_mapping().unwrap().get_mapping("extensions").unwrap();
            let entry = entry.get_mapping("memory-bank").unwrap();
            let keys = entry.keys().map(|k| (k.as_scalar().unwrap().as_string(), serde_json::Value::Null));
            serde_json::Value::Object(keys.collect())
        } else {
            let doc: serde_json::Value = serde_json::from_str(&after).unwrap();
            let container = match agent {
                Agent::Opencode => "mcp",
                Agent::VsCode => "servers",
                Agent::Zed => "context_servers",
                _ => "mcpServers",
            };
            doc[container]["memory-bank"].clone()
        };
        let mut found: Vec<&str> = entry.as_object().unwrap().keys().map(String::as_str).collect();
        found.sort();
        assert_eq!(found, keys, "{agent}");
    }
}

#[test]
fn relative_or_odd_binary_paths() {
    assert!(matches!(ServerSpec::new("memory-bank"), Err(Error::BinaryNotAbsolute(_))));
    #[cfg(unix)]
    {
        // Quotes and backslashes are escaped, and the result reads back as our entry.
        let odd = ServerSpec::new("/opt/we\"ird\\dir/memory-bank").unwrap();
        for agent in Agent::ALL {
            let home = Home::new();
            apply(&plan_install(agent, &home.env, &odd).unwrap()).unwrap();
            assert!(status(agent, &home.env, &odd).entry_matches, "{agent}");
            assert!(!status(agent, &home.env, &spec()).entry_matches, "{agent}");
        }
    }
}

#[test]
fn apply_refuses_when_the_file_changed_since_planning() {
    let home = Home::new();
    let path = home.config(Agent::ClaudeCode, "{\n  \"numStartups\": 1\n}\n");
    let plan = plan_install(Agent::ClaudeCode, &home.env, &spec()).unwrap();
    fs::write(&path, "{\n  \"numStartups\": 2\n}\n").unwrap(); // the agent rewrote it
    let err = apply(&plan).unwrap_err();
    assert!(matches!(err, Error::ChangedSincePlan { .. }), "{err}");
    assert!(err.to_string().contains("plan again"), "{err}");
    assert_eq!(read(&path), "{\n  \"numStartups\": 2\n}\n");
}

#[cfg(unix)]
#[test]
fn a_symlinked_config_is_written_through_to_its_target() {
    let home = Home::new();
    let target = home.write("dotfiles/settings.json", "{\n  \"ui\": {}\n}\n");
    fs::create_dir_all(home.path(".gemini")).unwrap();
    std::os::unix::fs::symlink(&target, home.path(".gemini/settings.json")).unwrap();
    apply(&plan_install(Agent::Gemini, &home.env, &spec()).unwrap()).unwrap();
    assert!(fs::symlink_metadata(home.path(".gemini/settings.json")).unwrap().file_type().is_symlink());
    assert!(read(&target).contains("memory-bank"));
}

#[test]
fn line_endings_bom_and_missing_final_newline_are_kept() {
    let cases = [
        (Agent::Codex, "model = \"o3\"\r\n\r\n[mcp_servers.docs]\r\ncommand = \"d\"\r\n"),
        (Agent::Codex, "model = \"o3\""),
        (Agent::Gemini, "\u{feff}{\r\n  \"ui\": {}\r\n}\r\n"),
        (Agent::ClaudeCode, "{\n\t\"numStartups\": 1\n}"),
        (Agent::Goose, "GOOSE_MODEL: gpt-4o\r\n\r\nextensions:\r\n  developer:\r\n    enabled: true\r\n"),
        (Agent::Goose, "GOOSE_MODEL: gpt-4o"),
        (Agent::Goose, "\u{feff}# goose\nGOOSE_MODEL: gpt-4o\n"),
    ];
    for (agent, original) in cases {
        let home = Home::new();
        let path = home.config(agent, original);
        let install = plan_install(agent, &home.env, &spec()).unwrap();
        let after = install.after.clone().unwrap();
        assert_eq!(after.contains("\r\n"), original.contains("\r\n"), "{agent}: {after:?}");
        if original.contains("\r\n") {
            assert_eq!(after.matches('\n').count(), after.matches("\r\n").count(), "{agent}: {after:?}");
        }
        assert_eq!(after.starts_with('\u{feff}'), original.starts_with('\u{feff}'));
        assert_eq!(after.ends_with('\n'), original.ends_with('\n'), "{agent}: {after:?}");
        apply(&install).unwrap();
        apply(&plan_remove(agent, &home.env).unwrap()).unwrap();
        assert_eq!(read(&path), original, "{agent}");
    }
}

#[test]
fn each_json_agent_accepts_exactly_its_own_dialect() {
    let trailing_comma = "{\n  \"model\": \"x\",\n}\n";
    let comment = "{\n  // hi\n  \"model\": \"x\"\n}\n";
    let accepts = |agent, text| {
        let home = Home::new();
        home.config(agent, text);
        plan_install(agent, &home.env, &spec()).is_ok()
    };
    assert!(!accepts(Agent::ClaudeCode, comment) && !accepts(Agent::ClaudeCode, trailing_comma));
    assert!(accepts(Agent::Gemini, comment) && !accepts(Agent::Gemini, trailing_comma));
    assert!(accepts(Agent::Opencode, comment) && accepts(Agent::Opencode, trailing_comma));
    // The editors read JSONC (comments and trailing commas); Claude Desktop and Windsurf
    // read plain JSON.
    for editor in [Agent::Cursor, Agent::VsCode, Agent::Zed] {
        assert!(accepts(editor, comment) && accepts(editor, trailing_comma), "{editor}");
    }
    for strict in [Agent::ClaudeDesktop, Agent::Windsurf] {
        assert!(!accepts(strict, comment) && !accepts(strict, trailing_comma), "{strict}");
    }
}

#[test]
fn codex_server_tables_in_every_toml_spelling() {
    let cases = [
        // Inline table: our entry is added inline.
        "mcp_servers = { docs = { command = \"d\" } }\n",
        // Explicit empty parent header: kept on removal.
        "[mcp_servers]\n\n[mcp_servers.docs]\ncommand = \"d\"\n",
        // Dotted keys.
        "mcp_servers.docs.command = \"d\"\n",
    ];
    for original in cases {
        let home = Home::new();
        let path = home.config(Agent::Codex, original);
        apply(&plan_install(Agent::Codex, &home.env, &spec()).unwrap()).unwrap();
        assert!(read(&path).parse::<toml_edit::DocumentMut>().is_ok(), "{}", read(&path));
        assert!(status(Agent::Codex, &home.env, &spec()).entry_matches, "{}", read(&path));
        apply(&plan_remove(Agent::Codex, &home.env).unwrap()).unwrap();
        assert_eq!(read(&path), original);
    }
}

#[test]
fn codex_reinstall_keeps_the_persons_env_table_timeout_and_enabled() {
    let home = Home::new();
    let mine = "[mcp_servers.memory-bank]\ncommand = \"/old\"\nargs = [\"mcp\"]\nstartup_timeout_sec = 20\nenabled = false\n\n\
                [mcp_servers.memory-bank.env]\nX = \"1\"\n";
    let path = home.config(Agent::Codex, mine);
    apply(&plan_install(Agent::Codex, &home.env, &spec()).unwrap()).unwrap();
    assert_eq!(read(&path), mine.replace("/old", crate::bin()));
    assert!(status(Agent::Codex, &home.env, &spec()).entry_matches);
    assert_eq!(plan_install(Agent::Codex, &home.env, &spec()).unwrap().change, Change::AlreadyInstalled);
}

#[test]
fn a_remote_entry_of_ours_becomes_the_stdio_one_without_its_url_or_headers() {
    let home = Home::new();
    let remote = "{\n  \"mcpServers\": {\n    \"memory-bank\": {\n      \"type\": \"http\",\n      \"url\": \"https://m.example.com/mcp\",\n      \
                  \"headers\": {\"Authorization\": \"Bearer ${MB_TOKEN}\"},\n      \"timeout\": 5000\n    }\n  }\n}\n";
    let path = home.config(Agent::ClaudeCode, remote);
    apply(&plan_install(Agent::ClaudeCode, &home.env, &spec()).unwrap()).unwrap();
    let entry: serde_json::Value = serde_json::from_str(&read(&path)).unwrap();
    let entry = &entry["mcpServers"]["memory-bank"];
    assert_eq!(entry["type"], "stdio");
    assert_eq!(entry["command"], crate::bin());
    assert_eq!(entry["args"], serde_json::json!(["mcp"]));
    assert_eq!(entry["timeout"], 5000, "the person's own key stays");
    assert!(entry.get("url").is_none() && entry.get("headers").is_none(), "{entry}");
    let codex = home.config(Agent::Codex, "[mcp_servers.memory-bank]\nurl = \"https://m.example.com/mcp\"\nbearer_token_env_var = \"MB\"\n");
    apply(&plan_install(Agent::Codex, &home.env, &spec()).unwrap()).unwrap();
    assert_eq!(read(&codex), format!("[mcp_servers.memory-bank]\ncommand = \"{}\"\nargs = [\"mcp\"]\n", crate::bin()));
}

#[test]
fn codex_remove_from_the_top_leaves_no_blank_first_line() {
    let home = Home::new();
    let original = "[mcp_servers.docs]\ncommand = \"docs\"\n";
    let path = home.config(Agent::Codex, original);
    fs::write(&path, format!("[mcp_servers.memory-bank]\ncommand = \"{}\"\nargs = [\"mcp\"]\n\n{original}", crate::bin())).unwrap();
    apply(&plan_remove(Agent::Codex, &home.env).unwrap()).unwrap();
    assert_eq!(read(&path), original);
}

#[test]
fn options_go_after_mcp_in_every_agent() {
    let options = vec!["--index".to_owned(), "/data/idx.sqlite".to_owned(), "--words-only".to_owned()];
    let with = spec().with_options(options);
    for agent in Agent::ALL {
        let home = Home::new();
        apply(&plan_install(agent, &home.env, &with).unwrap()).unwrap();
        let text = read(&home.config_path(agent));
        assert!(text.contains("/data/idx.sqlite") && text.contains("--words-only"), "{agent}: {text}");
        assert!(status(agent, &home.env, &with).entry_matches, "{agent}");
        assert!(!status(agent, &home.env, &spec()).entry_matches, "{agent}: other options, another entry");
    }
}

#[test]
fn the_path_run_is_found_as_the_shell_found_it() {
    use memory_bank_agent_install::invoked_path;
    use std::path::Path;
    let home = Home::new();
    let bin = home.write("bin/memory-bank", "");
    let cwd = home.dir.path();
    assert_eq!(invoked_path(Path::new("memory-bank"), Some(cwd), Some(bin.parent().unwrap().as_os_str())), Some(bin.clone()));
    assert_eq!(invoked_path(Path::new("./bin/memory-bank"), Some(cwd), None), Some(bin.clone()), "relative, without ./");
    assert_eq!(invoked_path(&bin, None, None), Some(bin.clone()));
    assert_eq!(invoked_path(Path::new("memory-bank"), Some(cwd), Some(std::ffi::OsStr::new("relative/bin"))), None, "only absolute PATH folders");
    assert_eq!(invoked_path(Path::new(""), Some(cwd), None), None);
}

#[test]
fn plans_and_statuses_serialize_for_the_desktop_app() {
    let home = Home::new();
    let plan = plan_install(Agent::ClaudeCode, &home.env, &spec()).unwrap();
    let json = serde_json::to_value(&plan).unwrap();
    assert_eq!(json["agent"], "claude-code");
    assert_eq!(json["change"], "create");
    assert_eq!(json["changed"], true);
    assert!(json["before"].is_null() && json["after"].is_string() && json["diff"].is_string());
    let st = serde_json::to_value(status(Agent::Codex, &home.env, &spec())).unwrap();
    assert_eq!(st["notice"], serde_json::Value::Null, "only Gemini CLI has one");
    let gemini = serde_json::to_value(status(Agent::Gemini, &home.env, &spec())).unwrap();
    assert_eq!(gemini["notice"], "trust-the-folder");
    for key in ["agent", "displayName", "configPath", "detected", "installed", "entryMatches", "problem", "notice"] {
        assert!(st.get(key).is_some(), "missing {key}: {st}");
    }
}

#[test]
fn from_process_reads_the_real_environment() {
    let env = AgentEnv::from_process().unwrap();
    assert!(env.home.is_absolute());
    assert!(env.vars.keys().all(|k| memory_bank_agent_install::RELEVANT_VARS.contains(&k.as_str())));
}
