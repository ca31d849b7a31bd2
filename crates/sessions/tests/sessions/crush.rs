//! The Crush reader against project databases built here with Crush's schema and rows
//! shaped as Crush writes them, found through Crush's `projects.json` and by walking folders
//! the person adds. The shared suite's writer uses the schema and helpers below.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::testing::{self as kit, read_unit, ParsedSession, SourceReader, TitleRank, Unit};
use memory_bank_sessions::{Env, Problem, Role, Source};
use rusqlite::{params, Connection};
use serde_json::{json, Value};

/// Crush's schema: one copy for the tests and the bench.
pub use memory_bank_sessions::testing::crush::SCHEMA;


/// The project the suite's sessions belong to, under the home.
pub const PROJECT: &str = "work/app";

/// Crush's global data folder in `home` (the reader's default root).
pub fn global_dir(home: &Path) -> PathBuf {
    kit::reader(Source::Crush).default_roots(&kit::env_with_home(home)).remove(0)
}

/// Records `projects` (`(path, data folder)`) in `projects.json`, as Crush does when it
/// starts in a project.
pub fn register_all(home: &Path, projects: &[(&Path, &Path)]) {
    let global = global_dir(home);
    std::fs::create_dir_all(&global).unwrap();
    let list: Vec<Value> = projects
        .iter()
        .map(|(path, data)| json!({"path": path, "data_dir": data, "last_accessed": "2026-03-01T10:00:00.000000Z"}))
        .collect();
    std::fs::write(global.join("projects.json"), serde_json::to_string_pretty(&json!({"projects": list})).unwrap()).unwrap();
}

/// Records one project.
pub fn register(home: &Path, project: &Path, data_dir: &Path) {
    register_all(home, &[(project, data_dir)]);
}

fn reader() -> &'static dyn SourceReader {
    kit::reader(Source::Crush)
}

fn discover(root: &Path) -> (Vec<Unit>, Vec<Problem>) {
    kit::discover(reader(), root)
}

/// Every session of the databases under `root`, by id (each read once).
fn read_root(root: &Path) -> HashMap<String, ParsedSession> {
    let (units, problems) = discover(root);
    assert!(problems.is_empty(), "{problems:?}");
    let mut out = HashMap::new();
    for unit in &units {
        for s in read_unit(reader(), unit).unwrap() {
            let id = s.session_id.clone().expect("session id");
            assert!(out.insert(id, s).is_none(), "a session was read twice");
        }
    }
    out
}

fn texts(s: &ParsedSession) -> Vec<(Role, &str)> {
    s.messages.iter().map(|m| (m.role, m.text.as_str())).collect()
}

/// 2026-03-01T10:00:00Z in seconds, as Crush stamps rows.
const T0: i64 = 1_772_359_200;

const MAIN: &str = "4f1c1e7a-8d2b-4c55-9a0e-2b7d3f6a9c10";
const SECOND: &str = "7b3e2d91-0c4f-4e8a-b6d2-5a1f9e8c7d34";
const RENAMED: &str = "c2d9a4e6-3b71-4f08-8e5c-9d6b2a1f0e47";
const EMPTY: &str = "e8f7a6b5-c4d3-4e2f-9a1b-0c9d8e7f6a5b";
const TASK: &str = "toolu_01Agent";

fn create_db(path: &Path) -> Connection {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let conn = Connection::open(path).unwrap();
    conn.pragma_update(None, "journal_mode", "wal").unwrap();
    conn.execute_batch(SCHEMA).unwrap();
    conn
}

fn add_session(conn: &Connection, id: &str, parent: Option<&str>, title: &str, created: i64, updated: i64) {
    conn.execute(
        "INSERT INTO sessions (id, parent_session_id, title, message_count, prompt_tokens, completion_tokens, cost, updated_at, created_at)
         VALUES (?1, ?2, ?3, 0, 0, 0, 0.0, ?4, ?5)",
        params![id, parent, title, updated, created],
    )
    .unwrap();
}

fn add_message(conn: &Connection, id: &str, session: &str, role: &str, parts: Value, created: i64, summary: bool) {
    conn.execute(
        "INSERT INTO messages (id, session_id, role, parts, model, provider, is_summary_message, created_at, updated_at, finished_at)
         VALUES (?1, ?2, ?3, ?4, 'claude-sonnet-4-5', 'anthropic', ?5, ?6, ?6, ?6)",
        params![id, session, role, parts.to_string(), summary, created],
    )
    .unwrap();
}

