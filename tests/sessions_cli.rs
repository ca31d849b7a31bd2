//! `memory-bank sessions …` end to end: the real binary over a home holding sessions of
//! all four tools, answering with the lookup actions' exact JSON shapes.

use memory_bank_sessions::testing as session_home;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

struct Home {
    _dir: tempfile::TempDir,
    home: PathBuf,
    /// The session archive's key file (so no test reaches the machine's own keyring).
    key_file: PathBuf,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        session_home::populate_home(&home);
        let key_file = dir.path().join("db.key");
        std::fs::write(&key_file, format!("{}\n", memory_bank_sessions::DbKey::generate().to_hex())).unwrap();
        std::fs::set_permissions(&key_file, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
        Home { _dir: dir, home, key_file }
    }

    /// Runs `memory-bank sessions ARGS` with `HOME` set to this home (the data folder,
    /// and so the index, follow it).
    fn run(&self, args: &[&str]) -> Output {
        self.run_with_key(args, Some(&self.key_file))
    }

    /// [`Home::run`] with the archive key in `key_file`, or in a new key file when `None`.
    fn run_with_key(&self, args: &[&str], key_file: Option<&Path>) -> Output {
        let other = self._dir.path().join("other.key");
        if key_file.is_none() {
            std::fs::write(&other, format!("{}\n", memory_bank_sessions::DbKey::generate().to_hex())).unwrap();
            std::fs::set_permissions(&other, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
        }
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_memory-bank"));
        cmd.arg("sessions").args(args).env("HOME", &self.home).env_remove("MEMORY_BANK_DATA_DIR");
        cmd.env("MEMORY_BANK_DB_KEY_FILE", key_file.unwrap_or(&other));
        cmd.env_remove("MEMORY_BANK_SESSIONS_INDEX");
        for var in session_home::TOOL_VARS {
            cmd.env_remove(var);
        }
        cmd.output().unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.push("--json");
        let out = self.run(&all);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn fails(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.push("--json");
        let out = self.run(&all);
        assert!(!out.status.success(), "{args:?} should fail");
        assert!(out.stdout.is_empty(), "errors go to stderr only");
        serde_json::from_slice(&out.stderr).unwrap()
    }
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort();
    k
}

fn append(path: &Path, line: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(f, "{line}").unwrap();
}

const SHOP: &str = "5b0e8a52-1f0c-4c0e-9a53-6f3f1d7a2b10";

#[test]
fn list_reads_every_tool_newest_first_with_the_exact_shape() {
    let h = Home::new();
    let list = h.json(&["list", "--limit", "200"]);
    assert_eq!(keys(&list), ["sessions", "total"]);
    let sessions = list["sessions"].as_array().unwrap();
    assert_eq!(list["total"].as_u64().unwrap(), sessions.len() as u64);
    assert_eq!(
        keys(&sessions[0]),
        ["createdAt", "messageCount", "sessionId", "source", "title", "updatedAt", "workspace"]
    );
    for source in ["claude-code", "codex", "opencode", "gemini"] {
        assert!(sessions.iter().any(|s| s["source"] == source), "{source} missing");
    }
    let updated: Vec<&str> = sessions.iter().filter_map(|s| s["updatedAt"].as_str()).collect();
    assert!(updated.windows(2).all(|w| w[0] >= w[1]), "newest first: {updated:?}");
    // A cap is never silent.
    let capped = h.json(&["list", "--limit", "2"]);
    assert_eq!(capped["sessions"].as_array().unwrap().len(), 2);
    assert_eq!(capped["total"], list["total"]);
    let codex = h.json(&["list", "--source", "codex"]);
    assert!(codex["sessions"].as_array().unwrap().iter().all(|s| s["source"] == "codex"));
    let shop = h.json(&["list", "--workspace", "shop-api"]);
    assert_eq!(shop["sessions"][0]["sessionId"], SHOP);
    let found = h.json(&["list", "--query", "client migration"]);
    assert_eq!(found["total"], 1);
}

#[test]
fn open_read_latest_and_search_answer_with_their_shapes() {
    let h = Home::new();
    let info = h.json(&["open", SHOP]);
    assert_eq!(info["title"], "Client migration");
    assert_eq!(info["workspace"], "/work/shop-api");
    assert_eq!(info["messageCount"], 5);
    let t = h.json(&["read", SHOP, "--count", "2"]);
    assert_eq!(keys(&t), ["messageCount", "messages", "returned", "sessionId", "title"]);
    assert_eq!((t["returned"].as_u64(), t["messageCount"].as_u64()), (Some(2), Some(5)));
    assert_eq!(keys(&t["messages"][0]), ["index", "messageId", "role", "text", "timestamp"]);
    assert_eq!(t["messages"][0]["index"], 3);
    assert_eq!(t["messages"][1]["text"], "You're welcome.");
    let page = h.json(&["read", SHOP, "--count", "30", "--before", "1"]);
    assert_eq!(page["messages"][0]["text"], "Plan the client migration to Postgres 17 <b>today</b>");
    assert_eq!(h.json(&["read", SHOP, "--count", "lots"])["returned"], 5, "not a number means 10");
    let latest = h.json(&["latest", SHOP]);
    assert_eq!(keys(&latest), ["index", "messageId", "role", "sessionId", "text", "timestamp"]);
    assert_eq!((latest["index"].as_u64(), latest["role"].as_str()), (Some(4), Some("assistant")));
    let hits = h.json(&["search", "客户迁移"]);
    let hits = hits["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    assert_eq!(keys(&hits[0]), ["index", "messageId", "role", "sessionId", "snippet", "source", "title"]);
    assert!(hits.iter().all(|h| h["snippet"].as_str().unwrap().contains("客户迁移")));
    let english = h.json(&["search", "CLIENT MIGRATION"]);
    assert_eq!(english["hits"][0]["sessionId"], SHOP);
    assert_eq!(english["hits"][0]["messageId"], "u1");
    // Human-readable output by default.
    let out = h.run(&["open", SHOP]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Client migration"));
}

#[test]
fn errors_go_to_stderr_with_a_code_and_a_non_zero_exit() {
    let h = Home::new();
    let err = h.fails(&["open", "no-such-session"]);
    assert_eq!(err["error"], "session_not_found");
    assert!(err["message"].as_str().unwrap().contains("no-such-session"));
    assert_eq!(h.fails(&["list", "--limit", "0"])["error"], "invalid_request");
    assert_eq!(h.fails(&["search", "x", "--limit", "201"])["error"], "invalid_request");
    assert_eq!(h.fails(&["list", "--source", "vim"])["error"], "invalid_request");
    let empty = h.fails(&["read", "0e3f1a00-0000-4000-8000-000000000001"]);
    assert_eq!(empty["error"], "no_messages");
    let out = h.run(&["read", "no-such-session"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("memory-bank: error: No session"));
}

#[test]
fn the_index_picks_up_appended_messages_and_new_files() {
    let h = Home::new();
    let before = h.json(&["list", "--limit", "200"])["total"].as_u64().unwrap();
    let session = h.home.join(".claude/projects/-work-shop-api").join(format!("{SHOP}.jsonl"));
    // The fixture ends with a half-written line; the writer finishes it, then adds one.
    append(&session, "\"},\"uuid\":\"u3\",\"timestamp\":\"2026-11-20T10:07:00.000Z\"}");
    append(&session, &session_home::claude_line("assistant", "a9", "appended answer", "2026-11-20T10:08:00.000Z"));
    let latest = h.json(&["latest", SHOP]);
    assert_eq!(latest["text"], "appended answer");
    assert_eq!(latest["index"], 6);
    assert_eq!(h.json(&["read", SHOP, "--count", "2"])["messages"][0]["text"], "half-written");
    let project = h.home.join(".claude/projects/-work-live");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("11111111-2222-4333-8444-555555555555.jsonl"),
        session_home::claude_line("user", "n1", "a brand new session", "2026-11-29T12:00:00.000Z") + "\n",
    )
    .unwrap();
    let list = h.json(&["list", "--limit", "200"]);
    assert_eq!(list["total"].as_u64().unwrap(), before + 1);
    assert_eq!(list["sessions"][0]["title"], "a brand new session");
}

#[test]
fn search_survives_text_whose_lower_case_is_longer() {
    // `İ` lower-cases to two characters: a match found in the folded text sits further
    // in than the same match in the original, which once put the snippet out of range.
    let h = Home::new();
    let project = h.home.join(".claude/projects/-work-turk");
    std::fs::create_dir_all(&project).unwrap();
    let text = "İ".repeat(200) + " needleturk";
    std::fs::write(
        project.join("22222222-3333-4444-8555-666666666666.jsonl"),
        session_home::claude_line("user", "t1", &text, "2026-11-29T12:00:00.000Z") + "\n",
    )
    .unwrap();
    let out = h.run(&["search", "needleturk", "--json"]);
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let found: Value = serde_json::from_slice(&out.stdout).unwrap();
    let hits = found["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{found}");
    assert_eq!(hits[0]["messageId"], "t1");
    let snippet = hits[0]["snippet"].as_str().unwrap();
    assert!(snippet.contains("needleturk"), "{snippet}");
    assert!(text.contains(snippet.trim_start_matches('…')), "{snippet}");
}

#[test]
fn pages_go_on_with_a_cursor_and_texts_can_be_capped() {
    let h = Home::new();
    let all = h.json(&["list", "--limit", "200"]);
    let first = h.json(&["list", "--limit", "2"]);
    let cursor = first["nextCursor"].as_str().expect("a next page").to_string();
    let next = h.json(&["list", "--limit", "2", "--cursor", &cursor]);
    assert_eq!(next["sessions"][0], all["sessions"][2]);
    assert_eq!(next["total"], all["total"]);
    let text = String::from_utf8_lossy(&h.run(&["list", "--limit", "2"]).stdout).into_owned();
    assert!(text.contains(&format!("More: add --cursor {cursor}")), "{text}");
    assert_eq!(h.fails(&["list", "--cursor", "nonsense"])["error"], "invalid_request");
    // Search filters and pages.
    let hits = |args: &[&str]| h.json(&[&["search", "the"], args].concat())["hits"].as_array().unwrap().clone();
    let every = hits(&["--limit", "200"]);
    assert!(every.iter().any(|h| h["source"] != "claude-code"), "several tools match");
    assert!(hits(&["--source", "claude-code"]).iter().all(|h| h["source"] == "claude-code"));
    assert!(hits(&["--workspace", "shop-api"]).iter().all(|h| h["sessionId"] == SHOP));
    let page = h.json(&["search", "the", "--limit", "1"]);
    let rest = h.json(&["search", "the", "--limit", "200", "--cursor", page["nextCursor"].as_str().unwrap()]);
    assert_eq!(rest["hits"].as_array().unwrap()[..], every[1..]);
    // A capped message says so.
    let t = h.json(&["read", SHOP, "--max-chars", "200"]);
    assert!(t["messages"].as_array().unwrap().iter().all(|m| m["text"].as_str().unwrap().chars().count() <= 200));
    assert_eq!(h.fails(&["read", SHOP, "--max-chars", "100"])["error"], "invalid_request");
    assert_eq!(h.json(&["latest", SHOP, "--max-chars", "200"])["text"], "You're welcome.");
}

#[test]
fn a_session_its_tool_deleted_stays_archived_until_forgotten() {
    let h = Home::new();
    let before = h.json(&["list", "--limit", "200"])["total"].as_u64().unwrap();
    // Claude Code's cleanup deletes the transcript.
    std::fs::remove_file(h.home.join(".claude/projects/-work-shop-api").join(format!("{SHOP}.jsonl"))).unwrap();
    let list = h.json(&["list", "--limit", "200"]);
    assert_eq!(list["total"].as_u64().unwrap(), before, "kept");
    let shop = list["sessions"].as_array().unwrap().iter().find(|s| s["sessionId"] == SHOP).unwrap().clone();
    assert_eq!(shop["archived"], true);
    assert!(shop["archivedAt"].as_str().unwrap().ends_with('Z'), "{shop}");
    assert!(list["sessions"].as_array().unwrap().iter().filter(|s| s["sessionId"] != SHOP).all(|s| s.get("archived").is_none()));
    let archived = h.json(&["list", "--status", "archived"]);
    assert_eq!((archived["total"].as_u64(), archived["sessions"][0]["sessionId"].as_str()), (Some(1), Some(SHOP)));
    assert_eq!(h.json(&["list", "--status", "live", "--limit", "200"])["total"].as_u64().unwrap(), before - 1);
    assert_eq!(h.fails(&["list", "--status", "gone"])["error"], "invalid_request");
    let t = h.json(&["read", SHOP, "--count", "30"]);
    assert_eq!((t["returned"].as_u64(), t["archived"].as_bool()), (Some(5), Some(true)));
    assert_eq!(h.json(&["search", "CLIENT MIGRATION"])["hits"][0]["archived"], true);
    let text = String::from_utf8_lossy(&h.run(&["list", "--status", "archived"]).stdout).into_owned();
    assert!(text.contains("Archived: the original was removed on "), "{text}");
    // The archive, maybe the session's only copy now, is encrypted with the key file.
    let archive = h.home.join(".local/share/dev.memorybank.app/sessions-archive.sqlite");
    assert!(!std::fs::read(&archive).unwrap().starts_with(b"SQLite format 3\0"), "encrypted");
    let out = h.run_with_key(&["list", "--status", "archived"], None);
    assert!(!out.status.success(), "another key does not open it");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("session archive") && err.contains("does not open it") && err.contains("not changed"), "{err}");

    let forgotten = h.json(&["forget", SHOP]);
    assert_eq!((forgotten["sessionId"].as_str(), forgotten["archived"].as_bool()), (Some(SHOP), Some(true)));
    assert_eq!(h.json(&["list", "--limit", "200"])["total"].as_u64().unwrap(), before - 1);
    assert_eq!(h.fails(&["read", SHOP])["error"], "session_not_found");
    assert!(h.json(&["search", "CLIENT MIGRATION"])["hits"].as_array().unwrap().iter().all(|hit| hit["sessionId"] != SHOP));
    let again = h.fails(&["forget", SHOP]);
    assert_eq!(again["error"], "session_not_found");
    assert!(again["message"].as_str().unwrap().contains(SHOP), "{again}");
    let out = h.run(&["forget", "no-such-session"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("memory-bank: error: No session"));
}

#[test]
fn forgetting_a_live_session_keeps_it_out_until_its_tool_adds_to_it() {
    let h = Home::new();
    let out = h.run(&["forget", SHOP]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("Forgot Client migration (claude-code "), "{}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(h.fails(&["open", SHOP])["error"], "session_not_found");
    // The agent goes on with the session: it is back, whole.
    let session = h.home.join(".claude/projects/-work-shop-api").join(format!("{SHOP}.jsonl"));
    append(&session, "\"},\"uuid\":\"u3\",\"timestamp\":\"2026-11-20T10:07:00.000Z\"}");
    append(&session, &session_home::claude_line("assistant", "a9", "a later answer", "2026-12-01T10:08:00.000Z"));
    let info = h.json(&["open", SHOP]);
    assert_eq!(info["messageCount"], 7);
    assert!(info.get("archived").is_none());
}

/// Releases before kept the CLI's session index and archive in its own folder
/// (`~/.local/share/memory-bank`), beside the app's: the archive, which may hold the only
/// copy of a session, is taken into the app's data folder, the one the app uses too, and
/// the earlier files go (issue 28, item 8).
#[test]
fn the_archive_an_earlier_release_kept_in_the_clis_folder_is_taken_into_the_apps() {
    let h = Home::new();
    let key = memory_bank_sessions::DbKey::from_hex(std::fs::read_to_string(&h.key_file).unwrap().trim()).unwrap();
    let earlier = h.home.join(".local/share/memory-bank/sessions-index.sqlite");
    let env = session_home::env_with_home(&h.home);
    let lib = memory_bank_sessions::Library::open(Some(&earlier), memory_bank_sessions::Roots::new(&env, &[]), Some(key)).unwrap();
    lib.refresh().unwrap();
    std::fs::remove_file(h.home.join(".claude/projects/-work-shop-api").join(format!("{SHOP}.jsonl"))).unwrap();
    assert_eq!(lib.refresh().unwrap().sessions_archived, 1);
    drop(lib);

    let archived = h.json(&["list", "--status", "archived"]);
    assert_eq!((archived["total"].as_u64(), archived["sessions"][0]["sessionId"].as_str()), (Some(1), Some(SHOP)), "{archived}");
    let t = h.json(&["read", SHOP, "--count", "30"]);
    assert_eq!((t["returned"].as_u64(), t["archived"].as_bool()), (Some(5), Some(true)));
    let earlier_dir = earlier.parent().unwrap();
    let left: Vec<_> = std::fs::read_dir(earlier_dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.is_empty(), "the earlier folder's session files are gone: {left:?}");
    assert!(h.home.join(".local/share/dev.memorybank.app/sessions-archive.sqlite").exists());
}

#[test]
fn a_chat_export_is_imported_listed_and_a_source_turned_off_is_not_read() {
    let h = Home::new();
    let export = h._dir.path().join("conversations.json");
    let conversations = serde_json::json!([{
        "uuid": "0c3f4a2e-2222-4333-8444-955566677788", "name": "Invoices", "summary": "",
        "created_at": "2026-02-02T09:00:00.000000Z", "updated_at": "2026-02-02T09:01:00.000000Z",
        "chat_messages": [
            {"uuid": "q1", "sender": "human", "text": "Who owns invoices?", "content": [{"type": "text", "text": "Who owns invoices?"}],
             "created_at": "2026-02-02T09:00:00.000000Z"},
            {"uuid": "a1", "sender": "assistant", "text": "The billing service.", "content": [{"type": "text", "text": "The billing service."}],
             "created_at": "2026-02-02T09:01:00.000000Z"}
        ]
    }]);
    std::fs::write(&export, conversations.to_string()).unwrap();
    let imported = h.json(&["import", export.to_str().unwrap()]);
    assert_eq!((imported["source"].as_str(), imported["added"].as_u64()), (Some("claude-ai"), Some(1)), "{imported}");
    let again = h.json(&["import", export.to_str().unwrap()]);
    assert_eq!((again["added"].as_u64(), again["unchanged"].as_u64()), (Some(0), Some(1)), "{again}");
    let listed = h.json(&["list", "--source", "claude-ai"]);
    assert_eq!(listed["sessions"][0]["title"], "Invoices", "{listed}");
    let read = h.json(&["read", "0c3f4a2e-2222-4333-8444-955566677788"]);
    assert_eq!(read["messages"][1]["messageId"], "a1");

    // Not an export: refused, saying what to choose.
    let out = h.run(&["import", "/etc/hostname"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Choose the .zip"), "{}", String::from_utf8_lossy(&out.stderr));

    // Turned off (for every door): not read, not archived; on again: back.
    let sources = h.json(&["sources", "--off", "claude-ai"]);
    let claude_ai = sources.as_array().unwrap().iter().find(|s| s["source"] == "claude-ai").unwrap();
    assert_eq!(claude_ai["enabled"], false);
    assert_eq!(h.json(&["list", "--source", "claude-ai"])["total"], 0);
    assert_eq!(h.json(&["list", "--status", "archived"])["total"], 0);
    h.json(&["sources", "--on", "claude-ai"]);
    assert_eq!(h.json(&["list", "--source", "claude-ai"])["total"], 1);
    let text = String::from_utf8(h.run(&["sources"]).stdout).unwrap();
    assert!(text.contains("claude-ai  (found)") && text.contains("codex  (found)"), "{text}");
}
