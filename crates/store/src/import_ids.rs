//! Which ids an imported row is stored under. A line keeps its ids where they are free,
//! so an export imported into an empty bank exports the same. An id another row has
//! cannot be kept (ids are keys of the whole service), and refusing the line (the
//! `id_in_use` of before) told the importer that someone has it and lost the line; so
//! the row is imported like any new one, under an id of its own, and the import report
//! names the new memory id. That the id changed still shows that the line's id was
//! taken, never by whom or with what: hiding even that would need ids unique per
//! person instead of per service.
//!
//! That id is [`import_id`]: the same time, and a random part derived from the caller
//! and the original id. The same file imported again by the same person therefore
//! finds what the first import made, and skips (or overwrites) it instead of making a
//! second copy; nobody else's import leads to it. Only if that id is taken too (by
//! someone who chose it on purpose) does the row get a fresh random one.
//!
//! The engines ask the database who has which id inside the import's transaction and
//! pass the answers here, so both decide the same way.

use std::collections::{HashMap, HashSet};

use memory_bank_contract::ids::{self, MEMORY_PREFIX};
use memory_bank_contract::transfer::ExportedMemory;
use sha2::{Digest, Sha256};
use ulid::Ulid;

/// The id `user_id`'s copy of the row `original` gets when `original` is taken: the
/// same prefix and time, a random part derived from both.
pub fn import_id(user_id: &str, original: &str) -> String {
    let (prefix, ulid) = original.split_once('_').unwrap_or((MEMORY_PREFIX, original));
    let ms = Ulid::from_string(ulid).map(|u| u.timestamp_ms()).unwrap_or(0);
    let digest = Sha256::new()
        .chain_update(b"memory-bank import id\0")
        .chain_update(user_id.as_bytes())
        .chain_update(b"\0")
        .chain_update(original.as_bytes())
        .finalize();
    let mut first = [0u8; 16];
    first.copy_from_slice(&digest[..16]);
    // A ULID's random part is 80 bits.
    let random = u128::from_be_bytes(first) >> 48;
    format!("{prefix}_{}", Ulid::from_parts(ms, random).to_string().to_ascii_lowercase())
}

/// Where an imported row's memory goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportTarget {
    /// The memory's id in the bank.
    pub id: String,
    /// True when the caller has a memory with that id already (skip or overwrite it).
    pub exists: bool,
}

/// The memory id for `row`, given the owner of each of `row.id` and
/// `import_id(user_id, row.id)` that has one (`owners`: `(id, user_id)` pairs).
pub fn target(user_id: &str, row: &ExportedMemory, owners: &[(String, String)]) -> ImportTarget {
    let derived = import_id(user_id, &row.id);
    let owner = |id: &str| owners.iter().find(|(of, _)| of == id).map(|(_, owner)| owner.as_str());
    let target = |id: &str, exists| ImportTarget { id: id.to_owned(), exists };
    match (owner(&row.id), owner(&derived)) {
        (Some(owner), _) if owner == user_id => target(&row.id, true),
        (_, Some(owner)) if owner == user_id => target(&derived, true),
        (None, _) => target(&row.id, false),
        (Some(_), None) => target(&derived, false),
        (Some(_), Some(_)) => target(&ids::new_id_at(MEMORY_PREFIX, row.created_at.unix_ms()), false),
    }
}

/// The ids to look up for [`target`]: the row's own and its derived one.
pub fn candidate_ids(user_id: &str, row: &ExportedMemory) -> [String; 2] {
    [row.id.clone(), import_id(user_id, &row.id)]
}

/// The row's context and revision ids (their prefixes tell them apart).
pub fn row_ids(row: &ExportedMemory) -> Vec<String> {
    row.contexts.iter().map(|c| c.id.clone()).chain(row.revisions.iter().map(|r| r.revision.id.clone())).collect()
}

/// The derived id of each context or revision id in `taken`, to look up in turn.
pub fn alternatives(user_id: &str, taken: &HashSet<String>) -> HashMap<String, String> {
    taken.iter().map(|id| (id.clone(), import_id(user_id, id))).collect()
}

/// The new id of each taken context or revision id: its derived one, or a fresh random
/// one where that is `still_taken` too.
pub fn renames(alternatives: HashMap<String, String>, still_taken: &HashSet<String>, at_ms: i64) -> HashMap<String, String> {
    alternatives
        .into_iter()
        .map(|(original, derived)| {
            if still_taken.contains(&derived) {
                let fresh = ids::new_id_at(original.split_once('_').map_or(MEMORY_PREFIX, |(prefix, _)| prefix), at_ms);
                (original, fresh)
            } else {
                (original, derived)
            }
        })
        .collect()
}

/// `row` as it is stored: under memory id `id`, its contexts and revisions renamed as
/// `renames` says and its revisions naming `id`.
pub fn stored_as(row: &ExportedMemory, id: &str, renames: &HashMap<String, String>) -> ExportedMemory {
    let renamed = |old: &str| renames.get(old).cloned().unwrap_or_else(|| old.to_owned());
    let mut stored = row.clone();
    stored.id = id.to_owned();
    for context in &mut stored.contexts {
        context.id = renamed(&context.id);
    }
    for revision in &mut stored.revisions {
        revision.revision.id = renamed(&revision.revision.id);
        revision.revision.memory_id = id.to_owned();
    }
    stored
}

#[cfg(test)]
mod tests {
    use super::*;
    use memory_bank_contract::ids::{is_valid, CONTEXT_PREFIX};

    const ROW: &str = r#"{"id":"mem_01jdq00000000000000000001a","content":"x","tags":null,"createdAt":"2026-11-01T10:00:00.000Z","updatedAt":"2026-11-01T10:00:00.000Z","contexts":[],"revisions":[]}"#;

    #[test]
    fn a_derived_id_is_valid_keeps_the_time_and_depends_on_the_person() {
        let original = "mem_01jdq00000000000000000001a";
        let mine = import_id("usr_a", original);
        assert!(is_valid(MEMORY_PREFIX, &mine), "{mine}");
        assert_eq!(&mine[..14], &original[..14], "the same millisecond");
        assert_eq!(import_id("usr_a", original), mine, "the same every time");
        assert_ne!(import_id("usr_b", original), mine);
        assert!(is_valid(CONTEXT_PREFIX, &import_id("usr_a", "mctx_01jdq00000000000000000001a")));
    }

    #[test]
    fn the_target_is_the_callers_copy_then_the_free_id_then_the_derived_one() {
        let row: ExportedMemory = serde_json::from_str(ROW).unwrap();
        let derived = import_id("me", &row.id);
        let has = |pairs: &[(&str, &str)]| pairs.iter().map(|(id, who)| (id.to_string(), who.to_string())).collect::<Vec<_>>();
        assert_eq!(target("me", &row, &[]), ImportTarget { id: row.id.clone(), exists: false });
        assert_eq!(target("me", &row, &has(&[(&row.id, "me")])), ImportTarget { id: row.id.clone(), exists: true });
        assert_eq!(target("me", &row, &has(&[(&row.id, "them")])), ImportTarget { id: derived.clone(), exists: false });
        assert_eq!(target("me", &row, &has(&[(&row.id, "them"), (&derived, "me")])), ImportTarget { id: derived.clone(), exists: true });
        assert_eq!(target("me", &row, &has(&[(&derived, "me")])), ImportTarget { id: derived.clone(), exists: true });
        let squatted = target("me", &row, &has(&[(&row.id, "them"), (&derived, "others")]));
        assert!(!squatted.exists && squatted.id != row.id && squatted.id != derived && is_valid(MEMORY_PREFIX, &squatted.id));
    }
}
