//! Numbers the session files are stamped with: a generation that tells one made file from
//! another (an index's, an archive's id), and the time in milliseconds. Below the index
//! and the archive, which both stamp their files.

/// A number that tells one built file from another (time and process: two made by the
/// same process in the same nanosecond are not a concern).
pub(crate) fn new_generation() -> i64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64);
    nanos ^ (i64::from(std::process::id()) << 48)
}

/// Now, in ms since the epoch.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}
