//! What reading and writing a page cost under each SQLCipher HMAC, against plaintext.
//!
//! Reading: a 64 MB table is scanned whole through a new connection with SQLite's
//! default 2 MB page cache, so nearly every page is read from the OS cache (and,
//! encrypted, decrypted and its HMAC checked), as a search's page-cache misses are.
//! Writing: one transaction rewrites `WRITES` rows, one a page, and commits, so each
//! page goes to the WAL once (encrypted: a fresh IV, AES-256-CBC and an HMAC), as the
//! pages a save changes do. Medians of `ROUNDS` runs each, the variants taking turns
//! so they share the machine's load.
//!
//! `cargo run --release -p memory-bank-store-sqlite --example cipher_page_cost`

use std::str::FromStr as _;
use std::time::{Duration, Instant};

use memory_bank_store_sqlite::DbKey;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode};
use sqlx::{ConnectOptions as _, Connection as _};

const ROUNDS: usize = 15;
const ROWS: usize = 16_000;
const WRITES: usize = 2_000;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), sqlx::Error> {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let key = DbKey::generate();
    let variants: [(&str, Option<&str>); 3] = [("plaintext", None), ("HMAC_SHA512 (default)", Some("HMAC_SHA512")), ("HMAC_SHA256", Some("HMAC_SHA256"))];
    let mut files = Vec::new();
    for (i, (_, hmac)) in variants.iter().enumerate() {
        let path = dir.path().join(format!("{i}.db"));
        let mut conn = options(&path, &key, *hmac).create_if_missing(true).connect().await?;
        sqlx::query("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)").execute(&mut conn).await?;
        // 3 000 bytes a row: one row a 4 KiB page, 16 000 pages (64 MB, the size of a 10⁵-memory bank).
        sqlx::query("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO t SELECT i, randomblob(3000) FROM n")
            .bind(ROWS as i64)
            .execute(&mut conn)
            .await?;
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(&mut conn).await?;
        conn.close().await?;
        files.push(path);
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); variants.len()];
    let mut write_times: Vec<Vec<Duration>> = vec![Vec::new(); variants.len()];
    for round in 0..ROUNDS {
        for i in 0..variants.len() {
            let i = if round % 2 == 0 { i } else { variants.len() - 1 - i };
            let mut conn = options(&files[i], &key, variants[i].1).connect().await?;
            let started = Instant::now();
            let bytes: i64 = sqlx::query_scalar("SELECT sum(length(body)) FROM t").fetch_one(&mut conn).await?;
            times[i].push(started.elapsed());
            assert_eq!(bytes, ROWS as i64 * 3000);
            // The same bytes back (the cost is the page, not making its content), a
            // different stretch of the table each round, pages already in the cache.
            let first = (round * WRITES % ROWS) as i64;
            let range = (first, first + WRITES as i64);
            sqlx::query("SELECT sum(length(body)) FROM t WHERE id > ?1 AND id <= ?2").bind(range.0).bind(range.1).execute(&mut conn).await?;
            let started = Instant::now();
            let mut tx = conn.begin().await?;
            sqlx::query("UPDATE t SET body = body WHERE id > ?1 AND id <= ?2").bind(range.0).bind(range.1).execute(&mut *tx).await?;
            tx.commit().await?;
            write_times[i].push(started.elapsed());
            sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(&mut conn).await?;
            conn.close().await?;
        }
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    println!("| pages | {} |", variants.map(|v| v.0).join(" | "));
    println!("|---|{}", "---|".repeat(variants.len()));
    for (what, pages, times) in [("read", ROWS, &mut times), ("written", WRITES, &mut write_times)] {
        let plain = median(&mut times[0]);
        let cells: Vec<String> = times
            .iter_mut()
            .map(|t| {
                let m = median(t);
                let per_page = m.as_secs_f64() * 1e6 / pages as f64;
                format!("{:.1} ms ({per_page:.1} µs a page, {:.2}×)", m.as_secs_f64() * 1e3, m.as_secs_f64() / plain.as_secs_f64())
            })
            .collect();
        println!("| {pages} {what} | {} |", cells.join(" | "));
    }
    Ok(())
}

fn options(path: &std::path::Path, key: &DbKey, hmac: Option<&str>) -> SqliteConnectOptions {
    let options = SqliteConnectOptions::from_str(&format!("sqlite://{}", path.display()))
        .expect("a SQLite URL")
        .journal_mode(SqliteJournalMode::Wal)
        .disable_statement_logging();
    match hmac {
        Some(hmac) => options.pragma("key", key.pragma_value()).pragma("cipher_hmac_algorithm", hmac.to_owned()),
        None => options,
    }
}
