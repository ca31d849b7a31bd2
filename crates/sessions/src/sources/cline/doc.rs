//! Reading the extensions' JSON documents as their own readers would, but without losing
//! what a document cut short still holds: the complete leading elements of an array are
//! kept (an older version writing in place, or a crash mid-write, leaves the rest for the
//! next read); invalid UTF-8 becomes U+FFFD and lone surrogate escapes `\ud800` too (the
//! extensions are JavaScript, whose `JSON.parse` accepts them); an element of the wrong
//! shape is dropped alone. Side files are only read when they are plain files (a task
//! folder was found inside its root, but a link in it could lead anywhere).

use std::collections::HashMap;
use std::fmt;
use std::io::{BufReader, Read};
use std::path::Path;

use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer, Error as _, SeqAccess, Visitor};
use serde::Deserialize;

use crate::jsonl::{parse_line_as, repair_surrogates};
use crate::source::{Problem, Root};
use crate::sources::lenient::{Obj, Parts, Scalar};

use super::HistoryEntry;

/// The elements of a JSON array document.
pub(super) struct Elements<T> {
    /// The complete elements, in order.
    pub(super) items: Vec<T>,
    /// Whether the document was a whole JSON value (not cut short, not garbage).
    pub(super) complete: bool,
}

/// The elements of the array in `bytes`, as many as are complete.
pub(super) fn array_elements<T: DeserializeOwned>(bytes: &[u8]) -> Elements<T> {
    let strict = collect(&mut serde_json::Deserializer::from_slice(bytes));
    if strict.complete {
        return strict;
    }
    // Slow path, only for a document a strict parser rejected: invalid UTF-8 or a lone
    // surrogate may stop it where the rest is fine.
    let text = String::from_utf8_lossy(bytes);
    let lenient = collect(&mut serde_json::Deserializer::from_str(&repair_surrogates(&text)));
    if lenient.items.len() >= strict.items.len() { lenient } else { strict }
}

fn collect<'de, T: DeserializeOwned, R: serde_json::de::Read<'de>>(de: &mut serde_json::Deserializer<R>) -> Elements<T> {
    let mut items = Vec::new();
    let complete = Collect(&mut items).deserialize(&mut *de).and_then(|()| de.end()).is_ok();
    Elements { items, complete }
}

/// Pushes each element of an array as soon as it is complete, so that an error later in
/// the document leaves those before it. Anything but an array is an error.
struct Collect<'a, T>(&'a mut Vec<T>);

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for Collect<'_, T> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for Collect<'_, T> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(item) = seq.next_element::<T>()? {
            self.0.push(item);
        }
        Ok(())
    }
}

/// Takes the first element of an array and stops reading there.
struct First<'a, T>(&'a mut Option<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for First<'_, T> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        *self.0 = seq.next_element::<T>()?;
        // An error ends the parse without reading (or allocating) the rest of the file.
        Err(A::Error::custom("read no further"))
    }
}

/// The longest side file read whole (a history entry is well under a kilobyte).
const MAX_SIDE_FILE_BYTES: u64 = 1 << 20;

fn is_plain_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

/// A small JSON object file (Roo Code's `history_item.json`); `None` when it is missing,
/// a link, too big, or not (yet) an object.
pub(super) fn read_object<T: DeserializeOwned>(path: &Path) -> Option<T> {
    if !is_plain_file(path) {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path).ok()?.take(MAX_SIDE_FILE_BYTES + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 > MAX_SIDE_FILE_BYTES {
        return None;
    }
    parse_line_as::<Obj<T>>(&bytes)?.0
}

/// Cline's `state/taskHistory.json`: the workspace of each task id that names one. A
/// missing file is empty; an unreadable one is a problem; one cut short gives the entries
/// before the cut.
pub(super) fn task_history(root: &Root, path: &Path, problems: &mut Vec<Problem>) -> HashMap<String, String> {
    if !root.file(path, problems) {
        return HashMap::new();
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            problems.push(Problem { path: path.to_path_buf(), message: e.to_string() });
            return HashMap::new();
        }
    };
    array_elements::<Obj<HistoryEntry>>(&bytes)
        .items
        .into_iter()
        .filter_map(|entry| {
            let mut entry = entry.0?;
            let id = std::mem::take(&mut entry.id).string()?;
            Some((id, entry.workspace()?))
        })
        .collect()
}

