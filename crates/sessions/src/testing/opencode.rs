//! opencode 1.2+'s SQLite store (`opencode.db`) as opencode's migrations create it
//! (`packages/opencode/src/session/session.sql.ts`), filled row by row: the tests build
//! their databases with it and the sessions bench its 190 MB one, so both read the schema
//! the reader meets on users' machines.

use std::path::Path;

use rusqlite::{params, Connection};
use serde_json::json;

/// opencode's tables and indexes, and the two projects every database here holds (a git
/// project and `global`).
pub const SCHEMA: &str = r#"
CREATE TABLE project (
    id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text, icon_url text,
    icon_color text, time_created integer NOT NULL, time_updated integer NOT NULL,
    time_initialized integer, sandboxes text NOT NULL, commands text);
CREATE TABLE session (
    id text PRIMARY KEY,
    project_id text NOT NULL REFERENCES project(id) ON DELETE cascade,
    workspace_id text, parent_id text, slug text NOT NULL, directory text NOT NULL,
    path text, title text NOT NULL, version text NOT NULL, share_url text,
    summary_additions integer, summary_deletions integer, summary_files integer,
    summary_diffs text, cost real DEFAULT 0 NOT NULL,
    tokens_input integer DEFAULT 0 NOT NULL, tokens_output integer DEFAULT 0 NOT NULL,
    tokens_reasoning integer DEFAULT 0 NOT NULL, tokens_cache_read integer DEFAULT 0 NOT NULL,
    tokens_cache_write integer DEFAULT 0 NOT NULL, revert text, permission text, goal text,
    agent text, model text, time_created integer NOT NULL, time_updated integer NOT NULL,
    time_compacting integer, time_archived integer);
CREATE INDEX session_project_idx ON session (project_id);
CREATE INDEX session_workspace_idx ON session (workspace_id);
CREATE INDEX session_parent_idx ON session (parent_id);
CREATE TABLE message (
    id text PRIMARY KEY,
    session_id text NOT NULL REFERENCES session(id) ON DELETE cascade,
    time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE part (
    id text PRIMARY KEY,
    message_id text NOT NULL REFERENCES message(id) ON DELETE cascade,
    session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL,
    data text NOT NULL);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
CREATE TABLE todo (
    session_id text NOT NULL REFERENCES session(id) ON DELETE cascade, content text NOT NULL,
    status text NOT NULL, priority text NOT NULL, position integer NOT NULL,
    time_created integer NOT NULL, time_updated integer NOT NULL,
    PRIMARY KEY (session_id, position));
CREATE TABLE permission (
    project_id text PRIMARY KEY REFERENCES project(id) ON DELETE cascade,
    time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes)
    VALUES ('4b0ea68d7af9a6031a7ffda7ad66e0cb83315750', '/home/dev/app', 'git', 1, 1, '[]'),
           ('global', '/', NULL, 1, 1, '[]');
"#;

/// A new database at `path` with [`SCHEMA`], in WAL mode like opencode's.
pub fn create_db(path: &Path) -> Connection {
    let conn = Connection::open(path).unwrap();
    conn.pragma_update_and_check(None, "journal_mode", "wal", |r| r.get::<_, String>(0)).unwrap();
    conn.execute_batch(SCHEMA).unwrap();
    conn
}

/// The fields of a `session` row the reader uses.
pub struct Session<'a> {
    /// `ses_…`.
    pub id: &'a str,
    /// The parent session of a task sub-agent's child session.
    pub parent: Option<&'a str>,
    /// The workspace.
    pub directory: &'a str,
    /// The title (opencode's placeholder until its title agent ran).
    pub title: &'a str,
    /// Epoch ms.
    pub created: i64,
    /// Epoch ms.
    pub updated: i64,
    /// opencode's own archive flag (epoch ms), not ours.
    pub archived: Option<i64>,
}

/// A `session` row.
pub fn add_session(conn: &Connection, s: Session<'_>) {
    conn.execute(
        "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, \
         time_created, time_updated, time_archived) VALUES (?1, ?2, ?3, 'brave-otter', ?4, ?5, '1.3.2', ?6, ?7, ?8)",
        params![s.id, "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750", s.parent, s.directory, s.title, s.created, s.updated, s.archived],
    )
    .unwrap();
}

/// A `message` row; `data` is the message JSON without `id`/`sessionID`, as opencode stores it.
pub fn add_message(
    conn: &Connection,
    id: &str,
    session: &str,
    role: &str,
    created: i64,
    extra: serde_json::Value,
) {
    let mut data = json!({"role": role, "time": {"created": created}, "agent": "build"});
    if role == "assistant" {
        data["time"]["completed"] = json!(created + 900);
        data["modelID"] = json!("claude-sonnet-4");
        data["providerID"] = json!("anthropic");
        data["mode"] = json!("build");
        data["path"] = json!({"cwd": "/home/dev/app", "root": "/home/dev/app"});
        data["cost"] = json!(0.01);
        data["tokens"] =
            json!({"input": 10, "output": 20, "reasoning": 0, "cache": {"read": 0, "write": 0}});
    } else {
        data["model"] = json!({"providerID": "anthropic", "modelID": "claude-sonnet-4"});
    }
    if let (Some(d), Some(e)) = (data.as_object_mut(), extra.as_object()) {
        d.extend(e.clone());
    }
    conn.execute(
        "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?3, ?4)",
        params![id, session, created, data.to_string()],
    )
    .unwrap();
}

/// A `part` row; `data` is the part JSON without its ids.
pub fn add_part(conn: &Connection, id: &str, message: &str, session: &str, data: serde_json::Value) {
    conn.execute(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, 1, 1, ?4)",
        params![id, message, session, data.to_string()],
    )
    .unwrap();
}

/// A text part.
pub fn text(t: &str) -> serde_json::Value {
    json!({"type": "text", "text": t, "time": {"start": 1, "end": 2}})
}

/// A completed `bash` tool part with `output`.
pub fn tool(output: &str) -> serde_json::Value {
    json!({"type": "tool", "callID": "toolu_1", "tool": "bash", "state": {"status": "completed",
        "input": {"command": "ls"}, "output": output, "title": "ls", "metadata": {}, "time": {"start": 1, "end": 2}}})
}
