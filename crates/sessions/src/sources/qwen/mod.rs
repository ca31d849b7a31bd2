//! Qwen Code (a fork of Gemini CLI): `~/.qwen` (`%USERPROFILE%\.qwen` on Windows, the same
//! on macOS and Linux). `$QWEN_HOME` replaces that folder (`~` expanded), and
//! `$QWEN_RUNTIME_DIR` moves where sessions are written (both are read when set). The
//! setting `advanced.runtimeOutputDir` moves them too; such a folder is one the person adds.
//! Learnt from the bundle of `@qwen-code/qwen-code` 0.24.4 (`config/storage.ts`,
//! `services/chatRecordingService.ts`, `services/sessionService.ts`,
//! `utils/transcript-records.ts`, `cli/src/ui/utils/resumeHistoryUtils.ts`), 0.5.0 and 0.1.3,
//! and from files the real CLI wrote against a loopback model stub.
//!
//! Two layouts, both read:
//!
//! - Current (0.5.0 … 0.24.4; the change came after 0.1.3, the releases between were not
//!   at hand to check): `projects/<sanitized cwd>/chats/<sessionId>.jsonl`
//!   (every character of the project path that is not ASCII alphanumeric becomes `-`,
//!   lower-cased on Windows; lossy, so never decoded), and sessions the person archived in
//!   `chats/archive/`. Append-only JSON Lines, one record per line (`records.rs`). Beside
//!   them, sidecars that are not sessions (`<id>.runtime.json`, `.ledger.jsonl`,
//!   `.worktree.json`, `.pr.json`); only `<uuid>.jsonl` names are sessions, as in the
//!   CLI's own listing. Sub-agent transcripts (`projects/<p>/subagents/<sessionId>/
//!   agent-<id>.jsonl`) belong to the session that ran the agent, whose `agent` tool call
//!   is shown there; they are not sessions of their own and are not read.
//! - Up to 0.1.3 at least: Gemini CLI's old layout, `tmp/<sha256(project path)>/chats/
//!   session-<YYYY-MM-DDTHH-MM>-<id8>.json`, one pretty JSON document rewritten on every
//!   change (`legacy.rs`). Its workspace is not in the file: the folder name is matched
//!   against the hashes of the project paths the newer sessions record (`cwd`), else it
//!   stays unknown. `logs.json` (prompts only) and `/chat save` checkpoints are not
//!   sessions.
//!
//! A root is `~/.qwen` (or a folder laid out like it), its `projects` or `tmp` folder, or one
//! project folder (holding `chats`).

mod legacy;
mod records;

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::jsonl;
use crate::model::Source;
use crate::source::{Env, LineParser, Problem, Root, SourceReader, Unit, UnitKind, WholeSession};

/// Reads Qwen Code sessions.
pub struct QwenCode;

impl SourceReader for QwenCode {
    fn source(&self) -> Source {
        Source::QwenCode
    }

    fn default_roots(&self, env: &Env) -> Vec<PathBuf> {
        let mut roots = Vec::new();
        if let Some(dir) = env.var("QWEN_RUNTIME_DIR") {
            roots.extend(expand_home(dir, env));
        }
        let home = match env.var("QWEN_HOME") {
            Some(dir) => expand_home(dir, env),
            None => env.home.as_ref().map(|h| h.join(".qwen")),
        };
        roots.extend(home);
        roots.dedup();
        roots
    }

