//! The Amp reader on threads the real CLI wrote (`@sourcegraph/amp` 0.0.1773432280, the
//! last release that kept threads on disk, in execute mode with no account against a
//! loopback stub of Amp's server and model API, which titles every thread "Deploy notes"
//! and answers "Stub model says: use the deploy script."; paths changed to
//! `/home/ana/projects/atlas`): a plain and a continued thread, a `Bash` tool call, a
//! `Task` sub-agent, a failed and a working `handoff` with the thread it started.
//! Generated threads cover the rest: compaction summaries, the person's own shell
//! commands, hook messages, sub-threads, archived threads, images, Windows workspaces,
//! documents cut short, the editor extension's old folder, roots and links.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::testing::{self as kit, read_unit, ParsedSession, SourceReader};
use memory_bank_sessions::{Env, ListArgs, ReadArgs, Role, Source};
use serde_json::{json, Value};

const ATLAS: &str = "/home/ana/projects/atlas";
const STUB: &str = "Stub model says: use the deploy script.";

fn amp() -> &'static dyn SourceReader {
    kit::reader(Source::Amp)
}

/// A home holding the real threads at `~/.local/share/amp/threads`.
fn real_home() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    kit::copy_fixture("amp/threads", &home.join(".local/share/amp/threads"));
    (dir, home)
}

/// Every thread under `root`, read without an index, by id.
fn read_root(root: &Path) -> HashMap<String, ParsedSession> {
    let (units, problems) = kit::discover(amp(), root);
    assert!(problems.is_empty(), "{problems:?}");
    let mut out = HashMap::new();
    for unit in units {
        for session in read_unit(amp(), &unit).unwrap() {
            let id = session.session_id.clone().unwrap();
            assert!(out.insert(id.clone(), session).is_none(), "{id} read twice");
        }
    }
    out
}

fn texts(s: &ParsedSession) -> Vec<(String, Role, String)> {
    s.messages.iter().map(|m| (m.message_id.clone(), m.role, m.text.clone())).collect()
}

fn tools(s: &ParsedSession) -> Vec<(&str, i64)> {
    s.tool_calls.iter().map(|c| (c.name.as_str(), c.after)).collect()
}

/// `(message id, role, text)` as [`texts`] gives them.
fn said(messages: &[(&str, Role, &str)]) -> Vec<(String, Role, String)> {
    messages.iter().map(|(id, role, text)| (id.to_string(), *role, text.to_string())).collect()
}

fn write_thread(dir: &Path, thread: &Value) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(format!("{}.json", thread["id"].as_str().unwrap()));
    std::fs::write(&path, serde_json::to_string_pretty(thread).unwrap()).unwrap();
    path
}

fn user(id: u64, text: &str, sent_at: i64) -> Value {
    json!({"role": "user", "messageId": id, "content": [{"type": "text", "text": text}], "userState": {"currentlyVisibleFiles": []},
        "agentMode": "smart", "meta": {"sentAt": sent_at}})
}

fn assistant(id: u64, content: Value, at: &str) -> Value {
    json!({"role": "assistant", "messageId": id, "content": content, "state": {"type": "complete", "stopReason": "end_turn"},
        "usage": {"model": "claude-opus-4-6", "inputTokens": 100, "outputTokens": 10, "timestamp": at}})
}

