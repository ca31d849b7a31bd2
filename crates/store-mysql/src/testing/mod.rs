//! Test support (feature `testing`): a MariaDB server for tests and a fresh,
//! empty database per test.
//!
//! The server is `MEMORY_BANK_TEST_MYSQL_URL` when set (e.g.
//! `mysql://root:secret@127.0.0.1:3306`), otherwise a throwaway [`MariaDb`] started
//! once per test process. When neither is possible the tests fail with a message
//! saying what to install: they are never skipped.

mod galera;
mod process;
mod server;
mod tls;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

use sqlx::{Connection as _, MySqlConnection};

pub use galera::{GaleraCluster, GALERA_INSTALL_HINT, GALERA_PROVIDER};
pub use server::{MariaDb, INSTALL_HINT};
pub use tls::TestCertificates;

/// The variable naming an existing server to test against instead of a throwaway one.
pub const URL_ENV: &str = "MEMORY_BANK_TEST_MYSQL_URL";

/// The throwaway server shared by every test of this process.
struct Shared {
    url: String,
    server: Mutex<Option<MariaDb>>,
}

static SHARED: OnceLock<Result<Shared, String>> = OnceLock::new();

extern "C" fn stop_shared_server() {
    if let Some(Ok(shared)) = SHARED.get() {
        if let Ok(mut server) = shared.server.lock() {
            // Dropping kills the server by PID and removes its folder.
            server.take();
        }
    }
}

/// The URL (without a database) of the server tests should use: the
/// `MEMORY_BANK_TEST_MYSQL_URL` one, or the shared throwaway server, started on
/// first use. Panics, saying what to install, when there is none.
pub fn server_url() -> String {
    if let Some(url) = std::env::var(URL_ENV).ok().filter(|u| !u.trim().is_empty()) {
        return url.trim().to_owned();
    }
    let shared = SHARED.get_or_init(|| {
        let server = MariaDb::start()?;
        // SAFETY: registers a plain function without arguments; it runs once at exit.
        unsafe { libc::atexit(stop_shared_server) };
        Ok(Shared { url: server.server_url(), server: Mutex::new(Some(server)) })
    });
    match shared {
        Ok(shared) => shared.url.clone(),
        Err(e) => panic!("the MySQL/MariaDB tests need a database server and cannot start one: {e}"),
    }
}

/// `server_url` with its path replaced by `/database` (query parameters kept).
pub fn with_database(server_url: &str, database: &str) -> String {
    let (base, query) = match server_url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (server_url, None),
    };
    let authority_start = base.find("://").map_or(0, |i| i + 3);
    let base = match base[authority_start..].find('/') {
        Some(slash) => &base[..authority_start + slash],
        None => base,
    };
    match query {
        Some(query) => format!("{base}/{database}?{query}"),
        None => format!("{base}/{database}"),
    }
}

/// A new, empty database on the test server. Dropped again when the value is
/// dropped if it lives on an external server (a throwaway server's whole data folder
/// goes at exit anyway).
pub struct TestDatabase {
    server_url: String,
    name: String,
    url: String,
    external: bool,
}

impl TestDatabase {
    /// Creates an empty database on [`server_url`].
    pub async fn create() -> Self {
        let external = std::env::var(URL_ENV).is_ok_and(|u| !u.trim().is_empty());
        let mut db = Self::create_on(&server_url()).await;
        db.external = external;
        db
    }

    /// Creates an empty database on the server at `server_url` (which may name no
    /// database). Panics with the server's answer when that fails.
    pub async fn create_on(server_url: &str) -> Self {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let name = format!("mbtest_{}_{}_{}", std::process::id(), COUNTER.fetch_add(1, Ordering::SeqCst), nanos % 1_000_000);
        let mut conn = connect(server_url).await;
        // An identifier cannot be a bound parameter; this one is made above from
        // digits, lowercase letters and underscores only.
        let create = format!("CREATE DATABASE {name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        if let Err(e) = sqlx::raw_sql(sqlx::AssertSqlSafe(create)).execute(&mut conn).await {
            panic!("cannot create the test database {name} on {server_url}: {e}");
        }
        let _ = conn.close().await;
        Self { url: with_database(server_url, &name), server_url: server_url.to_owned(), name, external: true }
    }

    /// `mysql://…/<database>` for this database.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The database's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        if !self.external {
            return;
        }
        let (server_url, name) = (self.server_url.clone(), self.name.clone());
        // Drop may run inside an async test; a thread with its own runtime can block.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
            runtime.block_on(async {
                let mut conn = MySqlConnection::connect(&with_database(&server_url, "")).await.ok()?;
                let drop = format!("DROP DATABASE IF EXISTS {name}");
                sqlx::raw_sql(sqlx::AssertSqlSafe(drop)).execute(&mut conn).await.ok()?;
                conn.close().await.ok()
            })
        });
        let _ = dropped.join();
    }
}

async fn connect(server_url: &str) -> MySqlConnection {
    // A server that was just (re)started may still be finishing recovery.
    let mut last_error = None;
    for _ in 0..100 {
        match MySqlConnection::connect(&with_database(server_url, "")).await {
            Ok(conn) => return conn,
            Err(e) => last_error = Some(e),
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!(
        "cannot connect to the test server {server_url}: {}; {INSTALL_HINT}",
        last_error.map(|e| e.to_string()).unwrap_or_default()
    );
}

/// The [`memory_bank_store::StoreError`] the store makes of a server error, for tests
/// that provoke the error on a raw connection (a deadlock needs two sessions the
/// store's API never interleaves on purpose).
pub fn store_error(err: sqlx::Error) -> memory_bank_store::StoreError {
    crate::rows::db_err(err)
}

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn database_goes_into_the_path() {
        assert_eq!(with_database("mysql://root@127.0.0.1:3306", "db1"), "mysql://root@127.0.0.1:3306/db1");
        assert_eq!(with_database("mysql://u:p@h:1/old?ssl-mode=disabled", "db1"), "mysql://u:p@h:1/db1?ssl-mode=disabled");
        assert_eq!(with_database("mysql://h/", "x"), "mysql://h/x");
    }
}
