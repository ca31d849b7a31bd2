//! The times an import line may carry. A file can say anything, and a memory dated
//! 9999 would sort above every other for ever (lists are newest first), while one
//! edited before it was saved makes no sense. So a line must hold:
//!
//! - every time between [`EARLIEST_MS`] (1970-01-01T00:00:01Z, the earliest both
//!   stores keep: MySQL's `TIMESTAMP` starts there) and a day after the server's clock
//!   ([`MAX_AHEAD_MS`]: a clock a little fast, or a zone written wrong, is not worth
//!   refusing a line for);
//! - `updatedAt` no earlier than `createdAt`;
//! - each revision written no earlier than the memory was saved, replaced no earlier
//!   than it was written, and no later than the memory's `updatedAt` (the edit that
//!   replaced it changed the memory then, and later edits only move `updatedAt` on).
//!
//! Every export of a bank holds these, so no export of ours is refused.

use crate::{FieldError, Timestamp};

/// The earliest time a line may carry, in ms since the Unix epoch.
pub const EARLIEST_MS: i64 = 1_000;

/// How far ahead of the server's clock a time may be: one day.
pub const MAX_AHEAD_MS: i64 = 24 * 60 * 60 * 1000;

/// `path`'s time `at` is within [`EARLIEST_MS`] and a day after `now`.
fn check_range(errors: &mut Vec<FieldError>, path: &str, at: Timestamp, now: Timestamp) {
    if at.unix_ms() < EARLIEST_MS {
        let earliest = Timestamp::from_unix_ms(EARLIEST_MS);
        errors.push(FieldError::new(path, format!("{path} is before {earliest}, the earliest time a bank keeps (got {at})")));
    } else if at.unix_ms() > now.unix_ms().saturating_add(MAX_AHEAD_MS) {
        errors.push(FieldError::new(
            path,
            format!("{path} is in the future ({at}); a time may be at most a day ahead of this server's clock ({now})"),
        ));
    }
}

/// A memory's `createdAt` and `updatedAt`.
pub(crate) fn check_memory(errors: &mut Vec<FieldError>, created_at: Timestamp, updated_at: Timestamp, now: Timestamp) {
    check_range(errors, "createdAt", created_at, now);
    check_range(errors, "updatedAt", updated_at, now);
    if updated_at < created_at {
        errors.push(FieldError::new(
            "updatedAt",
            format!("updatedAt is before createdAt ({updated_at} < {created_at}); a memory is changed after it is saved"),
        ));
    }
}

/// A context's `createdAt` (`base` is `contexts[i]`).
pub(crate) fn check_context(errors: &mut Vec<FieldError>, base: &str, created_at: Timestamp, now: Timestamp) {
    check_range(errors, &format!("{base}.createdAt"), created_at, now);
}

/// A revision's `(createdAt, replacedAt)` against its memory's `(createdAt, updatedAt)`
/// (`base` is `revisions[i]`). The memory's own times are checked against the clock,
/// so these are too.
pub(crate) fn check_revision(
    errors: &mut Vec<FieldError>,
    base: &str,
    (created_at, replaced_at): (Timestamp, Timestamp),
    (memory_created_at, memory_updated_at): (Timestamp, Timestamp),
) {
    if created_at < memory_created_at {
        errors.push(FieldError::new(
            format!("{base}.createdAt"),
            format!("{base}.createdAt is before the memory's createdAt ({created_at} < {memory_created_at}); a version is written after the memory is saved"),
        ));
    }
    if replaced_at < created_at {
        errors.push(FieldError::new(
            format!("{base}.replacedAt"),
            format!("{base}.replacedAt is before its createdAt ({replaced_at} < {created_at}); a version is replaced after it is written"),
        ));
    }
    if replaced_at > memory_updated_at {
        errors.push(FieldError::new(
            format!("{base}.replacedAt"),
            format!("{base}.replacedAt is after the memory's updatedAt ({replaced_at} > {memory_updated_at}); the edit that replaced it changed the memory then"),
        ));
    }
}
