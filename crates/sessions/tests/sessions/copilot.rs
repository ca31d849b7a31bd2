//! The GitHub Copilot CLI reader on sessions the real CLI wrote (1.0.102 with no login,
//! against a loopback stub of the OpenAI API that answers "Stub model says: use the deploy
//! script." and, once, "Stub title"; paths changed to `/home/ana/projects/atlas`, long
//! strings the reader skips cut short): a tool call and a resumed session, a sub-agent, a
//! multi-line first prompt, `/rename` with `/rewind`, `/compact` and reasoning before the
//! rewind, and a `/fork`. Generated files cover what those runs do not write: the older
//! layouts (a bare `<id>.jsonl`, `history-session-state` documents and their conversion),
//! injected prompts, background sessions, titles of other releases, per-OS roots and links
//! out of the root.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::testing::{self as kit, read_unit, ParsedSession, SourceReader, Unit, UnitKind};
use memory_bank_sessions::{Env, ListArgs, Role, SessionInfo, Source};
use serde_json::{json, Value};

const ATLAS: &str = "/home/ana/projects/atlas";
const STUB: &str = "Stub model says: use the deploy script.";

fn copilot() -> &'static dyn SourceReader {
    kit::reader(Source::CopilotCli)
}

/// A home holding the real sessions at `~/.copilot/session-state`.
fn real_home() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    kit::copy_fixture("copilot-cli/session-state", &home.join(".copilot/session-state"));
    (dir, home)
}

/// Every session read from `home`'s default roots without an index, by session id.
fn read_all(home: &Path) -> HashMap<String, ParsedSession> {
    let mut out = HashMap::new();
    for root in copilot().default_roots(&kit::env_with_home(home)) {
        let (units, problems) = kit::discover(copilot(), &root);
        assert!(problems.is_empty(), "{problems:?}");
        for unit in units {
            for session in read_unit(copilot(), &unit).unwrap() {
                if let Some(id) = session.session_id.clone() {
                    assert!(out.insert(id.clone(), session).is_none(), "{id} read twice");
                }
            }
        }
    }
    out
}

fn texts(s: &ParsedSession) -> Vec<(Role, &str)> {
    s.messages.iter().map(|m| (m.role, m.text.as_str())).collect()
}

fn tools(s: &ParsedSession) -> Vec<(&str, i64)> {
    s.tool_calls.iter().map(|c| (c.name.as_str(), c.after)).collect()
}

/// The sessions a library over `home` lists, by id.
fn listed(home: &Path) -> HashMap<String, SessionInfo> {
    let lib = kit::library(home, None);
    let list = lib.list_sessions(ListArgs { limit: Some(json!(200)), ..Default::default() }).unwrap();
    list.sessions.into_iter().map(|s| (s.session_id.clone(), s)).collect()
}

/// Writes `events` as JSON Lines at `path`.
fn write_events(path: &Path, events: &[Value]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, events.iter().map(|e| e.to_string() + "\n").collect::<String>()).unwrap();
}

/// An event of the current shape.
fn ev(kind: &str, id: &str, ts: &str, data: Value) -> Value {
    json!({"type": kind, "data": data, "id": id, "timestamp": ts, "parentId": null})
}

fn start(session: &str, ts: &str) -> Value {
    ev("session.start", &format!("{session}-start"), ts, json!({"sessionId": session, "version": 1, "producer": "copilot-agent",
        "copilotVersion": "1.0.102", "startTime": ts, "context": {"cwd": ATLAS}}))
}