    fn discover(&self, root: &Path, units: &mut Vec<Unit>, problems: &mut Vec<Problem>) {
        let confined = Root::new(root);
        // `~/.qwen`, or its `projects` or `tmp` folder, or one project folder.
        let mut projects: Vec<PathBuf> = Vec::new();
        if root.join("chats").is_dir() {
            projects.push(root.to_path_buf());
        } else {
            let name = root.file_name().and_then(|n| n.to_str());
            let parents = match name {
                Some("projects" | "tmp") => vec![root.to_path_buf()],
                _ => vec![root.join("projects"), root.join("tmp")],
            };
            for parent in parents {
                let mut found: Vec<PathBuf> =
                    confined.read_dir(&parent, problems).into_iter().filter(|e| e.is_dir).map(|e| e.path).collect();
                found.sort();
                projects.extend(found);
            }
        }

        let mut legacy: Vec<(String, Unit)> = Vec::new();
        // A few session files per project, whose first record names the project path.
        let mut samples: Vec<PathBuf> = Vec::new();
        for project in &projects {
            let chats = project.join("chats");
            let mut current: Vec<Unit> = Vec::new();
            for dir in [chats.clone(), chats.join("archive")] {
                for entry in confined.read_dir(&dir, problems) {
                    let Some(name) = entry.name().filter(|_| entry.is_file) else { continue };
                    if let Some(id) = session_file_id(name) {
                        let mut unit = Unit::new(Source::QwenCode, entry.path.clone(), UnitKind::Jsonl);
                        unit.session_hint = Some(id.to_string());
                        current.push(unit);
                    } else if dir == chats && name.starts_with("session-") && name.ends_with(".json") {
                        let slug = project.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                        legacy.push((slug, Unit::new(Source::QwenCode, entry.path.clone(), UnitKind::Whole)));
                    }
                }
            }
            current.sort_by(|a, b| a.path.cmp(&b.path));
            samples.extend(current.iter().take(3).map(|u| u.path.clone()));
            units.extend(current);
        }

        if legacy.is_empty() {
            return;
        }
        let mut known_paths: Vec<String> = samples.iter().filter_map(|p| first_cwd(&confined, p, problems)).collect();
        known_paths.dedup();
        let by_hash: HashMap<String, String> = known_paths
            .iter()
            .flat_map(|p| [(project_hash(p), p.clone()), (project_hash(&p.to_lowercase()), p.clone())])
            .collect();
        legacy.sort_by(|a, b| a.1.path.cmp(&b.1.path));
        for (slug, mut unit) in legacy {
            unit.workspace_hint = by_hash.get(&slug.to_ascii_lowercase()).cloned();
            units.push(unit);
        }
    }

    fn line_parser(&self, _unit: &Unit) -> Box<dyn LineParser> {
        Box::new(records::Parser::default())
    }

    fn parse_whole(&self, unit: &Unit) -> std::io::Result<Vec<WholeSession>> {
        let bytes = std::fs::read(&unit.path)?;
        let events = legacy::parse(&bytes).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidData, "not a Qwen Code session document")
        })?;
        Ok(vec![WholeSession { key: String::new(), events }])
    }
}

/// `dir` with a leading `~` as the home folder, the way Qwen Code reads its variables.
fn expand_home(dir: &str, env: &Env) -> Option<PathBuf> {
    let rest = match dir {
        "~" => "",
        _ => match dir.strip_prefix("~/").or_else(|| dir.strip_prefix("~\\")) {
            Some(rest) => rest,
            None => return Some(PathBuf::from(dir)),
        },
    };
    let mut path = env.home.clone()?;
    path.extend(rest.split(['/', '\\']).filter(|s| !s.is_empty()));
    Some(path)
}

/// The session id of a session file's name: `<id>.jsonl` where the id is 32 to 36 hex
/// digits and dashes (the CLI's own pattern), so `<id>.ledger.jsonl` and the like are not.
fn session_file_id(name: &str) -> Option<&str> {
    let id = name.strip_suffix(".jsonl")?;
    let ok = (32..=36).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
    ok.then_some(id)
}

/// The most of a file read to find its first record's `cwd`: a first record is a prompt
/// or a small system record; one longer than this (a pasted file) is skipped.
const MAX_FIRST_LINE_BYTES: u64 = 256 << 10;

/// The `cwd` of a session file's first record, if it is a file inside the root.
fn first_cwd(root: &Root, path: &Path, problems: &mut Vec<Problem>) -> Option<String> {
    if !root.file(path, problems) {
        return None;
    }
    let mut head = Vec::new();
    std::fs::File::open(path).ok()?.take(MAX_FIRST_LINE_BYTES).read_to_end(&mut head).ok()?;
    let end = head.iter().position(|&b| b == b'\n')?;
    let value = jsonl::parse_line(&head[..end])?;
    let cwd = value.get("cwd")?.as_str()?.trim();
    (!cwd.is_empty()).then(|| cwd.to_string())
}

/// The legacy project folder name: the hex SHA-256 of the project path.
fn project_hash(path: &str) -> String {
    Sha256::digest(path.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_hash_is_hex_sha256() {
        assert_eq!(project_hash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn session_file_names() {
        assert_eq!(session_file_id("d1510b3d-1640-4f06-9dd5-e3c46d383542.jsonl"), Some("d1510b3d-1640-4f06-9dd5-e3c46d383542"));
        assert_eq!(session_file_id("d1510b3d16404f069dd5e3c46d383542.jsonl"), Some("d1510b3d16404f069dd5e3c46d383542"));
        assert_eq!(session_file_id("d1510b3d-1640-4f06-9dd5-e3c46d383542.ledger.jsonl"), None);
        assert_eq!(session_file_id("d1510b3d-1640-4f06-9dd5-e3c46d383542.runtime.json"), None);
        assert_eq!(session_file_id("notes.jsonl"), None);
    }
}
