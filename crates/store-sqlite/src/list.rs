//! A list page's statements, run on a reader ([`crate::readers`]) as a search's are: a
//! bank's memories, newest first, from a cursor or from the newest.

use memory_bank_contract::validate::Cursor;
use memory_bank_store::BankKey;
use rusqlite::{params, Connection};

use crate::rows::packed_memories;

/// The first page of the bank (owner `?1`, scope `?3`), at most `?2` memories: the
/// page's rows by the bank's time index, then each row packed, newest first.
const FIRST_PAGE: &str = concat!(
    "SELECT ",
    packed_memories!(" ORDER BY m.created_at DESC, m.id DESC"),
    " FROM (SELECT seq FROM memory WHERE user_id = ?1 AND scope = ?3
            ORDER BY created_at DESC, id DESC LIMIT ?2) AS page
     CROSS JOIN memory AS m ON m.seq = page.seq"
);

/// The page after the cursor (`?3` time, `?4` id), as [`FIRST_PAGE`] (scope `?5`).
const PAGE_AFTER: &str = concat!(
    "SELECT ",
    packed_memories!(" ORDER BY m.created_at DESC, m.id DESC"),
    " FROM (SELECT seq FROM memory WHERE user_id = ?1 AND scope = ?5 AND (created_at, id) < (?3, ?4)
            ORDER BY created_at DESC, id DESC LIMIT ?2) AS page
     CROSS JOIN memory AS m ON m.seq = page.seq"
);

/// The bank's page after `cursor` (from the newest without one), packed as
/// [`packed_memories`] packs them.
pub(crate) fn page(conn: &Connection, bank: BankKey<'_>, cursor: Option<&Cursor>, limit: u32) -> rusqlite::Result<Option<String>> {
    let (owner, scope) = (bank.owner(), bank.scope().as_str());
    match cursor {
        None => conn.prepare_cached(FIRST_PAGE)?.query_row(params![owner, limit, scope], |row| row.get(0)),
        Some(cursor) => conn
            .prepare_cached(PAGE_AFTER)?
            .query_row(params![owner, limit, cursor.created_at_ms, cursor.id, scope], |row| row.get(0)),
    }
}