#[test]
fn real_sessions_read_as_the_cli_shows_them() {
    let (_dir, home) = real_home();
    let sessions = read_all(&home);
    assert_eq!(sessions.len(), 5);

    // Prompt mode: the reply that only called `bash` has no text; then `--resume`.
    let s = &sessions["14a5a8e3-1061-45ce-95a7-69f808702315"];
    assert_eq!(
        texts(s),
        [(Role::User, "USE-TOOL please list the files"), (Role::Assistant, STUB), (Role::User, "and a second question"), (Role::Assistant, STUB)]
    );
    let ids: Vec<&str> = s.messages.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(ids[0], "b3bb0019-685f-4fef-aca4-188fdd96e138", "cited by the event id");
    assert_eq!(tools(s), [("bash", 0)]);
    assert_eq!(s.workspace.as_deref(), Some(ATLAS));
    assert_eq!(s.created, kit::ms("2026-12-05T20:26:39.855Z"));
    assert_eq!(s.updated, kit::ms("2026-12-05T20:27:19.364Z"));
    assert_eq!(s.messages[2].timestamp, kit::ms("2026-12-05T20:27:19.120Z"));

    // A `task` sub-agent: its prompt and report are in the file, marked with `agentId`.
    let s = &sessions["ee687502-ef0a-4502-83d1-c342b0e9f9fc"];
    assert_eq!(
        texts(s),
        [(Role::User, "USE-TASK THINK explore the repo with a helper"), (Role::Assistant, "Delegating."), (Role::Assistant, STUB)]
    );
    assert_eq!(tools(s), [("task", 1)]);

    // `/rename`, then `/rewind` (the file rewritten without the turn gone), an `@file`.
    let s = &sessions["7105488c-5db2-445f-b696-3ccc8c1e29d3"];
    assert_eq!(
        texts(s),
        [(Role::User, "how do I deploy to staging?"), (Role::Assistant, "Stub title"), (Role::User, "what about @NOTES.md ?"), (Role::Assistant, STUB)]
    );
    assert!(!s.hidden);

    // `/fork`: the events copied under the new id, then the fork's own turn.
    let fork = &sessions["80815882-fb81-4906-9d40-e7142aaddd3f"];
    assert_eq!(fork.messages.len(), 6);
    assert_eq!(texts(fork)[4], (Role::User, "after the fork"));

    // No title in the events: workspace.yaml names sessions.
    assert!(sessions.values().all(|s| s.title_candidate.is_none()));
    let titles: Vec<(String, String)> = {
        let (units, _) = kit::discover(copilot(), &home.join(".copilot"));
        let mut all: Vec<_> = units
            .iter()
            .filter(|u| u.kind == UnitKind::Whole)
            .flat_map(|u| read_unit(copilot(), u).unwrap())
            .flat_map(|s| s.external_titles)
            .collect();
        all.sort();
        all
    };
    assert_eq!(
        titles,
        [
            ("14a5a8e3-1061-45ce-95a7-69f808702315".into(), "USE-TOOL please list the files".into()),
            ("68c3f77e-4b47-4463-8016-23f71c03e0bd".into(),
             "'quoted': line one: with colon\nline two #hash \"dq\" and a very long tail that goes on and on and on and on and on and on and on and on and on and on and on and on and on and on and on and on and on and on to see truncation".into()),
            ("7105488c-5db2-445f-b696-3ccc8c1e29d3".into(), "Deploy notes".into()),
            ("80815882-fb81-4906-9d40-e7142aaddd3f".into(), "Forked notes".into()),
            ("ee687502-ef0a-4502-83d1-c342b0e9f9fc".into(), "USE-TASK THINK explore the repo with a helper".into()),
        ]
    );
}