/// One message of `api_conversation_history.json`, as far as the workspace needs it.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ApiMessage {
    role: Scalar,
    content: Parts,
}

/// The workspace the first request's environment details name, read from the start of
/// `api_conversation_history.json` only.
pub(super) fn workspace_from_api_history(path: &Path) -> Option<String> {
    if !is_plain_file(path) {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let mut first: Option<Obj<ApiMessage>> = None;
    let mut de = serde_json::Deserializer::from_reader(BufReader::new(file));
    let _ = de.deserialize_seq(First(&mut first));
    let message = first?.0?;
    if message.role.as_str() != Some("user") {
        return None;
    }
    let workspace = message.content.texts().find_map(workspace_in_details);
    workspace
}

/// The path in `# Current Working Directory (<path>) Files` (Cline) or `# Current
/// Workspace Directory (<path>) Files` (Roo Code). Cline's multi-root form names the
/// primary folder only (`(Primary: <name>)`), which is not a path.
fn workspace_in_details(text: &str) -> Option<String> {
    const HEADINGS: [&str; 2] = ["# Current Working Directory (", "# Current Workspace Directory ("];
    HEADINGS.iter().find_map(|heading| {
        let start = text.find(heading)? + heading.len();
        let rest = &text[start..];
        let path = rest[..rest.find(") Files")?].trim();
        (!path.is_empty() && !path.contains('\n') && !path.starts_with("Primary:")).then(|| path.to_owned())
    })
}

/// Changes when a side file of the task folder `dir` is written (its size and mtime) or
/// the workspace found for it outside the folder changes. FNV-1a, stable across builds.
pub(super) fn fingerprint(dir: &Path, files: &[&str], workspace: Option<&str>) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |bytes: &[u8]| {
        for b in bytes {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for name in files {
        let (len, mtime) = match std::fs::symlink_metadata(dir.join(name)) {
            Ok(meta) => {
                let mtime = meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos() as u64);
                (meta.len(), mtime)
            }
            Err(_) => (u64::MAX, 0),
        };
        mix(&len.to_le_bytes());
        mix(&mtime.to_le_bytes());
    }
    mix(workspace.unwrap_or("\0").as_bytes());
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(json: &[u8]) -> (Vec<Option<f64>>, bool) {
        let e = array_elements::<Scalar>(json);
        let items = e.items.into_iter().map(|s| if let Scalar::Num(n) = s { Some(n) } else { None }).collect();
        (items, e.complete)
    }

    #[test]
    fn a_document_cut_short_keeps_its_complete_elements() {
        assert_eq!(numbers(b"[1, 2, 3]\n"), (vec![Some(1.0), Some(2.0), Some(3.0)], true));
        assert_eq!(numbers(b"[1, 2, 3"), (vec![Some(1.0), Some(2.0), Some(3.0)], false));
        assert_eq!(numbers(b"[1, 2, {\"a\": "), (vec![Some(1.0), Some(2.0)], false));
        assert_eq!(numbers(b"[1, \"caf\xe9\", 3]"), (vec![Some(1.0), None, Some(3.0)], true));
        assert_eq!(numbers(br#"[1, "\ud800", 3]"#), (vec![Some(1.0), None, Some(3.0)], true));
        assert_eq!(numbers(b""), (vec![], false));
        assert_eq!(numbers(b"{\"not\": \"an array\"}"), (vec![], false));
        assert_eq!(numbers(b"[1] trailing"), (vec![Some(1.0)], false));
    }

    #[test]
    fn environment_details_name_the_workspace() {
        let cline = "<environment_details>\n# VSCode Visible Files\na.rs\n\n# Current Working Directory (/home/ana/atlas) Files\nsrc/\n</environment_details>";
        assert_eq!(workspace_in_details(cline).as_deref(), Some("/home/ana/atlas"));
        let roo = "# Current Workspace Directory (C:/Users/ana/app (old)) Files\n";
        assert_eq!(workspace_in_details(roo).as_deref(), Some("C:/Users/ana/app (old)"));
        assert_eq!(workspace_in_details("# Current Working Directory (Primary: atlas) Files"), None);
        assert_eq!(workspace_in_details("no details"), None);
    }
}
