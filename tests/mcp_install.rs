//! `memory-bank mcp install` through the real binary, in an empty home of its own: the
//! options the person gives are registered (paths made absolute) or refused with nothing
//! written, never dropped; a reader that goes away is not a fault; the path written is the
//! one the person ran, through a symlink too; re-installing keeps the person's keys, the
//! backup keeps their original, and removing deletes a file install created.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_memory-bank");

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home { dir: tempfile::tempdir().unwrap() }
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// `PROGRAM ARGS` in this home (the folder it runs in is the home), with no
    /// Memory Bank or agent variables from the test's own environment.
    fn command_of(&self, program: &Path, args: &[&str]) -> Command {
        std::fs::create_dir_all(self.home()).unwrap();
        let mut cmd = Command::new(program);
        cmd.args(args).current_dir(self.home()).env("HOME", self.home()).env("PATH", "/nonexistent");
        cmd.env("MEMORY_BANK_DATA_DIR", self.dir.path().join("data"));
        for var in [
            "MEMORY_BANK_DATABASE_URL", "MEMORY_BANK_URL", "MEMORY_BANK_TOKEN", "MEMORY_BANK_ORG", "MEMORY_BANK_DB_KEY_FILE",
            "MEMORY_BANK_DB_KEY_KEYRING", "MEMORY_BANK_WORDS_ONLY", "MEMORY_BANK_SESSIONS_INDEX", "MEMORY_BANK_CONFIRM_TIMEOUT",
            "CODEX_HOME", "XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "NO_COLOR",
        ] {
            cmd.env_remove(var);
        }
        cmd
    }

    fn command(&self, args: &[&str]) -> Command {
        self.command_of(Path::new(BIN), args)
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn codex(&self) -> PathBuf {
        self.home().join(".codex/config.toml")
    }

    fn claude(&self) -> PathBuf {
        self.home().join(".claude.json")
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Our entry's `command` and `args` in Claude Code's file.
fn claude_entry(h: &Home) -> (String, Vec<String>) {
    let file: Value = serde_json::from_str(&std::fs::read_to_string(h.claude()).unwrap()).unwrap();
    let entry = &file["mcpServers"]["memory-bank"];
    let args = entry["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_owned()).collect();
    (entry["command"].as_str().unwrap().to_owned(), args)
}

#[test]
fn the_options_given_are_registered_with_absolute_paths_and_the_agent_can_start_them() {
    let h = Home::new();
    std::fs::create_dir_all(h.home().join("old-codex")).unwrap();
    let out = h.run(&[
        "--words-only", "--db-key-file", "keys/bank.key", "mcp", "--index", "idx/sessions.sqlite", "--root",
        "codex=old-codex", "--meta", "--confirm-timeout", "30", "install", "--agent", "claude-code",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let home = h.home();
    let (command, args) = claude_entry(&h);
    assert_eq!(command, BIN);
    let expected = [
        "mcp".to_owned(),
        "--index".into(),
        home.join("idx/sessions.sqlite").display().to_string(),
        "--root".into(),
        format!("codex={}", home.join("old-codex").display()),
        "--db-key-file".into(),
        home.join("keys/bank.key").display().to_string(),
        "--words-only".into(),
        "--meta".into(),
        "--confirm-timeout".into(),
        "30".into(),
    ];
    assert_eq!(args, expected);
    // What the agent will run starts the server, with those options: it answers initialize.
    let key = home.join("keys/bank.key");
    std::fs::create_dir_all(key.parent().unwrap()).unwrap();
    std::fs::write(&key, "ab".repeat(32)).unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut server = h.command(&args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"install-test","version":"1"}}}"#;
    std::io::Write::write_all(server.stdin.as_mut().unwrap(), format!("{initialize}\n").as_bytes()).unwrap();
    let mut answer = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(server.stdout.take().unwrap()), &mut answer).unwrap();
    drop(server.stdin.take());
    let ended = server.wait_with_output().unwrap();
    let answer: Value = serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{e}: {answer:?} {}", text(&ended.stderr)));
    assert_eq!(answer["result"]["serverInfo"]["name"], "memory-bank", "{answer}");
    assert!(answer["result"]["capabilities"]["tools"].is_object(), "{answer}");
    // Options from the environment are registered the same way.
    let h = Home::new();
    let out = h.command(&["mcp", "install", "--agent", "claude-code"]).env("MEMORY_BANK_WORDS_ONLY", "1").output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(claude_entry(&h).1, ["mcp", "--words-only"]);
}

#[test]
fn options_the_server_cannot_take_from_a_config_file_are_refused_and_nothing_is_written() {
    // (arguments, an environment variable, what the refusal names)
    type Case<'a> = (&'a [&'a str], Option<(&'a str, &'a str)>, &'a str);
    let cases: [Case; 6] = [
        (&["--database-url", "mysql://u:p@db:3306/bank", "mcp", "install", "--agent", "codex"], None, "--database-url"),
        (&["mcp", "install", "--agent", "codex"], Some(("MEMORY_BANK_DATABASE_URL", "mysql://u:p@db/bank")), "--database-url"),
        (&["--db-key-keyring", "mcp", "install", "--agent", "codex"], None, "--db-key-keyring"),
        (&["mcp", "--url", "https://memory.example.com", "install", "--agent", "codex"], None, "/mcp"),
        (&["mcp", "install", "--agent", "codex"], Some(("MEMORY_BANK_URL", "https://memory.example.com")), "/mcp"),
        (&["mcp", "--org", "org_1", "install", "--agent", "codex"], None, "--org"),
    ];
    for (args, env, says) in cases {
        let h = Home::new();
        let mut cmd = h.command(args);
        if let Some((name, value)) = env {
            cmd.env(name, value);
        }
        let out = cmd.output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?} {env:?}: {err}");
        assert!(err.starts_with("memory-bank: error: ") && err.contains(says) && err.contains("Nothing was written"), "{args:?}: {err}");
        assert!(!err.contains("u:p@") && !h.codex().exists(), "{args:?}: no file, and the URL's password never echoed");
    }
}

#[cfg(unix)]
#[test]
fn a_reader_that_goes_away_is_no_fault_and_the_change_is_made() {
    for (args, writes) in [(&["mcp", "install", "--agent", "codex"][..], true), (&["mcp", "install", "--agent", "codex", "--dry-run"][..], false)] {
        for _ in 0..5 {
            let h = Home::new();
            let (reader, writer) = std::io::pipe().unwrap();
            drop(reader); // `| true`: nobody reads
            let out = h.command(args).stdout(writer).stderr(Stdio::piped()).output().unwrap();
            let err = text(&out.stderr);
            assert!(out.status.success() && !err.contains("fault"), "{args:?}: {:?} {err}", out.status);
            assert_eq!(h.codex().exists(), writes, "{args:?}");
        }
    }
}

#[cfg(unix)]
#[test]
fn the_path_written_is_the_one_the_person_ran_even_through_a_symlink() {
    let h = Home::new();
    let bin = h.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let link = bin.join("memory-bank");
    std::os::unix::fs::symlink(BIN, &link).unwrap();
    let out = h.command_of(&link, &["mcp", "install", "--agent", "claude-code"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(claude_entry(&h).0, link.display().to_string(), "the link, not its target");
    // Run by bare name, found on PATH as the shell found it.
    let h2 = Home::new();
    let out = h2.command_of(Path::new("memory-bank"), &["mcp", "install", "--agent", "claude-code"]).env("PATH", &bin).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(claude_entry(&h2).0, link.display().to_string());
}

#[test]
fn reinstall_keeps_the_persons_keys_the_backup_keeps_the_original_and_remove_deletes_a_file_install_created() {
    let h = Home::new();
    // A file install creates goes again on remove, with the note beside it.
    assert!(h.run(&["mcp", "install", "--agent", "codex"]).status.success());
    assert!(h.codex().exists());
    let out = h.run(&["mcp", "install", "--agent", "codex", "--remove"]);
    assert!(out.status.success() && text(&out.stdout).contains("which install had created"), "{}", text(&out.stdout));
    assert!(!h.codex().exists(), "nothing of ours left: {:?}", std::fs::read_dir(h.codex().parent().unwrap()).unwrap().collect::<Vec<_>>());
    assert!(std::fs::read_dir(h.codex().parent().unwrap()).unwrap().next().is_none(), "no note or backup left");

    // The person's own file: their keys in our entry survive re-install; the backup is
    // their original however often we change the file.
    let original = "model = \"o3\"\n\n[mcp_servers.memory-bank]\ncommand = \"/old/memory-bank\"\nargs = [\"mcp\"]\n\
                    startup_timeout_sec = 20\nenabled = false\n\n[mcp_servers.memory-bank.env]\nRUST_LOG = \"debug\"\n";
    std::fs::write(h.codex(), original).unwrap();
    for _ in 0..2 {
        assert!(h.run(&["mcp", "install", "--agent", "codex"]).status.success());
    }
    let installed = std::fs::read_to_string(h.codex()).unwrap();
    let expected = original.replace("/old/memory-bank", BIN);
    assert_eq!(installed, expected, "only the command changed");
    let out = h.run(&["mcp", "install", "--agent", "codex", "--remove"]);
    assert!(out.status.success() && text(&out.stdout).contains("before Memory Bank first changed it"), "{}", text(&out.stdout));
    assert_eq!(std::fs::read_to_string(h.codex()).unwrap(), "model = \"o3\"\n");
    let backup = PathBuf::from(format!("{}.memory-bank.bak", h.codex().display()));
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), original, "the backup is the person's original");
    assert!(h.run(&["mcp", "install", "--agent", "codex"]).status.success());
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), original, "and stays so");
}

