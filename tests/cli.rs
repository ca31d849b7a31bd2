//! The `memory-bank` binary end to end: admin commands on a real SQLite file, a real
//! `memory-bank serve` process on loopback, and the `memory` client commands.

use std::path::Path;
#[path = "support/serve_process.rs"]
mod serve_process;

use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;


use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_memory-bank");

fn db_url(dir: &Path) -> String {
    format!("sqlite://{}", dir.join("data/memory.db").display())
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN).args(["--database-url", &db_url(dir)]).args(args).env_remove("MEMORY_BANK_TOKEN")
        .env_remove("MEMORY_BANK_ORG").env_remove("MEMORY_BANK_URL").output().unwrap()
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = run(dir, args);
    assert!(out.status.success(), "{args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A seeded database plus a running `memory-bank serve`.
struct Served {
    dir: tempfile::TempDir,
    child: Child,
    url: String,
    token: String,
    org: String,
    stderr: mpsc::Receiver<String>,
}

impl Served {
    fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let user = ok(dir.path(), &["admin", "user", "add", "ada@example.com"]).trim().to_owned();
        let org = ok(dir.path(), &["admin", "org", "add", "Analytical Engines"]).trim().to_owned();
        ok(dir.path(), &["admin", "member", "add", &org, &user]);
        let token = ok(dir.path(), &["admin", "token", "issue", &user]).trim().to_owned();
        let (child, url, stderr) = serve(dir.path(), &[]).expect("serve starts");
        Self { dir, child, url, token, org, stderr }
    }

    fn memory(&self, args: &[&str]) -> Output {
        Command::new(BIN).arg("memory").args(args).env("MEMORY_BANK_URL", &self.url).env("MEMORY_BANK_TOKEN", &self.token)
            .env("MEMORY_BANK_ORG", &self.org).output().unwrap()
    }

    fn memory_ok(&self, args: &[&str]) -> String {
        let out = self.memory(args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    /// Stops the service with SIGTERM and returns everything it logged.
    fn stop(mut self) -> (bool, String) {
        Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().unwrap();
        let status = self.child.wait().unwrap();
        let log: Vec<String> = self.stderr.try_iter().collect();
        (status.success(), log.join("\n"))
    }
}

/// Starts `memory-bank serve` on a free port; Err(stderr) if it exits instead.
fn serve(dir: &Path, env: &[(&str, &str)]) -> Result<(Child, String, mpsc::Receiver<String>), String> {
    serve_process::start(BIN, &db_url(dir), env).map(|s| (s.child, s.url, s.stderr))
}

#[test]
fn admin_commands_print_ids_and_tokens_alone() {
    let dir = tempfile::tempdir().unwrap();
    let user = ok(dir.path(), &["admin", "user", "add", "grace@example.com"]);
    assert!(user.starts_with("usr_") && user.ends_with('\n') && user.trim().len() == 30, "{user:?}");
    let org = ok(dir.path(), &["admin", "org", "add", "Navy"]);
    assert!(org.starts_with("org_") && org.trim().len() == 30, "{org:?}");
    assert_eq!(ok(dir.path(), &["admin", "member", "add", org.trim(), user.trim()]), "");
    let token = ok(dir.path(), &["admin", "token", "issue", user.trim()]);
    assert!(token.starts_with("mbk_") && token.trim().len() >= 4 + 22, "{token:?}");
    let list = ok(dir.path(), &["admin", "user", "list"]);
    assert!(list.contains(user.trim()) && list.contains("grace@example.com"));
    // The token is stored only as a hash.
    let raw = std::fs::read(dir.path().join("data/memory.db")).unwrap();
    assert!(!raw.windows(token.trim().len()).any(|w| w == token.trim().as_bytes()));
    assert_eq!(ok(dir.path(), &["admin", "token", "revoke", token.trim()]), "");
    let again = run(dir.path(), &["admin", "token", "revoke", token.trim()]);
    assert!(!again.status.success() && String::from_utf8_lossy(&again.stderr).contains("already be revoked"));
    let dup = run(dir.path(), &["admin", "user", "add", "grace@example.com"]);
    assert!(!dup.status.success() && String::from_utf8_lossy(&dup.stderr).contains("already exists"));
    let missing = run(dir.path(), &["admin", "member", "add", org.trim(), "usr_nobody"]);
    assert!(!missing.status.success() && String::from_utf8_lossy(&missing.stderr).contains("not found"));
}

#[test]
fn memory_commands_save_search_list_and_delete_through_the_service() {
    let s = Served::start();
    let saved: Value = serde_json::from_str(&s.memory_ok(&["save", "Ada prefers tea over coffee", "--tag", "drinks", "--snippet",
        "I always drink tea", "--conversation-id", "sess-1", "--message-id", "msg-7", "--origin", "searched_conversation", "--json"])).unwrap();
    let id = saved["memory"]["id"].as_str().unwrap().to_owned();
    assert_eq!(saved["memory"]["contexts"][0]["citation"]["conversationId"], "sess-1");
    let human = s.memory_ok(&["save", "第二条记忆：客户迁移计划"]);
    assert!(human.starts_with("saved mem_"), "{human}");
    // A near-duplicate is saved (never merged), and stderr names the alike memory.
    let alike = s.memory(&["save", "Ada prefers tea over coffee, mostly"]);
    assert!(alike.status.success());
    let (out, hints) = (String::from_utf8_lossy(&alike.stdout), String::from_utf8_lossy(&alike.stderr));
    assert_eq!(out.lines().count(), 1, "stdout stays the one `saved ID` line: {out}");
    assert!(hints.contains("you already have:") && hints.contains(&format!("{id}  Ada prefers tea over coffee")), "{hints}");
    let alike_id = out.trim().trim_start_matches("saved ").to_owned();
    s.memory_ok(&["delete", &alike_id]);
    let piped = Command::new(BIN).args(["memory", "save", "-"]).env("MEMORY_BANK_URL", &s.url).env("MEMORY_BANK_TOKEN", &s.token)
        .env("MEMORY_BANK_ORG", &s.org).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    use std::io::Write as _;
    piped.stdin.as_ref().unwrap().write_all(b"read from stdin\n").unwrap();
    assert!(piped.wait_with_output().unwrap().status.success());

    let found: Value = serde_json::from_str(&s.memory_ok(&["search", "tea", "--json"])).unwrap();
    assert_eq!(found["results"][0]["id"], id.as_str());
    assert!(found["results"][0]["score"].as_f64().unwrap() > 0.0);
    assert!(s.memory_ok(&["search", "迁移"]).contains("客户迁移计划"));
    let none = s.memory(&["search", "nothing-matches-this"]);
    assert!(none.status.success() && none.stdout.is_empty());
    // `db optimize` beside the running service: it reports the index's size, and
    // the service finds the same memories after it.
    let optimized = ok(s.dir.path(), &["db", "optimize"]);
    assert!(optimized.starts_with("full-text index optimized in ") && optimized.contains(" MB → "), "{optimized}");
    let again: Value = serde_json::from_str(&s.memory_ok(&["search", "tea", "--json"])).unwrap();
    assert_eq!(again["results"], found["results"]);
    assert!(s.memory_ok(&["search", "迁移"]).contains("客户迁移计划"));

    let page: Value = serde_json::from_str(&s.memory_ok(&["list", "--limit", "2", "--json"])).unwrap();
    assert_eq!(page["memories"].as_array().unwrap().len(), 2);
    assert!(page["nextCursor"].is_string());
    let all = s.memory_ok(&["list", "--limit", "1", "--all", "--json"]);
    assert_eq!(all.lines().count(), 3, "--all walks every page: {all}");
    let text = s.memory_ok(&["list"]);
    assert!(text.contains("Ada prefers tea") && text.contains("tags: drinks") && text.contains("[sess-1 / msg-7]"), "{text}");

    assert_eq!(s.memory_ok(&["delete", &id]).trim(), format!("deleted {id}"));
    let again = s.memory(&["delete", &id]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("not found"));
    let whoami = s.memory_ok(&["whoami"]);
    assert!(whoami.contains("ada@example.com") && whoami.contains("Analytical Engines"));
    let (clean, _) = s.stop();
    assert!(clean, "SIGTERM stops the service cleanly");
}

#[test]
fn memory_edit_history_and_restore_through_the_service() {
    let s = Served::start();
    let saved: Value = serde_json::from_str(&s.memory_ok(&["save", "Ada prefers tea", "--tag", "drinks", "--json"])).unwrap();
    let id = saved["memory"]["id"].as_str().unwrap().to_owned();
    assert_eq!(s.memory_ok(&["edit", &id, "--content", "Ada prefers oolong tea", "--tag", "tea"]).trim(), format!("edited {id}"));
    let edited: Value = serde_json::from_str(&s.memory_ok(&["edit", &id, "--clear-tags", "--json"])).unwrap();
    assert_eq!((edited["content"].as_str(), &edited["tags"]), (Some("Ada prefers oolong tea"), &Value::Null));
    assert_eq!(edited["confirmedVia"], "cli");
    let history: Value = serde_json::from_str(&s.memory_ok(&["history", &id, "--json"])).unwrap();
    let wordings: Vec<&str> = history["revisions"].as_array().unwrap().iter().map(|r| r["content"].as_str().unwrap()).collect();
    assert_eq!(wordings, ["Ada prefers oolong tea", "Ada prefers tea"]);
    let first = history["revisions"][1]["id"].as_str().unwrap().to_owned();
    let text = s.memory_ok(&["history", &id]);
    assert!(text.contains(&first) && text.contains("tags: drinks"), "{text}");
    assert_eq!(s.memory_ok(&["restore", &id, &first]).trim(), format!("restored {id} to {first}"));
    assert!(s.memory_ok(&["search", "tea"]).contains("Ada prefers tea\n"));

    let nothing = s.memory(&["edit", &id]);
    assert!(!nothing.status.success());
    assert!(String::from_utf8_lossy(&nothing.stderr).contains("nothing to change"), "{}", String::from_utf8_lossy(&nothing.stderr));
    let unknown = s.memory(&["edit", "mem_01jdq0000000000000000000", "--content", "x"]);
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("memory not found"), "{}", String::from_utf8_lossy(&unknown.stderr));
    let secret = format!("ghp_{}", "a1B2".repeat(9));
    let refused = s.memory(&["edit", &id, "--content", &secret]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("secret"), "{}", String::from_utf8_lossy(&refused.stderr));
    s.stop();
}

#[test]
fn an_export_imported_into_an_empty_bank_exports_byte_for_byte_the_same() {
    let from = Served::start();
    from.memory_ok(&["save", "Ada prefers tea", "--tag", "drinks", "--snippet", "I always drink tea", "--message-id", "m7"]);
    let plan: Value = serde_json::from_str(&from.memory_ok(&["save", "First wording of the plan", "--json"])).unwrap();
    let plan = plan["memory"]["id"].as_str().unwrap().to_owned();
    from.memory_ok(&["edit", &plan, "--content", "Second wording of the plan"]);
    from.memory_ok(&["save", "第二条记忆：客户迁移计划 🚀"]);
    let exported = from.memory(&["export"]);
    assert!(exported.status.success());
    let exported = exported.stdout;
    assert_eq!(exported.iter().filter(|b| **b == b'\n').count(), 3, "one line per memory");
    let file = from.dir.path().join("export.jsonl");
    std::fs::write(&file, &exported).unwrap();

    let to = Served::start();
    let report = to.memory_ok(&["import", file.to_str().unwrap()]);
    assert_eq!(report.trim(), "imported 3, skipped 0, overwritten 0, failed 0");
    // An import confirms nothing: how each was confirmed becomes the file's claim.
    let imported = String::from_utf8(to.memory(&["export"]).stdout).unwrap();
    let claimed = String::from_utf8(exported.clone())
        .unwrap()
        .replace(r#""confirmedVia":"cli"}"#, r#""confirmedVia":"import","importedFrom":{"confirmedVia":"cli"}}"#);
    assert_eq!(imported, claimed, "byte for byte, but for the claims");
    assert_eq!(to.memory_ok(&["import", file.to_str().unwrap()]).trim(), "imported 0, skipped 3, overwritten 0, failed 0");
    // An export of imported memories imports as it is.
    let again = Served::start();
    let imported_file = again.dir.path().join("imported.jsonl");
    std::fs::write(&imported_file, &imported).unwrap();
    again.memory_ok(&["import", imported_file.to_str().unwrap()]);
    assert_eq!(String::from_utf8(again.memory(&["export"]).stdout).unwrap(), imported, "byte for byte");
    again.stop();
    assert!(to.memory_ok(&["search", "迁移"]).contains("客户迁移计划"));
    let history: Value = serde_json::from_str(&to.memory_ok(&["history", &plan, "--json"])).unwrap();
    assert_eq!(history["revisions"][0]["content"], "First wording of the plan");

    let markdown = to.memory_ok(&["export", "--format", "markdown"]);
    assert!(markdown.starts_with("# Memory Bank"), "{markdown}");
    assert!(markdown.contains("\n## 20") && markdown.contains("- Ada prefers tea") && markdown.contains("> I always drink tea — m7"), "{markdown}");
    assert!(markdown.contains("edited once"), "{markdown}");

    // Bad lines are reported by number; the good ones are imported.
    let good = String::from_utf8(exported).unwrap().lines().next().unwrap().replace("mem_", "mem_x").to_owned();
    let fresh = r#"{"id":"mem_01kbbbbbbbbbbbbbbbbbbbbbbb","content":"A new one","createdAt":"2026-11-01T10:00:00.000Z"}"#;
    let secret = fresh.replace("A new one", &format!("ghp_{}", "a1B2".repeat(9))).replace("bbbbbbbb", "cccccccc");
    let mixed = [good.as_str(), "", "not json", fresh, secret.as_str()].join("\n");
    let mixed_file = to.dir.path().join("mixed.jsonl");
    std::fs::write(&mixed_file, mixed).unwrap();
    let out = to.memory(&["import", mixed_file.to_str().unwrap()]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "some lines failed: exit 1");
    assert_eq!(stdout.trim(), "imported 1, skipped 0, overwritten 0, failed 3");
    assert!(stderr.contains("line 1: ") && stderr.contains("mem_… id"), "{stderr}");
    assert!(stderr.contains("line 3: not a memory line"), "{stderr}");
    assert!(stderr.contains("line 5: ") && stderr.contains("(looks_like_secret)"), "{stderr}");
    assert!(to.memory_ok(&["search", "new"]).contains("A new one"));
    from.stop();
    to.stop();
}

#[test]
fn admin_user_and_org_delete_remove_everything_recorded_with_them() {
    let s = Served::start();
    s.memory_ok(&["save", "Ada's memory", "--snippet", "cited"]);
    let bob = ok(s.dir.path(), &["admin", "user", "add", "bob@example.com"]).trim().to_owned();
    ok(s.dir.path(), &["admin", "member", "add", &s.org, &bob]);
    let users = ok(s.dir.path(), &["admin", "user", "list"]);
    let ada = users.lines().find(|l| l.contains("ada@example.com")).unwrap().split('\t').next().unwrap().to_owned();

    let unconfirmed = run(s.dir.path(), &["admin", "user", "delete", &ada]);
    assert!(!unconfirmed.status.success());
    assert!(String::from_utf8_lossy(&unconfirmed.stderr).contains("--yes"));
    let deleted = run(s.dir.path(), &["admin", "user", "delete", &ada, "--yes"]);
    assert!(deleted.status.success(), "{}", String::from_utf8_lossy(&deleted.stderr));
    assert!(String::from_utf8_lossy(&deleted.stderr).contains(&format!("deleted user {ada} and 1 memories")));
    let refused = s.memory(&["list"]);
    assert!(!refused.status.success(), "the deleted user's token is gone");
    assert!(!ok(s.dir.path(), &["admin", "user", "list"]).contains("ada@example.com"));
    let again = run(s.dir.path(), &["admin", "user", "delete", &ada, "--yes"]);
    assert!(String::from_utf8_lossy(&again.stderr).contains(&format!("no user {ada}")), "{}", String::from_utf8_lossy(&again.stderr));

    let org_gone = run(s.dir.path(), &["admin", "org", "delete", &s.org, "--yes"]);
    assert!(org_gone.status.success(), "{}", String::from_utf8_lossy(&org_gone.stderr));
    assert!(ok(s.dir.path(), &["admin", "org", "list", "--member", &bob]).trim().is_empty(), "bob is in no org now");
    assert!(ok(s.dir.path(), &["admin", "user", "list"]).contains("bob@example.com"), "users stay");
    s.stop();
}

/// Environment overrides, arguments, and what stderr must say.
type ClientErrorCase<'a> = (Vec<(&'a str, String)>, Vec<&'a str>, &'a str);

