//! The JSON tree of opencode ≤ 1.1: `storage/session/<projectID>/<sessionID>.json`,
//! `storage/message/<sessionID>/<messageID>.json`, `storage/part/<messageID>/<partID>.json`.
//!
//! One unit per session file. Its fingerprint covers the session's message folder and the
//! part folders of its messages (count, sizes and mtimes), so a new or rewritten message or
//! part reads the session again. Legacy writes were not atomic: a message or part file that
//! is not valid JSON is skipped.

use std::path::Path;

use crate::jsonl::parse_line_as;
use crate::model::Source;
use crate::source::{Entry, Problem, Root, Unit, UnitKind, WholeSession};
use crate::sources::sqlite::{mtime_ns, Fingerprint};
use crate::text::time_value;

use super::{
    session_events, v1_message, MessageData, Msg, PartData, PartsSummary,
    SessionFacts,
};

/// Finds the session files under `storage`, a folder under `root`.
pub(super) fn discover(root: &Root, storage: &Path, units: &mut Vec<Unit>, problems: &mut Vec<Problem>) {
    let mut projects: Vec<_> = root
        .read_dir(&storage.join("session"), problems)
        .into_iter()
        .filter(|e| e.is_dir)
        .map(|e| e.path)
        .collect();
    projects.sort();
    for project in projects {
        let mut files: Vec<_> = root
            .read_dir(&project, problems)
            .into_iter()
            .filter(|e| e.is_file && e.path.extension().is_some_and(|e| e == "json"))
            .map(|e| e.path)
            .collect();
        files.sort();
        for path in files {
            let Some(session_id) = path.file_stem().and_then(|s| s.to_str()).map(str::to_owned)
            else {
                continue;
            };
            let mut unit = Unit::new(Source::Opencode, path, UnitKind::Whole);
            unit.fingerprint = fingerprint(root, storage, &session_id);
            unit.session_hint = Some(session_id);
            units.push(unit);
        }
    }
}

/// The JSON files of a folder under `root`, sorted by name (ids sort by creation within a
/// folder). The folder is named by ids read from files, so `root` also keeps a `..` in
/// one from leading out.
fn json_files(root: &Root, dir: &Path) -> Vec<Entry> {
    let mut ignored = Vec::new();
    let mut files: Vec<_> = root
        .read_dir(dir, &mut ignored)
        .into_iter()
        .filter(|e| e.is_file && e.name().is_some_and(|n| n.ends_with(".json")))
        .collect();
    files.sort_by(|a, b| a.name.cmp(&b.name));
    files
}

fn stem(entry: &Entry) -> String {
    let name = entry.name.to_string_lossy();
    name.strip_suffix(".json").unwrap_or(&name).to_owned()
}

/// Changes whenever a message or part file of the session is added, removed or rewritten.
fn fingerprint(root: &Root, storage: &Path, session_id: &str) -> u64 {
    let mut fp = Fingerprint::new();
    let fold = |dir: &Path, fp: &mut Fingerprint| -> Vec<String> {
        let files = json_files(root, dir);
        let (mut size, mut max_mtime, mut sum_mtime) = (0u64, 0u64, 0u64);
        let mut stems = Vec::with_capacity(files.len());
        for file in &files {
            if let Ok(meta) = std::fs::metadata(&file.path) {
                let m = mtime_ns(&meta);
                size = size.wrapping_add(meta.len());
                max_mtime = max_mtime.max(m);
                sum_mtime = sum_mtime.wrapping_add(m);
            }
            stems.push(stem(file));
        }
        for n in [files.len() as u64, size, max_mtime, sum_mtime] {
            fp.mix(n);
        }
        stems
    };
    let messages = fold(&storage.join("message").join(session_id), &mut fp);
    for message_id in messages {
        fold(&storage.join("part").join(&message_id), &mut fp);
    }
    fp.0
}

/// Reads one session file with its messages and parts. A session file that is not JSON
/// (half-written) yields no session; it is read again when it changes.
pub(super) fn read(path: &Path) -> std::io::Result<Vec<WholeSession>> {
    let bytes = std::fs::read(path)?;
    let Some(session) = parse_line_as::<serde_json::Value>(&bytes).filter(|v| v.is_object()) else {
        return Ok(Vec::new());
    };
    let str_field =
        |v: &serde_json::Value, k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_owned);
    let file_stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let time = session.get("time");
    let facts = SessionFacts {
        id: str_field(&session, "id")
            .filter(|s| !s.is_empty())
            .unwrap_or(file_stem),
        title: str_field(&session, "title"),
        directory: str_field(&session, "directory"),
        parent_id: str_field(&session, "parentID"),
        created: time.and_then(|t| t.get("created")).and_then(time_value),
        updated: time.and_then(|t| t.get("updated")).and_then(time_value),
    };
    let Some(storage) = path.parent().and_then(Path::parent).and_then(Path::parent) else {
        return Ok(vec![session_events(facts, Vec::new())]);
    };

    // Read apart from discovery, so confined to the storage folder on its own.
    let root = Root::new(storage);
    let mut messages: Vec<Msg> = Vec::new();
    for file in json_files(&root, &storage.join("message").join(&facts.id)) {
        let Ok(bytes) = std::fs::read(&file.path) else {
            continue;
        };
        let Some(data) = parse_line_as::<MessageData>(&bytes) else {
            continue;
        };
        let id = data
            .id
            .clone()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| stem(&file));
        let mut parts = PartsSummary::default();
        for part_file in json_files(&root, &storage.join("part").join(&id)) {
            let Ok(bytes) = std::fs::read(&part_file.path) else {
                continue;
            };
            if let Some(part) = parse_line_as::<PartData>(&bytes) {
                parts.add(&part);
            }
        }
        messages.extend(v1_message(id, &data, None, Some(&parts)));
    }
    Ok(vec![session_events(facts, messages)])
}