#[test]
fn the_list_takes_titles_and_workspaces_from_the_session_folders() {
    let (_dir, home) = real_home();
    let listed = listed(&home);
    assert_eq!(listed.len(), 5);
    let s = &listed["7105488c-5db2-445f-b696-3ccc8c1e29d3"];
    assert_eq!((s.title.as_str(), s.workspace.as_deref(), s.message_count), ("Deploy notes", Some(ATLAS), 4));
    assert_eq!(s.source, Source::CopilotCli);
    assert_eq!(listed["80815882-fb81-4906-9d40-e7142aaddd3f"].title, "Forked notes");

    // `/rename` rewrites workspace.yaml only: the title follows on the next refresh.
    let yaml = home.join(".copilot/session-state/14a5a8e3-1061-45ce-95a7-69f808702315/workspace.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap().replace("name: USE-TOOL please list the files\nuser_named: false", "name: Listing files\nuser_named: true");
    let lib = kit::library(&home, None);
    std::fs::write(&yaml, text).unwrap();
    lib.refresh().unwrap();
    let list = lib.list_sessions(ListArgs { query: Some("Listing".into()), ..Default::default() }).unwrap();
    assert_eq!(list.sessions.iter().map(|s| s.session_id.as_str()).collect::<Vec<_>>(), ["14a5a8e3-1061-45ce-95a7-69f808702315"]);
    assert_eq!(list.sessions[0].title, "Listing files");
}

#[test]
fn reasoning_and_a_compaction_summary_are_not_messages_and_a_rewind_replaces_the_file() {
    let (dir, home) = real_home();
    // The same session before `/rewind`: a reply with reasoning, then `/compact`.
    let session = home.join(".copilot/session-state/7105488c-5db2-445f-b696-3ccc8c1e29d3");
    let rewound = std::fs::read(session.join("events.jsonl")).unwrap();
    std::fs::copy(kit::fixtures().join("copilot-cli/before-rewind.jsonl"), session.join("events.jsonl")).unwrap();
    let unit = Unit::new(Source::CopilotCli, session.join("events.jsonl"), UnitKind::Jsonl);
    let before = kit::read_one(copilot(), &unit);
    assert_eq!(
        texts(&before),
        [(Role::User, "how do I deploy to staging?"), (Role::Assistant, "Stub title"), (Role::User, "THINK and to production?"), (Role::Assistant, STUB)]
    );

    let lib = kit::library(&home, Some(&dir.path().join("index.sqlite")));
    // The CLI writes the rewound file anew and renames it over the old one.
    let new = session.join("events.jsonl.new");
    std::fs::write(&new, rewound).unwrap();
    std::fs::rename(new, session.join("events.jsonl")).unwrap();
    lib.refresh().unwrap();
    let read = lib.read_transcript(memory_bank_sessions::ReadArgs {
        session_id: Some("7105488c-5db2-445f-b696-3ccc8c1e29d3".into()),
        count: Some(json!(30)),
        ..Default::default()
    });
    let got: Vec<String> = read.unwrap().messages.into_iter().map(|m| m.text).collect();
    assert_eq!(got, ["how do I deploy to staging?", "Stub title", "what about @NOTES.md ?", STUB]);
}

#[test]
fn only_the_persons_prompts_are_user_messages_and_background_runs_are_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("home/.copilot/session-state");
    let id = "0c0ffee0-0000-4000-8000-000000000001";
    let t = "2026-06-01T10:00:00.000Z";
    write_events(&state.join(id).join("events.jsonl"), &[
        start(id, t),
        ev("user.message", "u1", t, json!({"content": "typed, no source"})),
        ev("user.message", "u2", t, json!({"content": "typed, source user", "source": "user"})),
        ev("user.message", "u3", t, json!({"content": "<skill>pdf</skill>", "source": "skill-pdf"})),
        ev("user.message", "u4", t, json!({"content": "Continue working on the goal.", "isAutopilotContinuation": true})),
        ev("user.message", "u5", t, json!({"content": "/every 1h check CI", "source": "schedule-1"})),
        ev("system.notification", "n1", t, json!({"content": "<system_notification>shell done</system_notification>"})),
        ev("user.message", "u6", t, json!({"content": "a sub-agent's prompt", "agentId": "a1"})),
        // Releases before `agentId` marked a sub-agent's reply with its tool call only.
        ev("assistant.message", "a1", t, json!({"messageId": "m1", "content": "a sub-agent's reply", "parentToolCallId": "call_1"})),
        ev("assistant.message", "a2", t, json!({"messageId": "m2", "content": "  ", "reasoningText": "thinking",
            "toolRequests": [{"toolCallId": "call_2", "name": "view"}, {"name": "grep"}, "not a request"]})),
        ev("assistant.message", "a3", t, json!({"messageId": "m3", "content": "the reply"})),
    ]);
    // The memory-consolidation agent's run, launched from another session.
    let background = "0c0ffee0-0000-4000-8000-000000000002";
    let mut begin = start(background, t);
    begin["data"]["detachedFromSpawningParentSessionId"] = json!(id);
    write_events(&state.join(background).join("events.jsonl"), &[begin, ev("user.message", "b1", t, json!({"content": "trajectory…"}))]);

    let sessions = read_all(&dir.path().join("home"));
    let s = &sessions[id];
    assert_eq!(texts(s), [(Role::User, "typed, no source"), (Role::User, "typed, source user"), (Role::Assistant, "the reply")]);
    assert_eq!(tools(s), [("view", 1), ("grep", 1)]);
    assert_eq!(s.tool_calls[1].key, "a2#1");
    assert!(sessions[background].hidden);
    let listed = listed(&dir.path().join("home"));
    assert!(listed.contains_key(id) && !listed.contains_key(background));
}

