//! The MySQL/MariaDB backend of Memory Bank: one server shared by many service
//! processes, an index table of its own over the app's user-scoped search terms.
//!
//! Unlike the embedded SQLite store, opening never changes the schema: production
//! databases are bootstrapped and migrated by an operator (`memory-bank db bootstrap`,
//! `memory-bank db migrate`), and [`MySqlStore::schema_state`] tells a caller which one
//! a database needs. Search never relies on the engine's tokenizer (no CJK support,
//! three-character minimum, stopwords): it matches the terms of
//! [`memory_bank_store::terms`], stored in `memory.search_text`, so MariaDB and MySQL 8
//! work with their default settings.
//!
//! Supported servers: MariaDB 10.6+ and MySQL 8.0.4+ (both needed for `JSON_TABLE`).

mod contention;
mod counts;
mod delete;
mod encryption;
mod fulltext;
mod layout;
mod offboarding;
mod postings;
mod proposals;
mod revisions;
mod rows;
mod saves;
mod schema;
mod search;
mod search_terms;
mod store;
mod teams;
mod transfer;
mod vectors;
#[cfg(feature = "testing")]
pub mod testing;

use std::str::FromStr;
use std::time::Duration;

use memory_bank_store::StoreError;
use sqlx::mysql::{MySqlConnectOptions, MySqlPoolOptions, MySqlSslMode};
use sqlx::{Connection as _, MySqlPool};

pub use encryption::{EncryptionReport, TableEncryption};
pub use postings::SEARCH_INDEX;
pub use schema::SchemaState;

/// The migrations of this backend, embedded in the binary.
pub(crate) static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// A pooled connection idle for at least this long is pinged before it is handed out.
const PING_IF_IDLE_FOR: Duration = Duration::from_secs(1);

/// Connection pool settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MySqlOptions {
    /// Most connections the pool opens to the server (at least 2 are used); single saves
    /// have a pool of their own, half as large (`saves.rs`).
    pub max_connections: u32,
    /// How long a request waits for a connection before it fails as
    /// [`StoreError::Unavailable`] (the server answers 503). While the database is down,
    /// every request takes this long to fail, so keep it short.
    pub acquire_timeout: Duration,
}

impl Default for MySqlOptions {
    fn default() -> Self {
        Self { max_connections: 10, acquire_timeout: Duration::from_secs(5) }
    }
}

/// The MySQL/MariaDB store. Cheap to clone (it is a pool handle).
#[derive(Debug, Clone)]
pub struct MySqlStore {
    pool: MySqlPool,
    /// Single saves' connections, autocommit off (see `saves`).
    saves: MySqlPool,
}

impl MySqlStore {
    /// Connects to the database at `url` (`mysql://user:password@host:3306/memory_bank`;
    /// `mariadb://` is accepted too) with default pool settings. Does not migrate: see
    /// [`Self::schema_state`] and [`memory_bank_store::MemoryStore::migrate`].
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        Self::open_with(url, &MySqlOptions::default()).await
    }

    /// Like [`Self::open`], with explicit pool settings.
    pub async fn open_with(url: &str, options: &MySqlOptions) -> Result<Self, StoreError> {
        let connect = connect_options(url)?;
        let database = connect.get_database().unwrap_or_default().to_owned();
        let tls_off = matches!(connect.get_ssl_mode(), MySqlSslMode::Disabled);
        let verifying = matches!(connect.get_ssl_mode(), MySqlSslMode::VerifyCa | MySqlSslMode::VerifyIdentity);
        // `migrate` holds a lock on one connection while it works on another.
        let pool = pool_options(options.max_connections.max(2), options.acquire_timeout)
            .connect_with(connect.clone())
            .await
            .map_err(|e| rows::open_err(e, &database, tls_off, verifying))?;
        // Half as many: a save holds its connection for under a millisecond. Opened as
        // saves come (the pool above has checked the server already).
        let saves = pool_options((options.max_connections / 2).max(1), options.acquire_timeout)
            .after_connect(|conn, _| Box::pin(async move { sqlx::raw_sql(saves::AUTOCOMMIT_OFF).execute(conn).await.map(drop) }))
            .connect_lazy_with(connect);
        Ok(Self { pool, saves })
    }

    /// The connection pool, for tests and tools that need raw access.
    pub fn pool(&self) -> &MySqlPool {
        &self.pool
    }

    /// Whether this database has the schema this build expects, and if not, which
    /// command fixes it.
    pub async fn schema_state(&self) -> Result<SchemaState, StoreError> {
        schema::state(&self.pool).await
    }
}

/// The settings both pools share, with at most `max_connections`.
fn pool_options(max_connections: u32, acquire_timeout: Duration) -> MySqlPoolOptions {
    MySqlPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(acquire_timeout)
        // A pooled connection may have died with a server restart; checking it
        // before use lets the pool replace it, so the service recovers by itself.
        // sqlx already pings every connection as it returns to the pool, so one
        // that came back moments ago is known to be alive: only a connection idle
        // for longer is pinged again. That saves a round trip per statement (a
        // search makes two), which on a busy machine is also one less wake-up to
        // wait for. If the server dies within that second, the request fails as
        // 503, as it would a moment later, and the failed ping on release drops
        // the connection.
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for >= PING_IF_IDLE_FOR {
                    conn.ping().await?;
                }
                Ok(true)
            })
        })
        // Well under the servers' default wait_timeout (8 h), so the pool closes
        // idle connections before the server does.
        .idle_timeout(Duration::from_secs(600))
        .max_lifetime(Duration::from_secs(1800))
}

/// Parses and checks a MySQL URL. Every connection is pinned to UTC so that
/// TIMESTAMP(3) values convert to and from milliseconds since the epoch exactly,
/// whatever the server's own time zone is.
fn connect_options(url: &str) -> Result<MySqlConnectOptions, StoreError> {
    let normalised = match url.strip_prefix("mariadb:") {
        Some(rest) => format!("mysql:{rest}"),
        None => url.to_owned(),
    };
    let options = MySqlConnectOptions::from_str(&normalised)
        .map_err(|e| {
            StoreError::Invalid(format!(
                "{url:?} is not a MySQL URL ({e}); use mysql://user:password@host:3306/memory_bank"
            ))
        })?
        .timezone(Some("+00:00".to_owned()))
        .charset("utf8mb4");
    if options.get_database().is_none_or(str::is_empty) {
        return Err(StoreError::Invalid(format!(
            "{url:?} names no database; add one to the path, e.g. mysql://user:password@host:3306/memory_bank"
        )));
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_need_a_database_and_accept_the_mariadb_scheme() {
        assert!(connect_options("mysql://root@127.0.0.1:3306/memory").is_ok());
        assert_eq!(connect_options("mariadb://root@127.0.0.1:3306/memory").unwrap().get_database(), Some("memory"));
        for bad in ["mysql://root@127.0.0.1:3306", "mysql://root@127.0.0.1:3306/", "not a url"] {
            let err = connect_options(bad).unwrap_err().to_string();
            assert!(err.contains("mysql://user:password@host:3306/memory_bank"), "{bad}: {err}");
        }
    }
}
