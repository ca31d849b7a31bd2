//! Checking an encrypted copy against the bank it was made from, before it replaces it:
//! the same schema, and in every table the same number of rows and the same row for
//! every key.
//!
//! Rows are paired by primary key (SQLCipher's export keeps every column, so keys carry
//! over) and compared column by column with `IS`, one lookup per row: memory stays flat
//! however large the bank. A table without a primary key (`sqlite_sequence`,
//! `sqlite_stat1`: a few rows) is compared as a whole with `EXCEPT` both ways.

use memory_bank_store::StoreError;
use sqlx::SqliteConnection;

use crate::rows::db_err;

/// Fails unless schema `encrypted` holds exactly what `main` does.
pub(crate) async fn same_contents(conn: &mut SqliteConnection) -> Result<(), StoreError> {
    let schema_differs: i64 = sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM (SELECT type, name, tbl_name, sql FROM main.sqlite_schema
                                       EXCEPT SELECT type, name, tbl_name, sql FROM encrypted.sqlite_schema))
              + (SELECT count(*) FROM (SELECT type, name, tbl_name, sql FROM encrypted.sqlite_schema
                                       EXCEPT SELECT type, name, tbl_name, sql FROM main.sqlite_schema))",
    )
    .fetch_one(&mut *conn)
    .await
    .map_err(db_err)?;
    if schema_differs != 0 {
        return Err(mismatch("the schema"));
    }
    let versions: (i64, i64) = sqlx::query_as("SELECT (SELECT user_version FROM main.pragma_user_version), (SELECT user_version FROM encrypted.pragma_user_version)")
        .fetch_one(&mut *conn)
        .await
        .map_err(db_err)?;
    if versions.0 != versions.1 {
        return Err(mismatch("the schema version"));
    }
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'shadow')
           AND name NOT IN ('sqlite_schema', 'sqlite_temp_schema') ORDER BY name",
    )
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    for table in &tables {
        same_rows(conn, table).await?;
    }
    tracing::debug!(tables = tables.len(), "the encrypted copy matches the bank");
    Ok(())
}

async fn same_rows(conn: &mut SqliteConnection, table: &str) -> Result<(), StoreError> {
    // (name, pk position) of every column, from the bank's own schema.
    let columns: Vec<(String, i64)> = sqlx::query_as("SELECT name, pk FROM pragma_table_info(?1, 'main') ORDER BY cid")
        .bind(table)
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?;
    // Identifiers cannot be bound parameters: these come from the bank's schema and are
    // quoted (inner quotes doubled), so no name can change the statement.
    let t = quote(table);
    let mut keys: Vec<&(String, i64)> = columns.iter().filter(|(_, pk)| *pk > 0).collect();
    keys.sort_by_key(|(_, pk)| *pk);
    let sql = if keys.is_empty() {
        format!(
            "SELECT (SELECT count(*) FROM main.{t}), (SELECT count(*) FROM encrypted.{t}),
                    (SELECT count(*) FROM main.{t}) - (SELECT count(*) FROM (SELECT * FROM main.{t} EXCEPT SELECT * FROM encrypted.{t}))
                      - (SELECT count(*) FROM (SELECT * FROM encrypted.{t} EXCEPT SELECT * FROM main.{t}))"
        )
    } else {
        let on = keys.iter().map(|(c, _)| format!("a.{0} IS b.{0}", quote(c))).collect::<Vec<_>>().join(" AND ");
        let same = columns.iter().map(|(c, _)| format!("a.{0} IS b.{0}", quote(c))).collect::<Vec<_>>().join(" AND ");
        format!(
            "SELECT (SELECT count(*) FROM main.{t}), (SELECT count(*) FROM encrypted.{t}),
                    (SELECT count(*) FROM main.{t} AS a JOIN encrypted.{t} AS b ON {on} WHERE {same})"
        )
    };
    let (in_bank, in_copy, matching): (i64, i64, i64) =
        sqlx::query_as(sqlx::AssertSqlSafe(sql)).fetch_one(&mut *conn).await.map_err(db_err)?;
    if in_bank != in_copy || matching != in_bank {
        tracing::warn!(table, in_bank, in_copy, matching, "the encrypted copy differs from the bank");
        return Err(mismatch(&format!("the table {table}")));
    }
    Ok(())
}

fn quote(identifier: &str) -> String {
    format!("\"{}\"", identifier.replace('"', "\"\""))
}

fn mismatch(what: &str) -> StoreError {
    StoreError::Database(format!(
        "the encrypted copy of the bank differs from it in {what}, so the bank was left unencrypted and unchanged; \
         report this (the plaintext bank keeps working)"
    ))
}
