//! Ids: a type prefix plus a lowercase, time-sortable ULID (`mem_01jdq…`).
//!
//! Ids come from one process-wide monotonic generator, so two ids made in the same
//! millisecond still sort in creation order; list paging relies on that for ties.

use std::sync::Mutex;

use ulid::{Generator, Ulid};

/// Prefix of memory ids.
pub const MEMORY_PREFIX: &str = "mem";
/// Prefix of memory-context ids.
pub const CONTEXT_PREFIX: &str = "mctx";
/// Prefix of user ids.
pub const USER_PREFIX: &str = "usr";
/// Prefix of organization ids.
pub const ORG_PREFIX: &str = "org";
/// Prefix of proposal ids.
pub const PROPOSAL_PREFIX: &str = "prop";
/// Prefix of memory revision ids.
pub const REVISION_PREFIX: &str = "mrev";
/// Prefix of token ids (the row id, never the secret).
pub const TOKEN_PREFIX: &str = "tok";

static GENERATOR: Mutex<Option<Generator>> = Mutex::new(None);

/// Makes a new id `"{prefix}_{ulid}"` stamped with the given time (ms since the epoch).
pub fn new_id_at(prefix: &str, unix_ms: i64) -> String {
    let mut guard = GENERATOR.lock().unwrap_or_else(|poison| poison.into_inner());
    let generator = guard.get_or_insert_with(Generator::new);
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_millis(unix_ms.max(0) as u64);
    // The monotonic generator only fails when 80 random bits overflow within one
    // millisecond; a fresh random ULID is then still unique, just not ordered.
    let ulid = generator.generate_from_datetime(when).unwrap_or_else(|_| Ulid::from_datetime(when));
    format!("{prefix}_{}", ulid.to_string().to_ascii_lowercase())
}

/// Makes a new id stamped with the current time.
pub fn new_id(prefix: &str) -> String {
    new_id_at(prefix, chrono::Utc::now().timestamp_millis())
}

/// True when `id` is `"{prefix}_"` followed by a canonical lowercase ULID.
pub fn is_valid(prefix: &str, id: &str) -> bool {
    let Some(rest) = id.strip_prefix(prefix).and_then(|r| r.strip_prefix('_')) else {
        return false;
    };
    // Canonical form only: decoding and re-encoding must give back the same text.
    rest.len() == 26
        && rest.bytes().all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
        && Ulid::from_string(rest).is_ok_and(|u| u.to_string().eq_ignore_ascii_case(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_prefixed_valid_and_sorted_within_one_millisecond() {
        let ids: Vec<String> = (0..1000).map(|_| new_id_at(MEMORY_PREFIX, 1_700_000_000_000)).collect();
        assert!(ids.iter().all(|id| is_valid(MEMORY_PREFIX, id)), "{:?}", &ids[..2]);
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
        assert!(new_id_at(MEMORY_PREFIX, 1_700_000_000_001) > ids[999]);
    }

    #[test]
    fn malformed_ids_are_rejected() {
        let good = new_id(MEMORY_PREFIX);
        assert!(is_valid(MEMORY_PREFIX, &good));
        for bad in ["", "mem_", "mem", "mctx_01jdq0000000000000000000", &good.to_uppercase(), &good[..good.len() - 1],
            &format!("{good}0"), "mem_zzzzzzzzzzzzzzzzzzzzzzzzzz", "mem_01jdq00000000000000000000!", "mem_../../etc"] {
            assert!(!is_valid(MEMORY_PREFIX, bad), "accepted {bad}");
        }
    }
}