#[test]
fn real_threads_read_as_amp_shows_them() {
    let (_dir, home) = real_home();
    let threads = read_root(&home.join(".local/share/amp"));
    assert_eq!(threads.len(), 6);

    let t = &threads["T-01a247ea-9d0a-77d7-8757-b232006c0564"];
    assert_eq!(
        texts(t),
        said(&[("0", Role::User, "hello there"), ("1", Role::Assistant, STUB), ("2", Role::User, "and a second question"), ("3", Role::Assistant, STUB)])
    );
    assert_eq!(t.title_candidate.as_ref().map(|(_, t)| t.as_str()), Some("Deploy notes"));
    assert_eq!(t.workspace.as_deref(), Some(ATLAS));
    assert_eq!(t.created, Some(1_796_502_887_695));
    assert_eq!(t.messages[0].timestamp, Some(1_796_502_887_710), "sentAt");
    assert_eq!(t.messages[3].timestamp, kit::ms("2026-12-05T20:35:55.018Z"), "usage.timestamp");
    assert_eq!(t.updated, kit::ms("2026-12-05T20:35:55.018Z"));
    assert!(!t.hidden);

    // A tool call after the text of its message; its result is no message.
    let t = &threads["T-01a247ea-efef-773c-a485-e7c27e7f7223"];
    assert_eq!(
        texts(t),
        said(&[("0", Role::User, "USE-TOOL THINK please list the files"), ("1", Role::Assistant, "Listing."), ("3", Role::Assistant, STUB)])
    );
    assert_eq!(tools(t), [("Bash", 1)]);

    // A `Task` sub-agent works inside its tool result.
    let t = &threads["T-01a247eb-0748-70c0-bee1-12dbde915af5"];
    assert_eq!(texts(t), said(&[("0", Role::User, "USE-TASK explore with a helper"), ("3", Role::Assistant, STUB)]));
    assert_eq!(tools(t), [("Task", 0)]);

    // A handoff, and the thread it started with the prompt drafted for it.
    assert_eq!(tools(&threads["T-01a247eb-5ae5-718a-a2dd-127715285ff8"]), [("handoff", 0)]);
    let child = &threads["T-01a247eb-5b47-75cd-a54f-9934476a2709"];
    assert!(child.messages[0].text.starts_with("Continuing work from thread T-01a247eb-5ae5-718a-a2dd-127715285ff8."));
    assert_eq!(child.messages.len(), 2);
    assert!(!child.hidden, "a handoff thread is a thread of its own");
}

#[test]
fn the_library_lists_real_threads_with_their_titles() {
    let (_dir, home) = real_home();
    let lib = kit::library(&home, None);
    let list = lib.list_sessions(ListArgs { source: Some("amp".into()), limit: Some(json!(200)), ..Default::default() }).unwrap();
    assert_eq!(list.total, 6);
    assert!(list.sessions.iter().all(|s| s.title == "Deploy notes" && s.workspace.as_deref() == Some(ATLAS)));
    let read = lib
        .read_transcript(ReadArgs { session_id: Some("T-01a247ea-9d0a-77d7-8757-b232006c0564".into()), ..Default::default() })
        .unwrap();
    assert_eq!(read.messages.iter().map(|m| m.message_id.as_str()).collect::<Vec<_>>(), ["0", "1", "2", "3"]);
}