#[test]
fn older_layouts_are_read_once_each() {
    let dir = tempfile::tempdir().unwrap();
    let copilot_dir = dir.path().join("home/.copilot");
    let state = copilot_dir.join("session-state");
    let t = "2025-10-20T09:00:00.000Z";

    // 0.0.343 … 0.0.37x: `<id>.jsonl`, no context; a legacy session converted on resume.
    let bare = "0c0ffee0-0000-4000-8000-00000000000b";
    let legacy_session = json!({"sessionId": bare, "startTime": "2025-10-08T21:10:16.398Z", "chatMessages": [
            {"role": "system", "content": "You are…"}, {"role": "user", "content": "fix the build<reminder>…</reminder>"}],
        "timeline": [
            {"id": "t1", "timestamp": "2025-10-08T21:10:20.000Z", "type": "user", "text": "fix the build"},
            {"id": "t2", "timestamp": "2025-10-08T21:10:25.000Z", "type": "tool_call_requested", "callId": "call_a", "name": "bash",
             "intentionSummary": null, "arguments": {"command": "make"}},
            {"id": "t3", "timestamp": "2025-10-08T21:10:26.000Z", "type": "tool_call_completed", "callId": "call_a", "name": "bash",
             "intentionSummary": null, "result": {"type": "success", "log": "ok"}, "arguments": {"command": "make"}},
            {"id": "t4", "timestamp": "2025-10-08T21:10:30.000Z", "type": "copilot", "text": "The build passes now."},
            {"id": "t5", "timestamp": "2025-10-08T21:10:31.000Z", "type": "info", "text": "Session saved"}]});
    write_events(&state.join(format!("{bare}.jsonl")), &[
        json!({"type": "session.start", "data": {"sessionId": bare, "version": 1, "producer": "copilot-agent", "copilotVersion": "0.0.354",
            "startTime": "2025-10-08T21:10:16.398Z"}, "id": "s0", "timestamp": t, "parentId": null}),
        ev("session.import_legacy", "s1", t, json!({"legacySession": legacy_session, "importTime": t,
            "sourceFile": format!("session_{bare}_1759958416398")})),
        ev("user.message", "s2", t, json!({"content": "and the tests?", "attachments": []})),
    ]);
    // A folder of the same id (a later release's workspace) still titles it; its events are not read.
    write_events(&state.join(bare).join("events.jsonl"), &[ev("user.message", "x", t, json!({"content": "not this one"}))]);
    std::fs::write(state.join(bare).join("workspace.yaml"), format!("id: {bare}\nname: Build fixes\nsummary_count: 0\n")).unwrap();

    // Up to 0.0.342: `history-session-state/session_<id>_<ms>.json`; the converted one left behind is skipped.
    let history = copilot_dir.join("history-session-state");
    std::fs::create_dir_all(&history).unwrap();
    let old = "0c0ffee0-0000-4000-8000-00000000000c";
    let doc = json!({"sessionId": old, "startTime": "2025-09-30T08:00:00.000Z", "chatMessages": [], "timeline": [
        {"id": "o1", "timestamp": "2025-09-30T08:00:05.000Z", "type": "user", "text": "what does main.rs do?"},
        {"id": "o2", "timestamp": "2025-09-30T08:00:09.000Z", "type": "copilot", "text": "It starts the server."},
        {"id": "o3", "timestamp": "2025-09-30T08:00:10.000Z", "type": "error", "text": "rate limited"}]});
    std::fs::write(history.join(format!("session_{old}_1759219200000.json")), serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    std::fs::write(history.join(format!("session_{bare}_1759958416398.json")), legacy_session.to_string()).unwrap();
    // Cut short while the old CLI rewrote it: nothing yet, and no problem.
    let cut = "0c0ffee0-0000-4000-8000-00000000000d";
    std::fs::write(history.join(format!("session_{cut}_1759219300000.json")), b"{\"sessionId\": \"0c0f").unwrap();
    std::fs::write(history.join("notes.json"), b"{}").unwrap();

    let sessions = read_all(&dir.path().join("home"));
    let mut ids: Vec<&String> = sessions.keys().collect();
    ids.sort();
    assert_eq!(ids, [bare, old]);
    let s = &sessions[bare];
    assert_eq!(
        texts(s),
        [(Role::User, "fix the build"), (Role::Assistant, "The build passes now."), (Role::User, "and the tests?")]
    );
    assert_eq!(tools(s), [("bash", 0)]);
    assert_eq!(s.messages[0].message_id, "t1");
    assert_eq!(s.created, kit::ms("2025-10-08T21:10:16.398Z"));
    assert_eq!(s.workspace, None, "no context before 0.0.40x");
    let s = &sessions[old];
    assert_eq!(texts(s), [(Role::User, "what does main.rs do?"), (Role::Assistant, "It starts the server.")]);
    assert_eq!((s.created, s.updated), (kit::ms("2025-09-30T08:00:00.000Z"), kit::ms("2025-09-30T08:00:10.000Z")));

    let listed = listed(&dir.path().join("home"));
    assert_eq!(listed[bare].title, "Build fixes");
    assert_eq!(listed[old].title, "what does main.rs do?", "untitled: the first prompt");
}

#[test]
fn titles_of_other_releases() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let state = home.join(".copilot/session-state");
    let t = "2026-01-10T10:00:00.000Z";
    let cases = [
        // 1.0.6: `summary` (generated, or the first prompt cut at 100), `name` only after /rename.
        ("0c0ffee0-0000-4000-8000-000000000021", "summary: Fix login redirect loop\nsummary_count: 0\n", "Fix login redirect loop"),
        ("0c0ffee0-0000-4000-8000-000000000022", "summary: Fix login redirect loop\nname: 'Login: the fix'\n", "Login: the fix"),
        // 0.0.38x wrote no name at all: the first prompt stands for it.
        ("0c0ffee0-0000-4000-8000-000000000023", "summary_count: 0\ncreated_at: 2026-01-10T10:00:00.000Z\n", "the first prompt"),
        ("0c0ffee0-0000-4000-8000-000000000024", "name: >-\n  a folded\n  title\nuser_named: true\n", "a folded title"),
    ];
    for (id, yaml, _) in cases {
        write_events(&state.join(id).join("events.jsonl"), &[start(id, t), ev("user.message", "u", t, json!({"content": "the first prompt"}))]);
        std::fs::write(state.join(id).join("workspace.yaml"), format!("id: {id}\ncwd: {ATLAS}\n{yaml}")).unwrap();
    }
    let listed = listed(&home);
    for (id, _, title) in cases {
        assert_eq!(listed[id].title, title, "{id}");
    }
}