fn text(t: &str) -> Value {
    json!({"type": "text", "data": {"text": t}})
}

fn finish(reason: &str) -> Value {
    json!({"type": "finish", "data": {"reason": reason, "time": T0}})
}

/// A project database: a session with attachments, a shell command, tool calls and their
/// results, reasoning and a compaction; one renamed; a sub-agent's and a title run's child
/// sessions; one without messages.
fn populate(conn: &Connection) {
    add_session(conn, MAIN, None, "Fix the flaky upload test", T0, T0 + 120);
    add_session(conn, SECOND, None, "Untitled Session", T0 + 200, T0 + 260);
    add_session(conn, RENAMED, None, "New Session", T0 + 300, T0 + 310);
    add_session(conn, TASK, Some(MAIN), "Find the retry logic", T0 + 20, T0 + 40);
    add_session(conn, &format!("title-{MAIN}"), Some(MAIN), "Generate a title", T0 + 1, T0 + 2);
    add_session(conn, EMPTY, None, "New Session", T0 + 400, T0 + 400);

    let png = json!({"type": "binary", "data": {"Path": "/home/dev/app/shot.png", "MIMEType": "image/png", "Data": "iVBORw0KGgo="}});
    add_message(conn, "m1", MAIN, "user", json!([text("Why does the upload test fail on CI?"), png, finish("stop")]), T0, false);
    let call = json!({"type": "tool_call", "data": {"id": "toolu_01Agent", "name": "agent", "input": "{\"prompt\":\"find it\"}",
                      "provider_executed": false, "finished": true}});
    let bash = json!({"type": "tool_call", "data": {"id": "toolu_02Bash", "name": "bash", "input": "{\"command\":\"go test\"}",
                      "provider_executed": false, "finished": true}});
    add_message(
        conn,
        "m2",
        MAIN,
        "assistant",
        json!([{"type": "reasoning", "data": {"thinking": "Probably timing.", "signature": "sig", "started_at": T0, "finished_at": T0 + 1}},
               text("Let me look."), call, bash, finish("tool_use")]),
        T0 + 10,
        false,
    );
    let result = json!({"type": "tool_result", "data": {"tool_call_id": "toolu_02Bash", "name": "bash", "content": "FAIL upload_test.go",
                        "data": "", "mime_type": "", "metadata": "", "is_error": false}});
    add_message(conn, "m3", MAIN, "tool", json!([result]), T0 + 50, false);
    add_message(conn, "m4", MAIN, "assistant", json!([text("The retry waits 10 ms."), finish("end_turn")]), T0 + 60, false);
    // A bang-mode shell command the person ran, kept as a user message.
    add_message(
        conn,
        "m5",
        MAIN,
        "user",
        json!([{"type": "shell_command", "data": {"command": "git status", "output": "clean", "exit_code": 0}}, finish("stop")]),
        T0 + 70,
        false,
    );
    // The compaction summary, then the conversation goes on.
    add_message(conn, "m6", MAIN, "assistant", json!([text("Summary: the retry is too short."), finish("end_turn")]), T0 + 80, true);
    add_message(conn, "m7", MAIN, "user", json!([text("Raise it to 100 ms."), finish("stop")]), T0 + 90, false);
    // Written in the same second as m7, after it.
    add_message(conn, "m8", MAIN, "assistant", json!([text("Done."), finish("end_turn")]), T0 + 90, false);

    add_message(conn, "s1", SECOND, "user", json!([text("hello"), finish("stop")]), T0 + 200, false);
    add_message(conn, "s2", SECOND, "assistant", json!([text("Hi!"), finish("end_turn")]), T0 + 201, false);
    // Before `is_summary_message`, the summary was known by the session's pointer only.
    add_message(conn, "r1", RENAMED, "user", json!([text("Write the changelog."), finish("stop")]), T0 + 300, false);
    add_message(conn, "r2", RENAMED, "assistant", json!([text("An older summary."), finish("end_turn")]), T0 + 305, false);
    conn.execute("UPDATE sessions SET title = 'Changelog for 2.0', summary_message_id = 'r2', updated_at = ?2 WHERE id = ?1", params![RENAMED, T0 + 310]).unwrap();
    add_message(conn, "t1", TASK, "user", json!([text("find the retry logic"), finish("stop")]), T0 + 20, false);
    add_message(conn, "g1", &format!("title-{MAIN}"), "user", json!([text("Generate a concise title"), finish("stop")]), T0 + 1, false);
}

