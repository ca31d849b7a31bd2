//! A session's rows taken out of an agent's SQLite database and put back as they were:
//! how the SQLite-backed writers delete a session (as the agent does) and restore it,
//! its old stamps included.

use rusqlite::types::Value;
use rusqlite::Connection;

/// One table's rows, every column.
pub(super) type TableRows = (&'static str, Vec<Vec<Value>>);

/// Every column of the rows of `table` whose `column` is `id`.
pub(super) fn rows_where(conn: &Connection, table: &str, column: &str, id: &str) -> Vec<Vec<Value>> {
    let mut stmt = conn.prepare(&format!("SELECT * FROM {table} WHERE {column} = ?1")).unwrap();
    let columns = stmt.column_count();
    stmt.query_map([id], |r| (0..columns).map(|i| r.get::<_, Value>(i)).collect()).unwrap().collect::<Result<_, _>>().unwrap()
}

/// Takes the session's rows out of each `(table, column)`, parents first: kept in that
/// order, deleted in the reverse one (children first).
pub(super) fn take_rows(conn: &Connection, tables: &[(&'static str, &str)], id: &str) -> Vec<TableRows> {
    let saved = tables.iter().map(|&(table, column)| (table, rows_where(conn, table, column, id))).collect();
    for (table, column) in tables.iter().rev() {
        conn.execute(&format!("DELETE FROM {table} WHERE {column} = ?1"), [id]).unwrap();
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
pub(super) fn insert_row(conn: &Connection, table: &str, row: Vec<Value>) {
    let marks = vec!["?"; row.len()].join(", ");
    conn.execute(&format!("INSERT INTO {table} VALUES ({marks})"), rusqlite::params_from_iter(row)).unwrap();
}
