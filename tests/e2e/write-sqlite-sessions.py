#!/usr/bin/env python3
"""Writes one session each into the SQLite stores of Cursor, goose, Crush and Zed under a
home folder, shaped as those tools write them (the schemas the readers' tests use), for the
real-window test of session sources (`sources.test.mjs`). Node 20 has no SQLite module,
Python's standard library does.

Usage: write-sqlite-sessions.py HOME SPEC_JSON, where SPEC_JSON maps each of "cursor",
"goose", "crush" and "zed" to {"title", "prompt", "reply", "workspace", "ms"} (ms: the
session's time, epoch milliseconds)."""

import json
import os
import sqlite3
import sys
from datetime import datetime, timezone


def connect(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    return conn


def iso(ms):
    return datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat().replace("+00:00", "Z")


def cursor(home, s):
    """Cursor's global store: a composer and its two bubbles, with its catalog row."""
    conn = connect(os.path.join(home, ".config/Cursor/User/globalStorage/state.vscdb"))
    conn.executescript(
        """
        CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
        CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
        CREATE TABLE composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT, createdAt INTEGER,
            lastUpdatedAt INTEGER, isArchived INTEGER, isSubagent INTEGER, recency INTEGER, checkpointAt INTEGER,
            value TEXT, subagentTypeName TEXT);
        """
    )
    cid = "5b0e9c1a-7d42-4f3e-9a61-2c8d4e6f1a03"
    bubbles = [("b-1", 1, s["prompt"]), ("b-2", 2, s["reply"])]
    for bid, kind, text in bubbles:
        bubble = {"_v": 3, "type": kind, "bubbleId": bid, "text": text, "richText": "", "createdAt": iso(s["ms"])}
        conn.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (f"bubbleId:{cid}:{bid}", json.dumps(bubble)))
    data = {
        "_v": 10, "composerId": cid, "name": s["title"], "createdAt": s["ms"], "lastUpdatedAt": s["ms"] + 30000,
        "fullConversationHeadersOnly": [{"bubbleId": bid, "type": kind} for bid, kind, _ in bubbles],
        "workspaceIdentifier": {"id": "e2e", "uri": {"fsPath": s["workspace"]}}, "unifiedMode": "agent",
    }
    conn.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (f"composerData:{cid}", json.dumps(data)))
    head = {"type": "head", "composerId": cid, "name": s["title"], "createdAt": s["ms"], "lastUpdatedAt": s["ms"] + 30000}
    conn.execute(
        "INSERT INTO composerHeaders (composerId, createdAt, lastUpdatedAt, isArchived, isSubagent, recency, value)"
        " VALUES (?, ?, ?, 0, 0, ?, ?)",
        (cid, s["ms"], s["ms"] + 30000, s["ms"] + 30000, json.dumps(head)),
    )
    conn.commit()
    conn.close()


def goose(home, s):
    """goose's sessions.db (schema version 17, the columns its reader needs)."""
    conn = connect(os.path.join(home, ".local/share/goose/sessions/sessions.db"))
    conn.executescript(
        """
        CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
        INSERT INTO schema_version (version) VALUES (17);
        CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
            user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
            created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
            parent_session_id TEXT);
        CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT NOT NULL REFERENCES sessions(id),
            role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
            timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);
        """
    )
    when = datetime.fromtimestamp(s["ms"] / 1000, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    sid = datetime.fromtimestamp(s["ms"] / 1000, timezone.utc).strftime("%Y%m%d") + "_1"
    conn.execute(
        "INSERT INTO sessions (id, name, user_set_name, working_dir, created_at, updated_at) VALUES (?, ?, 1, ?, ?, ?)",
        (sid, s["title"], s["workspace"], when, when),
    )
    visible = json.dumps({"userVisible": True, "agentVisible": True})
    for n, (role, text) in enumerate([("user", s["prompt"]), ("assistant", s["reply"])]):
        conn.execute(
            "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?, ?)",
            (f"msg_{n}", sid, role, json.dumps([{"type": "text", "text": text}]), s["ms"] // 1000 + n, visible),
        )
    conn.commit()
    conn.close()


def crush(home, s):
    """A project's .crush/crush.db, listed in Crush's projects.json."""
    project = s["workspace"]
    data_dir = os.path.join(project, ".crush")
    conn = connect(os.path.join(data_dir, "crush.db"))
    conn.executescript(
        """
        CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
            message_count INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
            updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT, todos TEXT);
        CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts TEXT NOT NULL default '[]',
            model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER,
            provider TEXT, is_summary_message INTEGER DEFAULT 0 NOT NULL);
        """
    )
    secs = s["ms"] // 1000
    sid = "3f9a1c2e-6b7d-4e8f-9a0b-1c2d3e4f5a6b"
    conn.execute("INSERT INTO sessions (id, title, message_count, updated_at, created_at) VALUES (?, ?, 2, ?, ?)", (sid, s["title"], secs + 30, secs))
    for n, (role, text) in enumerate([("user", s["prompt"]), ("assistant", s["reply"])]):
        parts = [{"type": "text", "data": {"text": text}}]
        if role == "assistant":
            parts.append({"type": "finish", "data": {"reason": "end_turn", "time": secs + 30}})
        conn.execute(
            "INSERT INTO messages (id, session_id, role, parts, created_at, updated_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (f"m-{n}", sid, role, json.dumps(parts), secs + n * 30, secs + n * 30, secs + n * 30),
        )
    conn.commit()
    conn.close()
    registry = os.path.join(home, ".local/share/crush")
    os.makedirs(registry, exist_ok=True)
    with open(os.path.join(registry, "projects.json"), "w") as f:
        json.dump({"projects": [{"path": project, "data_dir": data_dir, "last_accessed": iso(s["ms"])}]}, f)


def zed(home, s):
    """Zed's threads.db: one thread in the current agent's JSON (stored as json, not zstd)."""
    conn = connect(os.path.join(home, ".local/share/zed/threads/threads.db"))
    conn.execute(
        "CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL,"
        " data_type TEXT NOT NULL, data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT, folder_paths_order TEXT, created_at TEXT)"
    )
    thread = {
        "title": s["title"],
        "messages": [
            {"User": {"id": "u-1", "content": [{"Text": s["prompt"]}]}},
            {"Agent": {"content": [{"Text": s["reply"]}], "tool_results": {}, "reasoning_details": None}},
        ],
        "updated_at": iso(s["ms"] + 30000),
        "initial_project_snapshot": {"worktree_snapshots": [{"worktree_path": s["workspace"], "git_state": None}]},
        "version": "0.3.0",
    }
    conn.execute(
        "INSERT INTO threads VALUES (?, ?, ?, 'json', ?, NULL, ?, '0', ?)",
        ("9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", s["title"], iso(s["ms"] + 30000), json.dumps(thread).encode(), s["workspace"], iso(s["ms"])),
    )
    conn.commit()
    conn.close()


if __name__ == "__main__":
    home, spec = sys.argv[1], json.loads(sys.argv[2])
    for name, write in (("cursor", cursor), ("goose", goose), ("crush", crush), ("zed", zed)):
        write(home, spec[name])