#[test]
fn default_roots_follow_copilot_home_and_the_old_state_folder() {
    let env = |home: &Path, vars: &[(&str, &str)]| Env {
        home: Some(home.to_path_buf()),
        vars: vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    };
    let roots = |env: &Env| copilot().default_roots(env);
    // The same on every OS: `os.homedir()` (`%USERPROFILE%` on Windows) joined with `.copilot`.
    assert_eq!(roots(&env(Path::new("/home/ana"), &[])), [PathBuf::from("/home/ana/.copilot")]);
    assert_eq!(roots(&env(Path::new(r"C:\Users\ana"), &[])), [Path::new(r"C:\Users\ana").join(".copilot")]);
    assert_eq!(roots(&env(Path::new("/home/ana"), &[("COPILOT_HOME", "/srv/copilot")])), [PathBuf::from("/srv/copilot")]);
    assert_eq!(roots(&env(Path::new("/home/ana"), &[("COPILOT_HOME", "~/cp")])), [PathBuf::from("~/cp")], "taken as written");
    assert!(roots(&Env::default()).is_empty());

    // `$XDG_STATE_HOME/.copilot` of the releases before the move: read while it holds sessions.
    let dir = tempfile::tempdir().unwrap();
    let (home, state) = (dir.path().join("home"), dir.path().join("state"));
    std::fs::create_dir_all(state.join(".copilot/session-state")).unwrap();
    let vars = [("XDG_STATE_HOME", state.to_str().unwrap())];
    assert_eq!(roots(&env(&home, &vars)), [home.join(".copilot"), state.join(".copilot")]);
    assert_eq!(roots(&env(&home, &[("XDG_STATE_HOME", home.to_str().unwrap())])), [home.join(".copilot")], "the same folder once");
    #[cfg(unix)]
    {
        // Moved by the CLI, which left a link to `~/.copilot/session-state`.
        std::fs::create_dir_all(home.join(".copilot/session-state")).unwrap();
        std::fs::remove_dir(state.join(".copilot/session-state")).unwrap();
        std::os::unix::fs::symlink(home.join(".copilot/session-state"), state.join(".copilot/session-state")).unwrap();
        assert_eq!(roots(&env(&home, &vars)), [home.join(".copilot")]);
    }
}