/// A home with one registered project whose `.crush/crush.db` is populated.
fn home_with_project() -> (tempfile::TempDir, PathBuf, PathBuf, Connection) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = home.join(PROJECT);
    let data = project.join(".crush");
    let conn = create_db(&data.join("crush.db"));
    populate(&conn);
    register(&home, &project, &data);
    (dir, home, project, conn)
}

#[cfg(not(windows))]
#[test]
fn default_root_is_crushs_global_data_folder() {
    let env = |vars: &[(&str, &str)]| Env {
        home: Some(PathBuf::from("/home/ana")),
        vars: vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    };
    assert_eq!(reader().default_roots(&env(&[])), [PathBuf::from("/home/ana/.local/share/crush")]);
    assert_eq!(reader().default_roots(&env(&[("XDG_DATA_HOME", "/xdg")])), [PathBuf::from("/xdg/crush")]);
    assert_eq!(reader().default_roots(&env(&[("CRUSH_GLOBAL_DATA", "/g"), ("XDG_DATA_HOME", "/xdg")])), [PathBuf::from("/g")]);
    assert!(reader().default_roots(&Env::default()).is_empty());
}

#[test]
fn projects_json_leads_to_each_projects_database_with_its_workspace() {
    let (dir, home, project, _conn) = home_with_project();
    // A second project with a custom `data_directory`, and one whose data folder is gone.
    let other = dir.path().join("elsewhere/site");
    let state = dir.path().join("state/site-data");
    let conn = create_db(&state.join("crush.db"));
    add_session(&conn, SECOND, None, "Untitled Session", T0, T0);
    add_message(&conn, "x1", SECOND, "user", json!([text("build the site")]), T0, false);
    let gone = dir.path().join("gone");
    register_all(&home, &[(&project, &project.join(".crush")), (&other, &state), (&gone, &gone.join(".crush"))]);

    let (units, problems) = discover(&global_dir(&home));
    assert!(problems.is_empty(), "{problems:?}");
    let found: Vec<(PathBuf, Option<String>)> = units.iter().map(|u| (u.path.clone(), u.workspace_hint.clone())).collect();
    assert_eq!(
        found,
        [
            (project.join(".crush/crush.db"), Some(project.to_string_lossy().into_owned())),
            (state.join("crush.db"), Some(other.to_string_lossy().into_owned())),
        ]
    );
    // The library lists both projects' sessions with their workspaces.
    let lib = kit::library(&home, None);
    let list = lib.list_sessions(memory_bank_sessions::ListArgs { source: Some("crush".into()), ..Default::default() }).unwrap();
    let mut listed: Vec<(String, Option<String>)> = list.sessions.iter().map(|s| (s.title.clone(), s.workspace.clone())).collect();
    listed.sort();
    let app = Some(project.to_string_lossy().into_owned());
    assert_eq!(
        listed,
        [
            ("Changelog for 2.0".to_string(), app.clone()),
            ("Fix the flaky upload test".to_string(), app.clone()),
            ("build the site".to_string(), Some(other.to_string_lossy().into_owned())),
            ("hello".to_string(), app),
        ]
    );
}