#[test]
fn client_errors_go_to_stderr_and_say_what_to_do() {
    let s = Served::start();
    let cases: Vec<ClientErrorCase> = vec![
        (vec![("MEMORY_BANK_TOKEN", "mbk_wrong".into())], vec!["list"], "admin token issue"),
        (vec![("MEMORY_BANK_ORG", "org_01jdq0000000000000000000".into())], vec!["list"], "not a member"),
        (vec![("MEMORY_BANK_URL", "http://127.0.0.1:9".into())], vec!["list"], "memory-bank serve"),
        (vec![("MEMORY_BANK_URL", "not a url".into())], vec!["list"], "not a valid service URL"),
        (vec![], vec!["save", "   "], "content is only whitespace"),
        (vec![], vec!["search", "x", "--limit", "51"], "limit must be a whole number from 1 to 50"),
    ];
    for (env, args, hint) in cases {
        let mut command = Command::new(BIN);
        command.arg("memory").args(&args).env("MEMORY_BANK_URL", &s.url).env("MEMORY_BANK_TOKEN", &s.token).env("MEMORY_BANK_ORG", &s.org);
        for (k, v) in &env {
            command.env(k, v);
        }
        let out = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} {env:?} should fail");
        assert!(out.stdout.is_empty(), "errors stay off stdout");
        assert!(stderr.contains(hint), "{args:?} {env:?}: {stderr}");
    }
    let no_token = Command::new(BIN).args(["memory", "list"]).env_remove("MEMORY_BANK_TOKEN").env("MEMORY_BANK_URL", &s.url).output().unwrap();
    assert!(String::from_utf8_lossy(&no_token.stderr).contains("MEMORY_BANK_TOKEN"));
    let bad_db = Command::new(BIN).args(["--database-url", "postgres://x", "admin", "user", "list"]).output().unwrap();
    assert!(!bad_db.status.success() && String::from_utf8_lossy(&bad_db.stderr).contains("sqlite:///"));
    s.stop();
}