#[test]
fn gemini_install_says_the_folder_must_be_trusted_and_how() {
    let h = Home::new();
    let out = h.run(&["mcp", "install", "--agent", "gemini"]);
    let said = text(&out.stdout);
    assert!(out.status.success() && said.contains("only in folders you trust") && said.contains("trustedFolders.json"), "{said}");
    let out = h.run(&["mcp", "install", "--agent", "codex"]);
    assert!(!text(&out.stdout).contains("trust"), "only Gemini CLI needs it");
}

/// Our hook's command on `event` in Claude Code's settings, when there is one.
fn claude_hook(h: &Home, event: &str) -> Option<String> {
    let text = std::fs::read_to_string(h.home().join(".claude/settings.json")).ok()?;
    let file: Value = serde_json::from_str(&text).unwrap();
    let groups = file["hooks"][event].as_array()?;
    groups.iter().flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default()).find_map(|hook| {
        let command = hook["command"].as_str()?;
        command.contains(" recall ").then(|| command.to_owned())
    })
}

#[test]
fn recall_on_registers_the_server_with_recall_and_a_hook_the_agent_can_run_and_off_takes_both_out() {
    let h = Home::new();
    let out = h.run(&["mcp", "install", "--agent", "claude-code", "--recall"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let told = text(&out.stdout);
    assert!(told.contains("added the recall hook") || told.contains("created the file with the recall hook"), "{told}");
    assert!(told.contains("runs the recall hook (`memory-bank recall`) on each prompt"), "{told}");
    assert_eq!(claude_entry(&h).1, ["mcp", "--recall"]);
    let command = claude_hook(&h, "UserPromptSubmit").expect("the prompt hook");
    assert_eq!(command, format!("{BIN} recall --agent claude-code"));
    assert_eq!(claude_hook(&h, "SessionStart").as_deref(), Some(command.as_str()));

    // The command as the agent runs it (through the shell), with its hook JSON: an empty
    // bank has nothing to say, and says nothing.
    let mut hook = Command::new("sh")
        .args(["-c", &command])
        .current_dir(h.home())
        .env("HOME", h.home())
        .env("MEMORY_BANK_DATA_DIR", h.dir.path().join("data"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let event = r#"{"session_id":"s","cwd":"/w/app","hook_event_name":"UserPromptSubmit","prompt":"how do I deploy?"}"#;
    std::io::Write::write_all(hook.stdin.as_mut().unwrap(), event.as_bytes()).unwrap();
    let ran = hook.wait_with_output().unwrap();
    assert!(ran.status.success() && ran.stdout.is_empty(), "{ran:?}");

    // Installing again without --recall turns it off: the server's flag and the hook go.
    let out = h.run(&["mcp", "install", "--agent", "claude-code"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("removed the recall hook"), "{}", text(&out.stdout));
    assert_eq!(claude_entry(&h).1, ["mcp"]);
    assert!(!h.home().join(".claude/settings.json").exists(), "the file install created goes again");

    // Remove takes everything out, hook included.
    assert!(h.run(&["mcp", "install", "--agent", "claude-code", "--recall"]).status.success());
    let out = h.run(&["mcp", "install", "--agent", "claude-code", "--remove"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!h.home().join(".claude/settings.json").exists() && !h.claude().exists());
}

#[test]
fn recall_says_what_each_agent_needs_codex_trust_and_no_hook_elsewhere() {
    let h = Home::new();
    let out = h.run(&["mcp", "install", "--agent", "codex", "--recall"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let told = text(&out.stdout);
    assert!(told.contains("open /hooks, and trust memory-bank's recall hook"), "{told}");
    let hooks = std::fs::read_to_string(h.home().join(".codex/hooks.json")).unwrap();
    assert!(hooks.contains(&format!("\"command\": \"{BIN} recall --agent codex\"")), "{hooks}");
    assert!(std::fs::read_to_string(h.codex()).unwrap().contains(r#"args = ["mcp", "--recall"]"#));

    let out = h.run(&["mcp", "install", "--agent", "opencode", "--recall"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let told = text(&out.stdout);
    assert!(told.contains("opencode has no hook that adds context"), "{told}");
    let opencode = std::fs::read_to_string(h.home().join(".config/opencode/opencode.json")).unwrap();
    assert!(opencode.contains("\"--recall\""), "{opencode}");

    // --recall with --remove is a contradiction, refused before anything is read.
    let out = h.run(&["mcp", "install", "--agent", "codex", "--remove", "--recall"]);
    assert!(!out.status.success() && text(&out.stderr).contains("--recall"), "{}", text(&out.stderr));
}

#[test]
fn the_server_refuses_a_database_url_instead_of_ignoring_it() {
    let h = Home::new();
    let out = h.command(&["--database-url", "mysql://u:secretpw@db:3306/bank", "mcp"]).stdin(Stdio::null()).output().unwrap();
    let err = text(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("--database-url") && err.contains("--url"), "{err}");
    assert!(!err.contains("secretpw"), "the password is never echoed: {err}");
}
