//! The `memory-bank` binary on MySQL/MariaDB: `db bootstrap` / `db migrate`, the
//! schema checks before `serve` and `admin`, the index assertion, and the memory
//! commands through a real `memory-bank serve`. The database server is
//! `MEMORY_BANK_TEST_MYSQL_URL` or a throwaway MariaDB (see memory_bank_store_mysql::testing).

#[path = "support/serve_process.rs"]
mod serve_process;

use std::process::{Child, Command, Output};

use memory_bank_store_mysql::testing::TestDatabase;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_memory-bank");

fn run(url: &str, args: &[&str]) -> Output {
    Command::new(BIN).args(["--database-url", url]).args(args).env_remove("MEMORY_BANK_TOKEN")
        .env_remove("MEMORY_BANK_ORG").env_remove("MEMORY_BANK_URL").output().unwrap()
}

fn ok(url: &str, args: &[&str]) -> String {
    let out = run(url, args);
    assert!(out.status.success(), "{args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Runs a command that must fail and returns its stderr.
fn fails(url: &str, args: &[&str]) -> String {
    let out = run(url, args);
    assert!(!out.status.success(), "{args:?} should fail");
    assert!(out.stdout.is_empty(), "errors stay off stdout");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Starts `memory-bank serve` on a free port; Err(exit status + stderr) if it exits instead.
fn serve(url: &str) -> Result<(Child, String), String> {
    serve_process::start(BIN, url, &[]).map(|s| (s.child, s.url))
}

fn stop(mut child: Child) -> bool {
    Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    child.wait().unwrap().success()
}

async fn drop_index(url: &str) {
    let store = memory_bank_store_mysql::MySqlStore::open(url).await.unwrap();
    sqlx::raw_sql("DROP TABLE memory_term").execute(store.pool()).await.unwrap();
    store.pool().close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_database_needs_bootstrap_and_then_serves_memories() {
    let db = TestDatabase::create().await;
    let url = db.url();
    let err = fails(url, &["admin", "user", "list"]);
    assert!(err.contains("memory-bank db bootstrap"), "{err}");
    let err = serve(url).expect_err("serve must refuse an empty database");
    assert!(err.contains("memory-bank db bootstrap") && !err.contains("exit 0"), "{err}");
    assert!(fails(url, &["db", "optimize"]).contains("memory-bank db bootstrap"));

    assert_eq!(ok(url, &["db", "bootstrap"]).trim(), "bootstrapped; full-text index created");
    assert_eq!(ok(url, &["db", "bootstrap"]).trim(), "bootstrapped; full-text index present");
    assert_eq!(ok(url, &["db", "migrate"]).trim(), "migrated; full-text index present");

    let user = ok(url, &["admin", "user", "add", "ada@example.com"]).trim().to_owned();
    let org = ok(url, &["admin", "org", "add", "Analytical Engines"]).trim().to_owned();
    ok(url, &["admin", "member", "add", &org, &user]);
    let token = ok(url, &["admin", "token", "issue", &user]).trim().to_owned();
    assert!(fails(url, &["admin", "user", "add", "ADA@example.com"]).contains("already exists"));

    let (child, service) = serve(url).expect("serve starts after bootstrap");
    let memory = |args: &[&str]| {
        let out = Command::new(BIN).arg("memory").args(args).env("MEMORY_BANK_URL", &service)
            .env("MEMORY_BANK_TOKEN", &token).env("MEMORY_BANK_ORG", &org).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let saved: Value = serde_json::from_str(&memory(&["save", "Ada writes Go and C++ — 我喜欢喝绿茶", "--tag", "langs",
        "--snippet", "from the kickoff call", "--message-id", "msg-1", "--json"])).unwrap();
    let id = saved["memory"]["id"].as_str().unwrap().to_owned();
    for q in ["go", "C++", "绿茶", "langs", "kickoff"] {
        let found: Value = serde_json::from_str(&memory(&["search", q, "--json"])).unwrap();
        assert_eq!(found["results"][0]["id"], id.as_str(), "{q}");
    }
    // `db optimize` beside the running service rewrites the index; it finds the same.
    let optimized = ok(url, &["db", "optimize"]);
    assert!(optimized.starts_with("full-text index optimized in ") && optimized.contains(" MB → "), "{optimized}");
    for q in ["go", "C++", "绿茶", "langs", "kickoff"] {
        let found: Value = serde_json::from_str(&memory(&["search", q, "--json"])).unwrap();
        assert_eq!(found["results"][0]["id"], id.as_str(), "{q} after db optimize");
    }
    let listed: Value = serde_json::from_str(&memory(&["list", "--json"])).unwrap();
    assert_eq!(listed["memories"][0]["createdAt"], saved["memory"]["createdAt"], "milliseconds survive the round trip");
    assert_eq!(listed["memories"][0]["contexts"][0]["citation"]["messageId"], "msg-1");
    assert_eq!(memory(&["delete", &id]).trim(), format!("deleted {id}"));
    assert!(stop(child), "SIGTERM stops the service cleanly");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_refuses_to_start_without_the_index_and_migrate_repairs_it() {
    let db = TestDatabase::create().await;
    let url = db.url();
    ok(url, &["db", "bootstrap"]);
    ok(url, &["admin", "user", "add", "x@example.com"]);
    drop_index(url).await;
    let err = serve(url).expect_err("serve must refuse without the index");
    assert!(err.contains("memory-bank db migrate"), "{err}");
    assert!(!err.contains("exit 0"), "{err}");
    assert_eq!(ok(url, &["db", "migrate"]).trim(), "migrated; full-text index created");
    assert_eq!(ok(url, &["db", "migrate"]).trim(), "migrated; full-text index present");
    let (child, _) = serve(url).expect("serves after migrate");
    assert!(stop(child));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_from_an_older_release_needs_migrate() {
    let db = TestDatabase::create().await;
    let url = db.url();
    ok(url, &["db", "bootstrap"]);
    let user = ok(url, &["admin", "user", "add", "old@example.com"]).trim().to_owned();
    // What a release before tracked migrations left behind: the tables, no history.
    let store = memory_bank_store_mysql::MySqlStore::open(url).await.unwrap();
    sqlx::raw_sql("DROP TABLE _sqlx_migrations").execute(store.pool()).await.unwrap();
    store.pool().close().await;
    let err = fails(url, &["admin", "user", "list"]);
    assert!(err.contains("memory-bank db migrate") && err.contains("older"), "{err}");
    assert!(serve(url).expect_err("serve must refuse").contains("memory-bank db migrate"));
    assert_eq!(ok(url, &["db", "migrate"]).trim(), "migrated; full-text index present");
    assert!(ok(url, &["admin", "user", "list"]).contains(&user), "rows survive the migration");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connection_problems_say_what_to_do_and_never_show_the_password() {
    let db = TestDatabase::create().await;
    // The same user with a wrong password.
    let (scheme, rest) = db.url().split_once("://").unwrap();
    let (userinfo, host) = rest.split_once('@').unwrap();
    let user = userinfo.split(':').next().unwrap();
    let wrong = format!("{scheme}://{user}:hunter2wrong@{host}");
    let err = fails(&wrong, &["admin", "user", "list"]);
    assert!(err.contains("user and password") && !err.contains("hunter2wrong"), "{err}");
    let missing = db.url().replace(db.name(), "no_such_database_here");
    let err = fails(&missing, &["db", "migrate"]);
    assert!(err.contains("does not exist") && err.contains("CREATE DATABASE"), "{err}");
    // Nothing listens on port 1: the pool gives up after its acquire timeout.
    let err = fails("mysql://app:hunter2@127.0.0.1:1/memory", &["admin", "user", "list"]);
    assert!(err.contains("unavailable") && err.contains("check that it is running"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
}

/// `serve` on a managed-service style server: TLS only (`REQUIRE SSL`), the CA given in
/// the URL. Certificates are made at test time; the server is its own throwaway MariaDB.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_connects_over_verified_tls_and_says_so_when_tls_is_off() {
    use memory_bank_store_mysql::testing::{MariaDb, TestCertificates};
    let certs = TestCertificates::generate().unwrap();
    let args = certs.server_args();
    let server = tokio::task::spawn_blocking(move || MariaDb::start_with(&args)).await.unwrap().unwrap();
    let db = TestDatabase::create_on(&server.server_url()).await;
    let root = memory_bank_store_mysql::MySqlStore::open(db.url()).await.unwrap();
    sqlx::raw_sql("CREATE USER 'tls_only'@'%' IDENTIFIED BY 'secret' REQUIRE SSL").execute(root.pool()).await.unwrap();
    // The database name is letters, digits and _ only.
    let grant = format!("GRANT ALL PRIVILEGES ON {}.* TO 'tls_only'@'%'", db.name());
    sqlx::raw_sql(sqlx::AssertSqlSafe(grant)).execute(root.pool()).await.unwrap();
    root.pool().close().await;
    let base = format!("mysql://tls_only:secret@127.0.0.1:{}/{}", server.port(), db.name());
    let url = format!("{base}?ssl-mode=VERIFY_IDENTITY&ssl-ca={}", certs.ca().display());

    assert_eq!(ok(&url, &["db", "bootstrap"]).trim(), "bootstrapped; full-text index created");
    let (child, _service) = serve(&url).expect("serve starts over TLS");
    assert!(stop(child), "SIGTERM stops the service cleanly");

    let err = serve(&format!("{base}?ssl-mode=DISABLED")).expect_err("a TLS-only user cannot log in without TLS");
    assert!(err.contains("ssl-mode=VERIFY_IDENTITY&ssl-ca="), "{err}");
    assert!(!err.contains("secret"), "the password stays out of messages: {err}");
}

/// A database user without the PROCESS privilege (the usual grant on managed
/// services) can run `db optimize` and sees the index's size: the index is a table of
/// the database's own, whose size any user with rights on it may read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn optimize_works_for_a_user_without_the_process_privilege() {
    let db = TestDatabase::create().await;
    let url = db.url();
    ok(url, &["db", "bootstrap"]);
    let user = format!("u{}", &db.name()[db.name().len() - 12..]);
    let root = memory_bank_store_mysql::MySqlStore::open(url).await.unwrap();
    // Fixed statements: the user and database names are made of letters, digits and _.
    let create = format!("CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'");
    sqlx::raw_sql(sqlx::AssertSqlSafe(create)).execute(root.pool()).await.unwrap();
    let grant = format!("GRANT ALL PRIVILEGES ON {}.* TO '{user}'@'%'", db.name());
    sqlx::raw_sql(sqlx::AssertSqlSafe(grant)).execute(root.pool()).await.unwrap();
    // The same URL with this user's login in place of the test server's.
    let (scheme, rest) = url.split_once("://").unwrap();
    let host_and_path = rest.rsplit_once('@').map_or(rest, |(_, after)| after);
    let limited = format!("{scheme}://{user}:pw@{host_and_path}");
    let out = ok(&limited, &["db", "optimize"]);
    assert!(out.starts_with("full-text index optimized in ") && out.contains(" MB → "), "{out}");
    let drop = format!("DROP USER '{user}'@'%'");
    sqlx::raw_sql(sqlx::AssertSqlSafe(drop)).execute(root.pool()).await.unwrap();
}