#[test]
fn a_folder_the_person_adds_is_walked_for_project_databases() {
    let dir = tempfile::tempdir().unwrap();
    let code = dir.path().join("code");
    for db in [
        "app/.crush/crush.db",
        "team/api/.crush/crush.db",
        "custom/state/crush.db",
        "web/node_modules/pkg/.crush/crush.db",
        ".cache/thing/.crush/crush.db",
        "a/b/c/d/e/f/g/.crush/crush.db",
    ] {
        let conn = create_db(&code.join(db));
        add_session(&conn, MAIN, None, "x", T0, T0);
    }
    let (units, problems) = discover(&code);
    assert!(problems.is_empty(), "{problems:?}");
    let found: Vec<(String, Option<String>)> = units
        .iter()
        .map(|u| (u.path.strip_prefix(&code).unwrap().to_string_lossy().into_owned(), u.workspace_hint.clone()))
        .collect();
    let at = |p: &str| Some(code.join(p).to_string_lossy().into_owned());
    assert_eq!(
        found,
        [
            ("app/.crush/crush.db".to_string(), at("app")),
            ("custom/state/crush.db".to_string(), None),
            ("team/api/.crush/crush.db".to_string(), at("team/api")),
        ],
        "not in dependencies, other hidden folders, or deeper than the walk goes"
    );
    // A data folder, or the database itself, is a root too.
    assert_eq!(discover(&code.join("app/.crush")).0.len(), 1);
    assert_eq!(discover(&code.join("app/.crush/crush.db")).0.len(), 1);
}

#[test]
fn sessions_titles_and_hidden_children() {
    let (_dir, home, project, _conn) = home_with_project();
    let all = read_root(&global_dir(&home));
    let mut ids: Vec<&str> = all.keys().map(String::as_str).collect();
    ids.sort();
    let title_run = format!("title-{MAIN}");
    let mut expected = vec![MAIN, SECOND, RENAMED, TASK, title_run.as_str()];
    expected.sort();
    assert_eq!(ids, expected, "a session without messages is not listed");
    let main = &all[MAIN];
    assert_eq!(main.title_candidate, Some((TitleRank::Generated, "Fix the flaky upload test".into())));
    assert_eq!((main.created, main.updated), (Some(T0 * 1000), Some((T0 + 120) * 1000)));
    assert_eq!(all[SECOND].title_candidate, None, "Crush's placeholder is no title");
    assert_eq!(all[RENAMED].title_candidate, Some((TitleRank::Generated, "Changelog for 2.0".into())));
    assert!(all[TASK].hidden && all[title_run.as_str()].hidden);
    assert!(!main.hidden);
    // The workspace comes from the unit (the project Crush recorded).
    let (units, _) = discover(&global_dir(&home));
    assert_eq!(units[0].workspace_hint.as_deref(), Some(project.to_string_lossy().as_ref()));
}

#[test]
fn messages_are_the_persons_and_the_agents_words_and_tool_calls_are_events() {
    let (_dir, home, _project, _conn) = home_with_project();
    let all = read_root(&global_dir(&home));
    let main = &all[MAIN];
    assert_eq!(
        texts(main),
        [
            (Role::User, "Why does the upload test fail on CI?"),
            (Role::Assistant, "Let me look."),
            (Role::Assistant, "The retry waits 10 ms."),
            (Role::User, "!git status"),
            (Role::User, "Raise it to 100 ms."),
            (Role::Assistant, "Done."),
        ]
    );
    let ids: Vec<&str> = main.messages.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(ids, ["m1", "m2", "m4", "m5", "m7", "m8"]);
    assert_eq!(main.messages[1].timestamp, Some((T0 + 10) * 1000));
    let calls: Vec<(&str, &str, i64)> = main.tool_calls.iter().map(|c| (c.key.as_str(), c.name.as_str(), c.after)).collect();
    assert_eq!(calls, [("toolu_01Agent", "agent", 1), ("toolu_02Bash", "bash", 1)]);
    assert_eq!(texts(&all[RENAMED]), [(Role::User, "Write the changelog.")], "the summary the session points at is not read");
}

fn file_state(path: &Path) -> (Vec<u8>, std::time::SystemTime) {
    (std::fs::read(path).unwrap(), std::fs::metadata(path).unwrap().modified().unwrap())
}

#[test]
fn a_live_or_closed_database_is_read_without_touching_it() {
    let (_dir, home, project, conn) = home_with_project();
    conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    let data = project.join(".crush");
    let (db, wal) = (data.join("crush.db"), data.join("crush.db-wal"));
    let before = (file_state(&db), file_state(&wal));
    assert_eq!(read_root(&global_dir(&home)).len(), 5);
    assert_eq!((file_state(&db), file_state(&wal)), before);
    drop(conn);
    let before = file_state(&db);
    assert_eq!(read_root(&global_dir(&home)).len(), 5);
    assert_eq!(file_state(&db), before);
    let mut names: Vec<String> = std::fs::read_dir(&data).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["crush.db"]);
}