#[test]
fn only_the_persons_and_the_agents_words_are_messages() {
    let dir = tempfile::tempdir().unwrap();
    let threads = dir.path().join("amp/threads");
    let at = "2026-02-01T10:00:05.000Z";
    write_thread(&threads, &json!({"v": 40, "id": "T-0c0ffee0-0000-4000-8000-000000000001", "created": 1_769_940_000_000_i64,
        "messages": [
            {"role": "user", "messageId": 0, "content": [{"type": "text", "text": "look at this screenshot"},
                {"type": "image", "source": {"type": "base64", "mediaType": "image/png", "data": "iVBORw0KGgo="}}],
             "fileMentions": {"files": [{"uri": "file:///c%3A/Users/ana/app/a.rs", "content": "fn main() {}"}]}, "meta": {"sentAt": 1_769_940_001_000_i64}},
            assistant(1, json!([{"type": "thinking", "thinking": "hmm", "signature": "s"}, {"type": "redacted_thinking", "data": "x"},
                {"type": "text", "text": "First part."}, {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {}},
                {"type": "text", "text": "Second part."}, {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "a.rs"}},
                {"type": "tool_use", "name": "Grep", "input": {}}]), at),
            {"role": "user", "messageId": 2, "content": [{"type": "tool_result", "toolUseID": "toolu_1", "run": {"status": "done", "result": "fn main() {}"}}]},
            {"role": "info", "messageId": 3, "content": [{"type": "manual_bash_invocation", "args": {"cmd": "cargo test"}, "hidden": false}]},
            {"role": "info", "messageId": 4, "content": [{"type": "summary", "summary": {"type": "message", "summary": "The thread so far: …"}}]},
            {"role": "user", "messageId": 5, "content": [{"type": "text", "text": "from a hook"}], "source": {"type": "hook", "hook": "h"}},
            assistant(6, json!([{"type": "text", "text": "a sub-agent's reply"}]), at),
            user(7, "  and now?  ", 1_769_940_009_000),
            assistant(8, json!([{"type": "text", "text": "Done."}]), "2026-02-01T10:00:10.000Z"),
        ],
        "env": {"initial": {"trees": [{"displayName": "app", "uri": "file:///c%3A/Users/ana/my%20app"}]}},
        "archived": true}));
    // The sub-agent's message carries the tool call it ran under.
    let path = threads.join("T-0c0ffee0-0000-4000-8000-000000000001.json");
    let mut thread: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    thread["messages"][6]["parentToolUseId"] = json!("toolu_task");
    std::fs::write(&path, thread.to_string()).unwrap();
    // A thread another one runs (not listed on its own).
    write_thread(&threads, &json!({"v": 3, "id": "T-0c0ffee0-0000-4000-8000-000000000002", "created": 1_769_940_000_000_i64,
        "mainThreadID": "T-0c0ffee0-0000-4000-8000-000000000001", "messages": [user(0, "sub-thread work", 1_769_940_002_000)]}));

    let read = read_root(&dir.path().join("amp"));
    let t = &read["T-0c0ffee0-0000-4000-8000-000000000001"];
    assert_eq!(
        texts(t),
        said(&[("0", Role::User, "look at this screenshot"), ("1", Role::Assistant, "First part.\n\nSecond part."),
            ("7", Role::User, "and now?"), ("8", Role::Assistant, "Done.")])
    );
    assert_eq!(tools(t), [("web_search", 1), ("Read", 1), ("Grep", 1)]);
    assert_eq!(t.tool_calls[2].key, "1#2");
    assert_eq!(t.workspace.as_deref(), Some("c:/Users/ana/my app"));
    assert_eq!(t.title_candidate, None);
    assert!(!t.hidden, "an archived thread is still listed");
    assert!(read["T-0c0ffee0-0000-4000-8000-000000000002"].hidden);

    let roots = memory_bank_sessions::Roots(vec![(Source::Amp, dir.path().join("amp"))]);
    let lib = memory_bank_sessions::Library::open(None, roots, None).unwrap();
    lib.refresh().unwrap();
    let list = lib.list_sessions(ListArgs::default()).unwrap();
    assert_eq!(list.sessions.len(), 1);
    assert_eq!(list.sessions[0].title, "look at this screenshot", "untitled: the first prompt");
}