#[test]
fn serve_refuses_to_start_without_the_search_index_and_migrate_repairs_it() {
    let dir = tempfile::tempdir().unwrap();
    let user = ok(dir.path(), &["admin", "user", "add", "x@example.com"]);
    assert!(!user.is_empty());
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let store = memory_bank_store_sqlite::SqliteStore::open(&db_url(dir.path())).await.unwrap();
        sqlx::query("DROP TABLE memory_fts").execute(store.pool()).await.unwrap();
        store.pool().close().await;
    });
    let err = serve(dir.path(), &[]).expect_err("serve must refuse without the index");
    assert!(err.contains("memory-bank db migrate"), "{err}");
    assert!(!err.contains("exit 0"), "{err}");
    assert_eq!(ok(dir.path(), &["db", "migrate"]).trim(), "migrated; full-text index created");
    assert_eq!(ok(dir.path(), &["db", "migrate"]).trim(), "migrated; full-text index present");
    let (mut child, _, _) = serve(dir.path(), &[]).expect("serves after migrate");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn ten_concurrent_migrate_processes_create_the_index_once() {
    let dir = tempfile::tempdir().unwrap();
    ok(dir.path(), &["admin", "user", "add", "x@example.com"]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let store = memory_bank_store_sqlite::SqliteStore::open(&db_url(dir.path())).await.unwrap();
        sqlx::query("DROP TABLE memory_fts").execute(store.pool()).await.unwrap();
        store.pool().close().await;
    });
    let children: Vec<Child> = (0..10)
        .map(|_| {
            Command::new(BIN)
                .args(["--database-url", &db_url(dir.path()), "db", "migrate"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outputs: Vec<Output> = children.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
    for out in &outputs {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let created = outputs.iter().filter(|o| String::from_utf8_lossy(&o.stdout).contains("index created")).count();
    assert_eq!(created, 1);
}

#[test]
fn logs_hold_ids_and_counts_never_content_snippets_or_queries() {
    let dir = tempfile::tempdir().unwrap();
    let user = ok(dir.path(), &["admin", "user", "add", "ada@example.com"]).trim().to_owned();
    let org = ok(dir.path(), &["admin", "org", "add", "Acme"]).trim().to_owned();
    ok(dir.path(), &["admin", "member", "add", &org, &user]);
    let token = ok(dir.path(), &["admin", "token", "issue", &user]).trim().to_owned();
    for level in ["info", "debug"] {
        let (child, url, stderr) = serve(dir.path(), &[("MEMORY_BANK_LOG", level)]).unwrap();
        let s = Served { dir: tempfile::tempdir().unwrap(), child, url, token: token.clone(), org: org.clone(), stderr };
        s.memory_ok(&["save", "contentsecretzebra", "--tag", "tagsecretlynx", "--snippet", "snippetsecretotter"]);
        s.memory_ok(&["search", "querysecretheron"]);
        let id = serde_json::from_str::<Value>(&s.memory_ok(&["list", "--json"])).unwrap()["memories"][0]["id"].as_str().unwrap().to_owned();
        s.memory(&["delete", "malformedsecretkiwi"]);
        let (_, log) = s.stop();
        assert!(log.contains("memory.save") && log.contains(&id), "{level}: the log records ids: {log}");
        for secret in ["contentsecretzebra", "tagsecretlynx", "snippetsecretotter", "querysecretheron", "malformedsecretkiwi", &token] {
            assert!(!log.contains(secret), "{level}: log leaked {secret}:\n{log}");
        }
        ok(dir.path(), &["admin", "user", "list"]);
    }
}

#[test]
fn a_second_process_can_write_while_the_service_runs() {
    let s = Served::start();
    let writers: Vec<Child> = (0..5)
        .map(|i| {
            Command::new(BIN)
                .args([
                    "--database-url",
                    &db_url(s.dir.path()),
                    "admin",
                    "user",
                    "add",
                    &format!("w{i}@example.com"),
                ])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for i in 0..20 {
        s.memory_ok(&["save", &format!("concurrent write {i}")]);
    }
    for writer in writers {
        let out = writer.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(ok(s.dir.path(), &["admin", "user", "list"]).lines().count(), 6);
    let all = s.memory_ok(&["list", "--all", "--json"]);
    assert_eq!(all.lines().count(), 20);
    s.stop();
}

/// A fake HTTP proxy on loopback: records the request line of every connection it
/// gets and answers 502.
struct FakeProxy {
    url: String,
    seen: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl FakeProxy {
    fn start() -> Self {
        use std::io::{BufRead, BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut line = String::new();
                let _ = BufReader::new(&stream).read_line(&mut line);
                log.lock().unwrap().push(line.trim().to_owned());
                let _ = (&stream).write_all(
                    b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                );
            }
        });
        Self { url, seen }
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

#[test]
fn loopback_services_are_never_reached_through_a_proxy() {
    let served = Served::start();
    let proxy = FakeProxy::start();
    let out = Command::new(BIN)
        .args(["memory", "list"])
        .env("MEMORY_BANK_URL", &served.url)
        .env("MEMORY_BANK_TOKEN", &served.token)
        .env("MEMORY_BANK_ORG", &served.org)
        .env("HTTP_PROXY", &proxy.url)
        .env("http_proxy", &proxy.url)
        .env("ALL_PROXY", &proxy.url)
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        proxy.seen(),
        Vec::<String>::new(),
        "the proxy saw the request (and its token)"
    );
}

#[test]
fn remote_services_keep_the_proxy_and_no_proxy() {
    let proxy = FakeProxy::start();
    let remote = |no_proxy: Option<&str>| {
        let mut command = Command::new(BIN);
        command
            .args(["memory", "list"])
            .env("MEMORY_BANK_URL", "http://memory.example.invalid:8787")
            .env("MEMORY_BANK_TOKEN", "mbk_test")
            .env("MEMORY_BANK_ORG", "org_test")
            .env("HTTP_PROXY", &proxy.url)
            .env_remove("no_proxy");
        match no_proxy {
            Some(list) => command.env("NO_PROXY", list),
            None => command.env_remove("NO_PROXY"),
        };
        command.output().unwrap()
    };
    let out = remote(None);
    assert!(!out.status.success());
    assert_eq!(
        proxy.seen(),
        ["GET http://memory.example.invalid:8787/v1/memory HTTP/1.1"]
    );
    // NO_PROXY naming the host: a direct connection (which cannot resolve here).
    let out = remote(Some("example.invalid"));
    assert!(!out.status.success());
    assert_eq!(
        proxy.seen().len(),
        1,
        "NO_PROXY was ignored: {:?}",
        proxy.seen()
    );
}

/// Logs to a pipe carry no colour codes (an agent keeps `memory-bank mcp`'s stderr in its
/// own log); `NO_COLOR` is honoured where colour would be on.
#[test]
fn logs_to_a_pipe_carry_no_colour_codes() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(["mcp"])
        .env("MEMORY_BANK_LOG", "debug")
        .env("HOME", dir.path())
        .env("MEMORY_BANK_DATA_DIR", dir.path().join("data"))
        .env_remove("NO_COLOR")
        .env_remove("MEMORY_BANK_URL")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.lines().count() >= 1, "the debug level logs something to read: {stderr}");
    assert!(!stderr.contains('\u{1b}'), "no escape codes in a piped log: {stderr:?}");
}