#[test]
fn broken_rows_and_files_are_skipped_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("crush.db"), b"").unwrap();
    let (units, _) = discover(dir.path());
    assert!(reader().parse_whole(&units[0]).unwrap().is_empty(), "a zero-byte database holds nothing yet");
    std::fs::write(dir.path().join("crush.db"), b"not a database").unwrap();
    assert!(reader().parse_whole(&units[0]).is_err());
    std::fs::write(dir.path().join("projects.json"), b"{\"projects\": 42}").unwrap();
    assert_eq!(discover(dir.path()).0.len(), 1, "a projects.json Crush did not write is no list");

    let conn = create_db(&dir.path().join("p/.crush/crush.db"));
    add_session(&conn, MAIN, None, "x", T0, T0);
    add_message(&conn, "a", MAIN, "user", json!({"type": "text"}), T0, false);
    add_message(&conn, "b", MAIN, "user", json!([{"type": "text", "data": "not an object"}, {"type": "text", "data": {"text": 5}}]), T0, false);
    conn.execute("INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES ('c', ?1, 'user', '[{\"type\":\"text\",\"data\":{\"text\":\"ok\"}}]', 'noon', 0)", [MAIN]).unwrap();
    let all = read_root(&dir.path().join("p"));
    assert_eq!(texts(&all[MAIN]), [(Role::User, "ok")]);
}

#[test]
fn reads_after_a_mark_take_the_sessions_stamped_since() {
    let (_dir, home, _project, conn) = home_with_project();
    let (units, _) = discover(&global_dir(&home));
    let unit = &units[0];
    let first = reader().parse_whole_since(unit, None).unwrap();
    assert_eq!(first.sessions.len(), 5);
    assert_eq!(first.present.as_ref().unwrap().len(), 5);
    let keys = |read: &memory_bank_sessions::testing::WholeRead| {
        let mut keys: Vec<String> = read.sessions.iter().map(|s| s.key.clone()).collect();
        keys.sort();
        keys
    };
    // The latest stamp is the empty session's (T0 + 400): sessions stamped in the ten
    // seconds before it are read again, none here.
    assert!(keys(&reader().parse_whole_since(unit, first.mark).unwrap()).is_empty());

    // Crush streams an answer into its row without stamping the session, then stamps the
    // session when the step ends.
    add_message(&conn, "s3", SECOND, "user", json!([text("and tests?")]), T0 + 1000, false);
    conn.execute("UPDATE sessions SET updated_at = ?2 WHERE id = ?1", params![SECOND, T0 + 1000]).unwrap();
    let read = reader().parse_whole_since(unit, first.mark).unwrap();
    assert_eq!(keys(&read), [SECOND]);
    add_message(&conn, "s4", SECOND, "assistant", json!([text("Adding them.")]), T0 + 1001, false);
    conn.execute("UPDATE messages SET parts = ?1, updated_at = ?2 WHERE id = 's4'", params![json!([text("Adding them now."), finish("end_turn")]).to_string(), T0 + 1003]).unwrap();
    // The last update of the message came after the session's stamp: still within the
    // slack, so read.
    let read = reader().parse_whole_since(unit, read.mark).unwrap();
    assert_eq!(keys(&read), [SECOND]);
    let whole = &read.sessions[0];
    assert!(whole.events.iter().any(|e| matches!(e, kit::Event::Message(m) if m.text == "Adding them now.")));
}

#[cfg(unix)]
#[test]
fn a_listed_database_linked_from_outside_its_data_folder_is_reported_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let outside = dir.path().join("outside/crush.db");
    let conn = create_db(&outside);
    populate(&conn);
    let project = home.join(PROJECT);
    let data = project.join(".crush");
    std::fs::create_dir_all(&data).unwrap();
    std::os::unix::fs::symlink(&outside, data.join("crush.db")).unwrap();
    register(&home, &project, &data);
    let (units, problems) = discover(&global_dir(&home));
    assert!(units.is_empty(), "{units:?}");
    assert!(problems.iter().any(|p| p.message.contains("not followed")), "{problems:?}");
}
