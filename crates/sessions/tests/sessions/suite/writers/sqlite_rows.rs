//! A session's rows taken out of an agent's SQLite database and put back as they were:
//! how the SQLite-backed writers delete a session (as the agent does) and restore it,
//! its old stamps included.

use rusqlite::types::Value;
use rusqlite::Connection;

/// One table's rows, every column.
pub(super) type TableRows = (&'static str, Vec<Vec<Value>>);

/// A table or column name as a quoted SQL identifier. Names cannot be bound as
/// parameters; these are the writers' own constants, quoted so none can change a
/// statement's shape. Every value is still a bound parameter.
fn ident(name: &'static str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Every column of the rows of `table` whose `column` is `id`.
pub(super) fn rows_where(conn: &Connection, table: &'static str, column: &'static str, id: &str) -> Vec<Vec<Value>> {
    let sql = ["SELECT * FROM ", &ident(table), " WHERE ", &ident(column), " = ?1"].concat();
    let mut stmt = conn.prepare(&sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let columns = stmt.column_count();
    let rows = stmt.query_map([id], |r| (0..columns).map(|i| r.get::<_, Value>(i)).collect());
    rows.and_then(Iterator::collect).unwrap_or_else(|e| panic!("reading {table}: {e}"))
}

/// Takes the session's rows out of each `(table, column)`, parents first: kept in that
/// order, deleted in the reverse one (children first).
pub(super) fn take_rows(conn: &Connection, tables: &[(&'static str, &'static str)], id: &str) -> Vec<TableRows> {
    let saved = tables.iter().map(|&(table, column)| (table, rows_where(conn, table, column, id))).collect();
    for &(table, column) in tables.iter().rev() {
        let sql = ["DELETE FROM ", &ident(table), " WHERE ", &ident(column), " = ?1"].concat();
        conn.execute(&sql, [id]).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    saved
}

/// Puts taken rows back, in the order they were taken.
pub(super) fn put_rows(conn: &Connection, saved: Vec<TableRows>) {
    for (table, rows) in saved {
        for row in rows {
            insert_row(conn, table, row);
        }
    }
}

/// One row back into `table`, every column as it was.
pub(super) fn insert_row(conn: &Connection, table: &'static str, row: Vec<Value>) {
    let marks = vec!["?"; row.len()].join(", ");
    let sql = ["INSERT INTO ", &ident(table), " VALUES (", &marks, ")"].concat();
    conn.execute(&sql, rusqlite::params_from_iter(row)).unwrap_or_else(|e| panic!("{sql}: {e}"));
}
