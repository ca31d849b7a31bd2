//! Checking the encrypted copy of the archive against the archive before it replaces it:
//! the same schema and version, and in every table the same number of rows and the same
//! row for every key (the bank's check, `store-sqlite/src/verify.rs`, over rusqlite).
//!
//! Rows are paired by primary key and compared column by column with `IS`, one lookup per
//! row, so memory stays flat however large the archive; a table without a primary key is
//! compared whole with `EXCEPT` both ways.

use rusqlite::Connection;

/// `Err` (what differs, and what to do) unless schema `encrypted` holds exactly what `main` does.
pub(super) fn same_contents(conn: &Connection) -> Result<(), String> {
    let sql_err = |e: rusqlite::Error| format!("cannot check its encrypted copy: {e}; the archive is unchanged");
    let schema_differs: i64 = conn
        .query_row(
            "SELECT (SELECT count(*) FROM (SELECT type, name, tbl_name, sql FROM main.sqlite_schema
                                           EXCEPT SELECT type, name, tbl_name, sql FROM encrypted.sqlite_schema))
                  + (SELECT count(*) FROM (SELECT type, name, tbl_name, sql FROM encrypted.sqlite_schema
                                           EXCEPT SELECT type, name, tbl_name, sql FROM main.sqlite_schema))",
            [],
            |r| r.get(0),
        )
        .map_err(sql_err)?;
    if schema_differs != 0 {
        return Err(mismatch("the schema"));
    }
    let (main, copy): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT user_version FROM main.pragma_user_version), (SELECT user_version FROM encrypted.pragma_user_version)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(sql_err)?;
    if main != copy {
        return Err(mismatch("the schema version"));
    }
    let tables: Vec<String> = conn
        .prepare(
            "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'shadow')
               AND name NOT IN ('sqlite_schema', 'sqlite_temp_schema') ORDER BY name",
        )
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(sql_err)?;
    for table in &tables {
        same_rows(conn, table).map_err(sql_err)??;
    }
    tracing::debug!(tables = tables.len(), "the encrypted copy matches the session archive");
    Ok(())
}

fn same_rows(conn: &Connection, table: &str) -> rusqlite::Result<Result<(), String>> {
    let columns: Vec<(String, i64)> = conn
        .prepare("SELECT name, pk FROM pragma_table_info(?1, 'main') ORDER BY cid")?
        .query_map([table], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    // Identifiers cannot be bound: these come from the archive's own schema and are
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
        let pairs = |cols: &mut dyn Iterator<Item = &String>| cols.map(|c| format!("a.{0} IS b.{0}", quote(c))).collect::<Vec<_>>().join(" AND ");
        let on = pairs(&mut keys.iter().map(|(c, _)| c));
        let same = pairs(&mut columns.iter().map(|(c, _)| c));
        format!(
            "SELECT (SELECT count(*) FROM main.{t}), (SELECT count(*) FROM encrypted.{t}),
                    (SELECT count(*) FROM main.{t} AS a JOIN encrypted.{t} AS b ON {on} WHERE {same})"
        )
    };
    let (in_archive, in_copy, matching): (i64, i64, i64) = conn.query_row(&sql, [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    if in_archive != in_copy || matching != in_archive {
        tracing::warn!(table, in_archive, in_copy, matching, "the encrypted copy differs from the session archive");
        return Ok(Err(mismatch(&format!("the table {table}"))));
    }
    Ok(Ok(()))
}

fn quote(identifier: &str) -> String {
    format!("\"{}\"", identifier.replace('"', "\"\""))
}

fn mismatch(what: &str) -> String {
    format!(
        "its encrypted copy differs from it in {what}, so it was left unencrypted and unchanged; report this \
         (the plaintext archive keeps working)"
    )
}