#[test]
fn a_document_cut_short_keeps_what_was_read_before() {
    let (dir, home) = real_home();
    let threads = home.join(".local/share/amp/threads");
    let id = "T-01a247ea-9d0a-77d7-8757-b232006c0564";
    let path = threads.join(format!("{id}.json"));
    let whole = std::fs::read(&path).unwrap();
    let lib = kit::library(&home, Some(&dir.path().join("index.sqlite")));
    let count = |lib: &memory_bank_sessions::Library| {
        let list = lib.list_sessions(ListArgs { query: Some(id.into()), ..Default::default() }).unwrap();
        list.sessions.first().map(|s| s.message_count)
    };
    assert_eq!(count(&lib), Some(4));

    // Written in place and cut (not Amp's way, but a copy or a full disk does it).
    std::fs::write(&path, &whole[..whole.len() / 2]).unwrap();
    let report = lib.refresh().unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(count(&lib), Some(4), "kept as read before");

    // A temporary file beside it is never read; the renamed whole document is.
    std::fs::write(path.with_extension("json.amptmp"), &whole[..100]).unwrap();
    let mut thread: Value = serde_json::from_slice(&whole).unwrap();
    thread["messages"].as_array_mut().unwrap().push(user(4, "a third question", 1_796_503_000_000));
    std::fs::write(&path, serde_json::to_string_pretty(&thread).unwrap()).unwrap();
    lib.refresh().unwrap();
    assert_eq!(count(&lib), Some(5));

    // Never whole yet: nothing listed, nothing reported.
    let other = threads.join("T-0c0ffee0-0000-4000-8000-0000000000cc.json");
    std::fs::write(&other, b"{\n  \"v\": 1,\n  \"id\": \"T-0c0f").unwrap();
    let report = lib.refresh().unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    let list = lib.list_sessions(ListArgs { query: Some("T-0c0ffee0".into()), ..Default::default() }).unwrap();
    assert!(list.sessions.is_empty());
}

#[test]
fn default_roots_and_the_folders_a_root_may_be() {
    let env = |vars: &[(&str, &str)]| Env {
        home: Some(PathBuf::from("/home/ana")),
        vars: vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    };
    // The same on every OS: Amp joins the home folder with `.local/share` unless
    // `XDG_DATA_HOME` is set (on Windows and macOS too).
    assert_eq!(amp().default_roots(&env(&[])), [PathBuf::from("/home/ana/.local/share/amp")]);
    assert_eq!(amp().default_roots(&env(&[("XDG_DATA_HOME", "/data")])), [PathBuf::from("/data/amp")]);
    let windows = Env { home: Some(PathBuf::from(r"C:\Users\ana")), vars: Default::default() };
    assert_eq!(amp().default_roots(&windows), [Path::new(r"C:\Users\ana").join(".local").join("share").join("amp")]);
    assert!(amp().default_roots(&Env::default()).is_empty());

    // The data folder, its `threads` folder, or the editor extension's storage folder.
    let (dir, home) = real_home();
    let data = home.join(".local/share/amp");
    assert_eq!(read_root(&data).len(), 6);
    assert_eq!(read_root(&data.join("threads")).len(), 6);
    let storage = dir.path().join("Code/User/globalStorage/sourcegraph.amp");
    kit::copy_fixture("amp/threads", &storage.join("threads3"));
    std::fs::write(storage.join("threads3/T-01a247ea-9d0a-77d7-8757-b232006c0564.json.amptmp"), b"{\"v\"").unwrap();
    std::fs::write(storage.join("threads3/session.json"), b"{}").unwrap();
    assert_eq!(read_root(&storage).len(), 6);
    // Amp's other files are not threads.
    std::fs::write(data.join("session.json"), b"{}").unwrap();
    std::fs::create_dir_all(data.join("threads-development")).unwrap();
    assert_eq!(kit::discover(amp(), &data).0.len(), 6);
}

#[cfg(unix)]
#[test]
fn links_out_of_the_root_are_not_followed() {
    let (dir, home) = real_home();
    let threads = home.join(".local/share/amp/threads");
    let elsewhere = dir.path().join("elsewhere");
    let secret = write_thread(&elsewhere, &json!({"v": 1, "id": "T-0c0ffee0-0000-4000-8000-0000000000ee", "created": 1,
        "messages": [user(0, "secret", 2)]}));
    let linked = threads.join("T-0c0ffee0-0000-4000-8000-0000000000ee.json");
    std::os::unix::fs::symlink(&secret, &linked).unwrap();
    let (units, problems) = kit::discover(amp(), &home.join(".local/share/amp"));
    let refused: Vec<&Path> = problems.iter().map(|p| p.path.as_path()).collect();
    assert_eq!(refused, [linked.as_path()]);
    assert!(units.iter().all(|u| u.path != linked));
}