#[test]
fn a_session_state_folder_is_a_root_too_and_odd_entries_are_passed_over() {
    let (_dir, home) = real_home();
    let state = home.join(".copilot/session-state");
    // The CLI's lock folder, stray files, a folder without events.
    std::fs::create_dir_all(state.join(".session-operation-locks")).unwrap();
    std::fs::write(state.join(".session-operation-locks/14a5a8e3-1061-45ce-95a7-69f808702315.lock"), b"").unwrap();
    std::fs::write(state.join("notes.jsonl"), b"{}\n").unwrap();
    std::fs::create_dir_all(state.join("0c0ffee0-0000-4000-8000-0000000000ff/checkpoints")).unwrap();
    let (units, problems) = kit::discover(copilot(), &state);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(units.iter().filter(|u| u.kind == UnitKind::Jsonl).count(), 5);
    assert_eq!(units.iter().filter(|u| u.kind == UnitKind::Whole).count(), 5, "one workspace.yaml each");
}

#[cfg(unix)]
#[test]
fn links_out_of_the_root_are_not_followed() {
    let (dir, home) = real_home();
    let state = home.join(".copilot/session-state");
    let elsewhere = dir.path().join("elsewhere");
    let secret = "0c0ffee0-0000-4000-8000-0000000000aa";
    write_events(&elsewhere.join(secret).join("events.jsonl"), &[start(secret, "2026-06-01T10:00:00.000Z"),
        ev("user.message", "s", "2026-06-01T10:00:00.000Z", json!({"content": "secret"}))]);
    std::os::unix::fs::symlink(elsewhere.join(secret), state.join(secret)).unwrap();
    let linked = state.join("0c0ffee0-0000-4000-8000-0000000000bb");
    std::fs::create_dir_all(&linked).unwrap();
    std::os::unix::fs::symlink(elsewhere.join(secret).join("events.jsonl"), linked.join("events.jsonl")).unwrap();

    let (units, problems) = kit::discover(copilot(), &home.join(".copilot"));
    let mut refused: Vec<PathBuf> = problems.iter().map(|p| p.path.clone()).collect();
    refused.sort();
    assert_eq!(refused, [state.join(secret), linked.join("events.jsonl")]);
    assert!(units.iter().all(|u| !u.path.starts_with(state.join(secret)) && !u.path.starts_with(&linked)));
}
