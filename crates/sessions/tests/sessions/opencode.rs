//! The opencode reader against synthetic stores: SQLite databases built here with
//! opencode's schema (1.2+, and the reported 2.x tables), and the legacy JSON tree checked in
//! under `tests/fixtures/opencode/json-tree`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::testing as common;

use memory_bank_sessions::testing::{read_unit, ParsedSession};
use memory_bank_sessions::testing::opencode::{add_message, add_part, add_session, create_db, text, tool, Session as S};
use memory_bank_sessions::{Env, Problem, Role, Source};
use memory_bank_sessions::testing::{Index, SourceReader, TitleRank, Unit, UnitKind};
use rusqlite::{params, Connection};
use serde_json::json;

fn reader() -> &'static dyn SourceReader {
    memory_bank_sessions::testing::reader(Source::Opencode)
}

fn discover(root: &Path) -> (Vec<Unit>, Vec<Problem>) {
    let (mut units, mut problems) = (Vec::new(), Vec::new());
    reader().discover(root, &mut units, &mut problems);
    (units, problems)
}

/// Every session under `root`, by session id.
fn read_root(root: &Path) -> HashMap<String, ParsedSession> {
    let (units, problems) = discover(root);
    assert!(problems.is_empty(), "{problems:?}");
    let mut out = HashMap::new();
    for unit in &units {
        for s in read_unit(reader(), unit).unwrap() {
            let id = s.session_id.clone().expect("session id");
            assert_eq!(s.key, id);
            assert!(out.insert(id, s).is_none(), "a session was read twice");
        }
    }
    out
}

fn texts(s: &ParsedSession) -> Vec<(Role, &str)> {
    s.messages
        .iter()
        .map(|m| (m.role, m.text.as_str()))
        .collect()
}

fn ids(s: &ParsedSession) -> Vec<&str> {
    s.messages.iter().map(|m| m.message_id.as_str()).collect()
}

const A: &str = "ses_3f1c9a2b7ffeKq2Lw8Xn4Vb6Tz";
const B: &str = "ses_3f1c9a2b6ffeHh7Jk3Mn5Pq9Rs";
const CHILD: &str = "ses_3f1c9a2b5ffeCc1Dd2Ee3Ff4Gg";
const ARCHIVED: &str = "ses_3f1c9a2b4ffeAa9Bb8Cc7Dd6Ee";
const EMPTY: &str = "ses_3f1c9a2b3ffeZz1Yy2Xx3Ww4Vv";
const WINDOWS: &str = "ses_3f1c9a2b2ffeMm5Nn6Oo7Pp8Qq";

/// A realistic 1.2+ store: titles, placeholders, a child, an archived session, an empty one,
/// a Windows workspace, compaction, synthetic and ignored text, tool-only turns.
fn populate(conn: &Connection) {
    let t0 = 1_780_000_000_000_i64;
    add_session(
        conn,
        S {
            id: A,
            parent: None,
            directory: "/home/dev/app",
            title: "Fix the flaky upload test",
            created: t0,
            updated: t0 + 90_000,
            archived: None,
        },
    );
    add_session(
        conn,
        S {
            id: B,
            parent: None,
            directory: "/home/dev/app",
            title: "New session - 2026-05-28T20:26:40.000Z",
            created: t0 + 100_000,
            updated: t0 + 110_000,
            archived: None,
        },
    );
    add_session(
        conn,
        S {
            id: CHILD,
            parent: Some(A),
            directory: "/home/dev/app",
            title: "Find the retry logic (@explore subagent)",
            created: t0 + 5_000,
            updated: t0 + 8_000,
            archived: None,
        },
    );
    add_session(
        conn,
        S {
            id: ARCHIVED,
            parent: None,
            directory: "/home/dev/old",
            title: "Old experiment",
            created: t0 - 900_000,
            updated: t0 - 800_000,
            archived: Some(t0),
        },
    );
    add_session(
        conn,
        S {
            id: EMPTY,
            parent: None,
            directory: "/home/dev/app",
            title: "New session - 2026-05-28T20:30:00.000Z",
            created: t0 + 200_000,
            updated: t0 + 200_000,
            archived: None,
        },
    );
    add_session(
        conn,
        S {
            id: WINDOWS,
            parent: None,
            directory: "C:\\Users\\dev\\app",
            title: "Windows paths",
            created: t0 + 300_000,
            updated: t0 + 300_000,
            archived: None,
        },
    );

    // Session A. Message ids: the first user message has the *largest* id (the id's hex time
    // wrapped), so id order and time order disagree.
    add_message(
        conn,
        "msg_ffffffff0001Ab12Cd34Ef56Gh",
        A,
        "user",
        t0 + 1_000,
        json!({}),
    );
    add_part(
        conn,
        "prt_ffffffff0101Aa11Bb22Cc33Dd",
        "msg_ffffffff0001Ab12Cd34Ef56Gh",
        A,
        text("The upload test fails one run in ten."),
    );
    add_part(
        conn,
        "prt_ffffffff0102Aa11Bb22Cc33Dd",
        "msg_ffffffff0001Ab12Cd34Ef56Gh",
        A,
        json!({"type": "text", "synthetic": true, "text": "Called the Read tool with the following input: {\"filePath\":\"upload.test.ts\"}"}),
    );
    add_part(
        conn,
        "prt_ffffffff0103Aa11Bb22Cc33Dd",
        "msg_ffffffff0001Ab12Cd34Ef56Gh",
        A,
        json!({"type": "file", "mime": "text/plain", "filename": "upload.test.ts", "url": "file:///home/dev/app/upload.test.ts"}),
    );
    add_message(
        conn,
        "msg_0000000a0002Ij78Kl90Mn12Op",
        A,
        "assistant",
        t0 + 2_000,
        json!({"parentID": "msg_ffffffff0001Ab12Cd34Ef56Gh", "finish": "tool-calls"}),
    );
    add_part(
        conn,
        "prt_0000000a0201Aa11Bb22Cc33Dd",
        "msg_0000000a0002Ij78Kl90Mn12Op",
        A,
        json!({"type": "step-start", "snapshot": "abc"}),
    );
    add_part(
        conn,
        "prt_0000000a0202Aa11Bb22Cc33Dd",
        "msg_0000000a0002Ij78Kl90Mn12Op",
        A,
        json!({"type": "reasoning", "text": "Probably a race.", "time": {"start": 1}}),
    );
    add_part(
        conn,
        "prt_0000000a0203Aa11Bb22Cc33Dd",
        "msg_0000000a0002Ij78Kl90Mn12Op",
        A,
        text("Let me look at the retry logic."),
    );
    add_part(
        conn,
        "prt_0000000a0204Aa11Bb22Cc33Dd",
        "msg_0000000a0002Ij78Kl90Mn12Op",
        A,
        tool("upload.ts\nretry.ts\n\"text\" appears in output"),
    );
    add_part(
        conn,
        "prt_0000000a0205Aa11Bb22Cc33Dd",
        "msg_0000000a0002Ij78Kl90Mn12Op",
        A,
        json!({"type": "text", "ignored": true, "text": "ignored text"}),
    );
    add_part(
        conn,
        "prt_0000000a0206Aa11Bb22Cc33Dd",
        "msg_0000000a0002Ij78Kl90Mn12Op",
        A,
        text("The retry timer is not awaited."),
    );
    add_part(
        conn,
        "prt_0000000a0207Aa11Bb22Cc33Dd",
        "msg_0000000a0002Ij78Kl90Mn12Op",
        A,
        json!({"type": "patch", "hash": "abc", "files": ["retry.ts"]}),
    );
    add_part(
        conn,
        "prt_0000000a0208Aa11Bb22Cc33Dd",
        "msg_0000000a0002Ij78Kl90Mn12Op",
        A,
        json!({"type": "step-finish", "reason": "stop", "cost": 0, "tokens": {}}),
    );
    // A tool-only assistant turn: not a message.
    add_message(
        conn,
        "msg_0000000a0003Qr34St56Uv78Wx",
        A,
        "assistant",
        t0 + 3_000,
        json!({}),
    );
    add_part(
        conn,
        "prt_0000000a0301Aa11Bb22Cc33Dd",
        "msg_0000000a0003Qr34St56Uv78Wx",
        A,
        tool("ok"),
    );
    // Compaction: the user request and the assistant summary are not messages.
    add_message(
        conn,
        "msg_0000000a0004Yz90Ab12Cd34Ef",
        A,
        "user",
        t0 + 4_000,
        json!({}),
    );
    add_part(
        conn,
        "prt_0000000a0401Aa11Bb22Cc33Dd",
        "msg_0000000a0004Yz90Ab12Cd34Ef",
        A,
        json!({"type": "compaction", "auto": true}),
    );
    add_part(
        conn,
        "prt_0000000a0402Aa11Bb22Cc33Dd",
        "msg_0000000a0004Yz90Ab12Cd34Ef",
        A,
        text("Summarize what we did so far."),
    );
    add_message(
        conn,
        "msg_0000000a0005Gh56Ij78Kl90Mn",
        A,
        "assistant",
        t0 + 5_000,
        json!({"summary": true, "mode": "compaction"}),
    );
    add_part(
        conn,
        "prt_0000000a0501Aa11Bb22Cc33Dd",
        "msg_0000000a0005Gh56Ij78Kl90Mn",
        A,
        text("Summary: we found a race in the retry logic."),
    );
    // Two messages at the same millisecond: ordered by id.
    add_message(
        conn,
        "msg_0000000a0007Bb11Cc22Dd33Ee",
        A,
        "assistant",
        t0 + 6_000,
        json!({}),
    );
    add_part(
        conn,
        "prt_0000000a0701Aa11Bb22Cc33Dd",
        "msg_0000000a0007Bb11Cc22Dd33Ee",
        A,
        text("Fixed."),
    );
    add_message(
        conn,
        "msg_0000000a0006Aa11Bb22Cc33Dd",
        A,
        "user",
        t0 + 6_000,
        json!({}),
    );
    add_part(
        conn,
        "prt_0000000a0601Aa11Bb22Cc33Dd",
        "msg_0000000a0006Aa11Bb22Cc33Dd",
        A,
        text("  Please fix it.  "),
    );

    // Session B: placeholder title, so the first user message (in full) is the title.
    add_message(
        conn,
        "msg_0000000b0001Ab12Cd34Ef56Gh",
        B,
        "user",
        t0 + 101_000,
        json!({}),
    );
    add_part(
        conn,
        "prt_0000000b0101Aa11Bb22Cc33Dd",
        "msg_0000000b0001Ab12Cd34Ef56Gh",
        B,
        text("Explain the build script."),
    );
    add_part(
        conn,
        "prt_0000000b0102Aa11Bb22Cc33Dd",
        "msg_0000000b0001Ab12Cd34Ef56Gh",
        B,
        text("Especially the release step."),
    );
    add_message(
        conn,
        "msg_0000000b0002Ab12Cd34Ef56Gh",
        B,
        "assistant",
        t0 + 102_000,
        json!({}),
    );
    add_part(
        conn,
        "prt_0000000b0201Aa11Bb22Cc33Dd",
        "msg_0000000b0002Ab12Cd34Ef56Gh",
        B,
        text("It runs cargo build --release."),
    );

    // The child session.
    add_message(
        conn,
        "msg_0000000c0001Ab12Cd34Ef56Gh",
        CHILD,
        "user",
        t0 + 5_100,
        json!({}),
    );
    add_part(
        conn,
        "prt_0000000c0101Aa11Bb22Cc33Dd",
        "msg_0000000c0001Ab12Cd34Ef56Gh",
        CHILD,
        text("Find the retry logic"),
    );

    add_message(
        conn,
        "msg_0000000d0001Ab12Cd34Ef56Gh",
        ARCHIVED,
        "user",
        t0 - 850_000,
        json!({}),
    );
    add_part(
        conn,
        "prt_0000000d0101Aa11Bb22Cc33Dd",
        "msg_0000000d0001Ab12Cd34Ef56Gh",
        ARCHIVED,
        text("Try the old approach."),
    );

    add_message(
        conn,
        "msg_0000000e0001Ab12Cd34Ef56Gh",
        WINDOWS,
        "user",
        t0 + 300_000,
        json!({}),
    );
    add_part(
        conn,
        "prt_0000000e0101Aa11Bb22Cc33Dd",
        "msg_0000000e0001Ab12Cd34Ef56Gh",
        WINDOWS,
        text("Hello from Windows."),
    );
}

fn home_with_db() -> (tempfile::TempDir, PathBuf, Connection) {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join(".local/share/opencode");
    std::fs::create_dir_all(&root).unwrap();
    let conn = create_db(&root.join("opencode.db"));
    populate(&conn);
    (home, root, conn)
}

// ---------------------------------------------------------------------------------------
// Roots

#[test]
fn default_root_follows_xdg_data_home_then_home() {
    let home = PathBuf::from("/home/someone");
    let env = Env {
        home: Some(home.clone()),
        vars: HashMap::new(),
    };
    assert_eq!(
        reader().default_roots(&env),
        vec![home.join(".local").join("share").join("opencode")]
    );

    let mut vars = HashMap::new();
    vars.insert("XDG_DATA_HOME".to_string(), "/data/xdg".to_string());
    let env = Env {
        home: Some(home.clone()),
        vars,
    };
    assert_eq!(
        reader().default_roots(&env),
        vec![PathBuf::from("/data/xdg").join("opencode")]
    );

    let mut vars = HashMap::new();
    vars.insert("XDG_DATA_HOME".to_string(), "  ".to_string());
    let env = Env {
        home: Some(home.clone()),
        vars,
    };
    assert_eq!(
        reader().default_roots(&env),
        vec![home.join(".local").join("share").join("opencode")]
    );

    assert!(reader().default_roots(&Env::default()).is_empty());
}

#[test]
fn default_root_with_a_temp_home_finds_the_database() {
    let (home, root, _conn) = home_with_db();
    let env = Env {
        home: Some(home.path().to_path_buf()),
        vars: HashMap::new(),
    };
    let roots = reader().default_roots(&env);
    assert_eq!(roots, vec![root.clone()]);
    let (units, _) = discover(&roots[0]);
    assert_eq!(units.len(), 1);
}

#[test]
fn missing_root_is_empty_not_a_problem() {
    let dir = tempfile::tempdir().unwrap();
    let (units, problems) = discover(&dir.path().join("nope"));
    assert!(units.is_empty() && problems.is_empty());
}

// ---------------------------------------------------------------------------------------
// SQLite generation

#[test]
fn database_is_one_whole_unit_with_every_session() {
    let (_home, root, _conn) = home_with_db();
    let (units, problems) = discover(&root);
    assert!(problems.is_empty());
    assert_eq!(
        units.len(),
        1,
        "the -wal/-shm files are not units: {units:?}"
    );
    assert_eq!(units[0].path, root.join("opencode.db"));
    assert_eq!(units[0].kind, UnitKind::Whole);
    assert_eq!(units[0].source, Source::Opencode);

    let sessions = reader().parse_whole(&units[0]).unwrap();
    let mut keys: Vec<&str> = sessions.iter().map(|s| s.key.as_str()).collect();
    keys.sort();
    let mut want = vec![A, B, CHILD, ARCHIVED, EMPTY, WINDOWS];
    want.sort();
    assert_eq!(keys, want);
}

#[test]
fn database_session_fields() {
    let (_home, root, _conn) = home_with_db();
    let all = read_root(&root);
    let t0 = 1_780_000_000_000_i64;

    let a = &all[A];
    assert_eq!(
        a.title_candidate,
        Some((
            TitleRank::Generated,
            "Fix the flaky upload test".to_string()
        ))
    );
    assert_eq!(a.title(), "Fix the flaky upload test");
    assert_eq!(a.workspace.as_deref(), Some("/home/dev/app"));
    assert_eq!(a.created, Some(t0));
    assert_eq!(a.updated, Some(t0 + 90_000));
    assert!(!a.hidden);

    // Placeholder titles are no titles: the first user message, in full, stands in.
    let b = &all[B];
    assert_eq!(b.title_candidate, None);
    assert_eq!(
        b.title(),
        "Explain the build script.\n\nEspecially the release step."
    );

    let child = &all[CHILD];
    assert!(child.hidden, "child sessions belong to their parent");
    assert_eq!(child.title(), "Find the retry logic (@explore subagent)");

    let archived = &all[ARCHIVED];
    assert!(!archived.hidden, "archived sessions are still listed");
    assert_eq!(archived.title(), "Old experiment");
    assert_eq!(texts(archived), vec![(Role::User, "Try the old approach.")]);

    let empty = &all[EMPTY];
    assert!(empty.messages.is_empty());
    assert_eq!(empty.title_candidate, None);
    assert_eq!(empty.title(), "");
    assert_eq!(empty.workspace.as_deref(), Some("/home/dev/app"));
    assert_eq!(
        (empty.created, empty.updated),
        (Some(t0 + 200_000), Some(t0 + 200_000))
    );

    assert_eq!(
        all[WINDOWS].workspace.as_deref(),
        Some("C:\\Users\\dev\\app")
    );
}

#[test]
fn database_messages_text_order_and_exclusions() {
    let (_home, root, _conn) = home_with_db();
    let all = read_root(&root);
    let a = &all[A];
    assert_eq!(
        texts(a),
        vec![
            (Role::User, "The upload test fails one run in ten."),
            (
                Role::Assistant,
                "Let me look at the retry logic.\n\nThe retry timer is not awaited."
            ),
            (Role::User, "Please fix it."),
            (Role::Assistant, "Fixed."),
        ]
    );
    // Time order, not id order (the first id is the largest); equal times by id.
    assert_eq!(
        ids(a),
        vec![
            "msg_ffffffff0001Ab12Cd34Ef56Gh",
            "msg_0000000a0002Ij78Kl90Mn12Op",
            "msg_0000000a0006Aa11Bb22Cc33Dd",
            "msg_0000000a0007Bb11Cc22Dd33Ee",
        ]
    );
    assert!(a.messages.iter().all(|m| m.key == m.message_id));
    let t0 = 1_780_000_000_000_i64;
    let times: Vec<Option<i64>> = a.messages.iter().map(|m| m.timestamp).collect();
    assert_eq!(
        times,
        vec![
            Some(t0 + 1_000),
            Some(t0 + 2_000),
            Some(t0 + 6_000),
            Some(t0 + 6_000)
        ]
    );

    assert_eq!(
        texts(&all[B]),
        vec![
            (
                Role::User,
                "Explain the build script.\n\nEspecially the release step."
            ),
            (Role::Assistant, "It runs cargo build --release."),
        ]
    );
}

#[test]
fn channel_databases_are_units_too() {
    let (_home, root, _conn) = home_with_db();
    let beta = create_db(&root.join("opencode-beta.db"));
    add_session(
        &beta,
        S {
            id: "ses_beta",
            parent: None,
            directory: "/w",
            title: "Beta work",
            created: 1,
            updated: 2,
            archived: None,
        },
    );
    std::fs::write(root.join("opencode-beta.db.bak"), b"x").unwrap();
    std::fs::write(root.join("other.db"), b"x").unwrap();
    let (units, _) = discover(&root);
    let paths: Vec<PathBuf> = units.iter().map(|u| u.path.clone()).collect();
    assert_eq!(
        paths,
        vec![root.join("opencode-beta.db"), root.join("opencode.db")]
    );
    let beta_sessions = read_unit(reader(), &units[0]).unwrap();
    assert_eq!(beta_sessions.len(), 1);
    assert_eq!(beta_sessions[0].title(), "Beta work");
}

fn file_state(path: &Path) -> (Vec<u8>, std::time::SystemTime) {
    (
        std::fs::read(path).unwrap(),
        std::fs::metadata(path).unwrap().modified().unwrap(),
    )
}

#[test]
fn live_wal_database_is_read_fully_without_touching_it() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("opencode");
    std::fs::create_dir_all(&root).unwrap();
    let db = root.join("opencode.db");
    let wal = root.join("opencode.db-wal");
    let writer = create_db(&db);
    // opencode keeps its connection open; nothing is checkpointed into the main file.
    writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    populate(&writer);
    assert!(
        std::fs::metadata(&wal).unwrap().len() > 0,
        "the rows sit in the -wal"
    );

    let before_db = file_state(&db);
    let before_wal = file_state(&wal);
    let (units, _) = discover(&root);
    assert_eq!(units.len(), 1);
    let all: Vec<ParsedSession> = read_unit(reader(), &units[0]).unwrap();
    assert_eq!(all.len(), 6);
    let a = all.iter().find(|s| s.key == A).unwrap();
    assert_eq!(a.messages.len(), 4);
    assert_eq!(file_state(&db), before_db, "main file untouched");
    assert_eq!(file_state(&wal), before_wal, "-wal untouched");

    // A new message lands in the -wal only: the main file keeps its identity, the unit's
    // fingerprint changes, and the next read sees it.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let fp1 = units[0].fingerprint;
    add_message(
        &writer,
        "msg_0000000b0003Ab12Cd34Ef56Gh",
        B,
        "user",
        1_780_000_103_000,
        json!({}),
    );
    add_part(
        &writer,
        "prt_0000000b0301Aa11Bb22Cc33Dd",
        "msg_0000000b0003Ab12Cd34Ef56Gh",
        B,
        text("And the tests?"),
    );
    assert_eq!(file_state(&db), before_db, "the write went to the -wal");
    let (units2, _) = discover(&root);
    assert_ne!(units2[0].fingerprint, fp1, "fingerprint follows the -wal");
    let all = read_unit(reader(), &units2[0]).unwrap();
    let b = all.iter().find(|s| s.key == B).unwrap();
    assert_eq!(b.messages.last().unwrap().text, "And the tests?");

    // The writer can still write and checkpoint: nothing of ours holds a lock.
    writer
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
            r.get::<_, i64>(0)
        })
        .unwrap();
    assert_eq!(std::fs::metadata(&wal).unwrap().len(), 0);
    let (units3, _) = discover(&root);
    assert_ne!(units3[0].fingerprint, units2[0].fingerprint);
}

#[test]
fn closed_database_is_read_and_not_written() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("opencode");
    std::fs::create_dir_all(&root).unwrap();
    let db = root.join("opencode.db");
    {
        let writer = create_db(&db);
        populate(&writer);
    } // opencode exited: checkpointed, -wal and -shm removed
    assert!(!root.join("opencode.db-wal").exists());
    let before = file_state(&db);
    let (units, _) = discover(&root);
    let all = read_unit(reader(), &units[0]).unwrap();
    assert_eq!(all.len(), 6);
    assert_eq!(file_state(&db), before);
    // No -wal or -shm is created next to a closed database, so nothing changes the unit.
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, vec!["opencode.db".to_string()]);
    let (again, _) = discover(&root);
    assert_eq!(again[0].fingerprint, units[0].fingerprint);
}

#[test]
fn unreadable_database_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("opencode.db"),
        b"this is not a database, just text",
    )
    .unwrap();
    let (units, _) = discover(dir.path());
    assert_eq!(units.len(), 1);
    assert!(reader().parse_whole(&units[0]).is_err());
}

#[test]
fn truncated_and_invalid_rows_are_skipped() {
    let (_home, root, conn) = home_with_db();
    add_message(
        &conn,
        "msg_0000000b0009Ab12Cd34Ef56Gh",
        B,
        "user",
        1_780_000_109_000,
        json!({}),
    );
    conn.execute(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_bad', 'msg_0000000b0009Ab12Cd34Ef56Gh', ?1, 1, 1, '{\"type\":\"text\",\"text\":\"cut')",
        [B],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_bad', ?1, 5, 5, '{\"role\":')",
        [B],
    )
    .unwrap();
    let all = read_root(&root);
    assert_eq!(all[B].messages.len(), 2);
}

// ---------------------------------------------------------------------------------------
// 2.x generation (best effort)

fn add_v2_tables(conn: &Connection) {
    conn.execute_batch(
        "CREATE TABLE session_message (
            id text PRIMARY KEY,
            session_id text NOT NULL REFERENCES session(id) ON DELETE cascade,
            type text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL,
            data text NOT NULL);
         CREATE INDEX session_message_session_idx ON session_message (session_id);",
    )
    .unwrap();
}

fn add_v2(
    conn: &Connection,
    id: &str,
    session: &str,
    kind: &str,
    created: i64,
    data: serde_json::Value,
) {
    let mut data = data;
    data["time"] = json!({"created": created});
    conn.execute(
        "INSERT INTO session_message (id, session_id, type, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
        params![id, session, kind, created, data.to_string()],
    )
    .unwrap();
}

#[test]
fn v2_messages_replace_the_frozen_v1_copy() {
    let (_home, root, conn) = home_with_db();
    add_v2_tables(&conn);
    let t0 = 1_780_000_000_000_i64;
    // Session A was migrated: its v1 rows stay behind, but only the v2 rows are read.
    add_v2(
        &conn,
        "evt_01",
        A,
        "user",
        t0 + 1_000,
        json!({"text": "The upload test fails one run in ten.", "files": [], "agents": []}),
    );
    add_v2(
        &conn,
        "evt_02",
        A,
        "agent-switched",
        t0 + 1_500,
        json!({"agent": "plan"}),
    );
    add_v2(
        &conn,
        "evt_03",
        A,
        "assistant",
        t0 + 2_000,
        json!({"agent": "build", "model": {"id": "m", "providerID": "p"}, "content": [
            {"type": "reasoning", "id": "r1", "text": "Probably a race."},
            {"type": "text", "text": "Looking at the retry logic."},
            {"type": "tool", "id": "t1", "name": "bash", "state": {"status": "completed", "input": {}, "content": [], "structured": {}}, "time": {"created": 1}},
            {"type": "text", "text": "skip me", "synthetic": true},
            {"type": "text", "text": "Found it."}
        ]}),
    );
    add_v2(
        &conn,
        "evt_04",
        A,
        "synthetic",
        t0 + 3_000,
        json!({"sessionID": A, "text": "file contents"}),
    );
    add_v2(
        &conn,
        "evt_05",
        A,
        "compaction",
        t0 + 4_000,
        json!({"reason": "auto", "summary": "A summary"}),
    );
    add_v2(
        &conn,
        "evt_06",
        A,
        "shell",
        t0 + 5_000,
        json!({"callID": "c", "command": "ls", "output": "x"}),
    );
    let all = read_root(&root);
    assert_eq!(
        texts(&all[A]),
        vec![
            (Role::User, "The upload test fails one run in ten."),
            (Role::Assistant, "Looking at the retry logic.\n\nFound it.")
        ]
    );
    assert_eq!(ids(&all[A]), vec!["evt_01", "evt_03"]);
    // Sessions without v2 rows are still read from the 1.x tables.
    assert_eq!(all[B].messages.len(), 2);
    assert_eq!(all.len(), 6);
}

#[test]
fn session_v2_table_is_preferred_when_it_has_rows() {
    let (_home, root, conn) = home_with_db();
    add_v2_tables(&conn);
    conn.execute_batch(
        "CREATE TABLE session_v2 (id text PRIMARY KEY, parent_id text, directory text NOT NULL,
            title text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text);",
    )
    .unwrap();
    let all = read_root(&root);
    assert_eq!(all.len(), 6, "an empty session_v2 is ignored");

    conn.execute(
        "INSERT INTO session_v2 (id, parent_id, directory, title, time_created, time_updated) VALUES (?1, NULL, '/v2', 'Migrated', 10, 20)",
        [A],
    )
    .unwrap();
    add_v2(&conn, "evt_01", A, "user", 11, json!({"text": "hello v2"}));
    let all = read_root(&root);
    assert_eq!(all.len(), 1, "exactly one generation of sessions");
    assert_eq!(all[A].title(), "Migrated");
    assert_eq!(all[A].workspace.as_deref(), Some("/v2"));
    assert_eq!(texts(&all[A]), vec![(Role::User, "hello v2")]);
}

// ---------------------------------------------------------------------------------------
// JSON tree generation (≤ 1.1)

fn fixture_tree() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/opencode/json-tree")
}

const JA: &str = "ses_6d2f1a3b4ffeQm3Xk9LpV2rTnA";
const JCHILD: &str = "ses_6d2f19c07ffeZx81HcWq0PbsLe";
const JARCHIVED: &str = "ses_6d2f18aa1ffe7YtRuNc5KdMo2B";

#[test]
fn json_tree_one_unit_per_session_file() {
    let root = fixture_tree();
    let (units, problems) = discover(&root);
    assert!(problems.is_empty());
    let mut names: Vec<String> = units
        .iter()
        .map(|u| u.path.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        vec![JARCHIVED.to_string(), JCHILD.to_string(), JA.to_string()]
    );
    assert!(units
        .iter()
        .all(|u| u.kind == UnitKind::Whole && u.fingerprint != 0));
}

#[test]
fn json_tree_sessions_and_messages() {
    let all = read_root(&fixture_tree());
    assert_eq!(all.len(), 3);

    let a = &all[JA];
    assert_eq!(a.title(), "Refactor the config loader");
    assert_eq!(a.workspace.as_deref(), Some("/home/dev/loader"));
    assert_eq!(a.created, Some(1_735_725_600_000));
    assert_eq!(a.updated, Some(1_735_726_200_000));
    assert!(!a.hidden);
    // The truncated message file and the truncated part are skipped; the synthetic-only
    // user message is no message; order is by time, not id.
    assert_eq!(
        texts(a),
        vec![
            (
                Role::User,
                "Split the config loader into parse and validate steps."
            ),
            (
                Role::Assistant,
                "I will split it in two.\n\nDone: parse() and validate() are separate now."
            ),
            (Role::User, "Now add tests."),
        ]
    );
    assert_eq!(
        ids(a),
        vec![
            "msg_e5a1c2d30001Ab12Cd34Ef56Gh",
            "msg_e5a1c2d30002Ij78Kl90Mn12Op",
            "msg_00000000a005Gh56Ij78Kl90Mn"
        ]
    );
    assert_eq!(a.messages[0].timestamp, Some(1_735_725_601_000));

    let child = &all[JCHILD];
    assert!(child.hidden);
    assert_eq!(child.title_candidate, None);
    assert_eq!(child.title(), "Find every caller of loadConfig.");

    let archived = &all[JARCHIVED];
    assert!(!archived.hidden);
    assert!(archived.messages.is_empty());
    assert_eq!(archived.title(), "");
    assert_eq!(archived.workspace.as_deref(), Some("C:\\Users\\dev\\notes"));
}

#[test]
fn json_tree_is_skipped_when_a_database_exists() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("opencode");
    common::copy_dir(&fixture_tree(), &root);
    assert_eq!(discover(&root).0.len(), 3);
    let conn = create_db(&root.join("opencode.db"));
    populate(&conn);
    let (units, _) = discover(&root);
    assert_eq!(
        units.iter().map(|u| u.path.clone()).collect::<Vec<_>>(),
        vec![root.join("opencode.db")]
    );
    let all = read_root(&root);
    assert!(!all.contains_key(JA));
    assert_eq!(all.len(), 6);
}

#[test]
fn json_tree_fingerprint_follows_messages_and_parts() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("opencode");
    common::copy_dir(&fixture_tree(), &root);
    let fp = |root: &Path| -> u64 {
        let (units, _) = discover(root);
        units
            .iter()
            .find(|u| u.path.file_stem().unwrap() == JA)
            .unwrap()
            .fingerprint
    };
    let storage = root.join("storage");
    let f0 = fp(&root);
    assert_eq!(fp(&root), f0, "stable while nothing changes");

    // A new part file in an existing message.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let msg = "msg_00000000a005Gh56Ij78Kl90Mn";
    std::fs::write(
        storage.join("part").join(msg).join("prt_00000000a502Ab12Cd34Ef56Gh.json"),
        json!({"id": "prt_00000000a502Ab12Cd34Ef56Gh", "messageID": msg, "sessionID": JA, "type": "text", "text": "With fixtures."}).to_string(),
    )
    .unwrap();
    let f1 = fp(&root);
    assert_ne!(f1, f0);
    let all = read_root(&root);
    assert_eq!(
        all[JA].messages.last().unwrap().text,
        "Now add tests.\n\nWith fixtures."
    );

    // The truncated part file is completed in place.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let m2 = "msg_e5a1c2d30002Ij78Kl90Mn12Op";
    std::fs::write(
        storage.join("part").join(m2).join("prt_e5a1c2d30205Cc22Dd33Ee44Ff.json"),
        json!({"id": "prt_e5a1c2d30205Cc22Dd33Ee44Ff", "messageID": m2, "sessionID": JA, "type": "text", "text": "Now complete."}).to_string(),
    )
    .unwrap();
    let f2 = fp(&root);
    assert_ne!(f2, f1);
    assert_eq!(
        read_root(&root)[JA].messages[1].text,
        "I will split it in two.\n\nNow complete.\n\nDone: parse() and validate() are separate now."
    );

    // A new message with its part.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let m9 = "msg_00000000a009Zz99Yy88Xx77Ww";
    std::fs::write(
        storage.join("message").join(JA).join(format!("{m9}.json")),
        json!({"id": m9, "sessionID": JA, "role": "assistant", "time": {"created": 1_735_725_609_000_i64}}).to_string(),
    )
    .unwrap();
    let f3 = fp(&root);
    assert_ne!(f3, f2);
    std::fs::create_dir_all(storage.join("part").join(m9)).unwrap();
    std::fs::write(
        storage.join("part").join(m9).join("prt_00000000a901Aa11Bb22Cc33Dd.json"),
        json!({"id": "prt_00000000a901Aa11Bb22Cc33Dd", "messageID": m9, "sessionID": JA, "type": "text", "text": "Tests added."}).to_string(),
    )
    .unwrap();
    assert_ne!(fp(&root), f3);
    let all = read_root(&root);
    assert_eq!(all[JA].messages.len(), 4);
    assert_eq!(all[JA].messages[3].text, "Tests added.");
}

#[test]
fn truncated_session_file_yields_nothing_and_no_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("opencode");
    common::copy_dir(&fixture_tree(), &root);
    let path = root
        .join("storage/session/global")
        .join(format!("{JARCHIVED}.json"));
    std::fs::write(&path, "{\n  \"id\": \"ses_6d2f18aa1ffe7Yt").unwrap();
    let (units, _) = discover(&root);
    let unit = units.iter().find(|u| u.path == path).unwrap();
    assert!(read_unit(reader(), unit).unwrap().is_empty());
}

// ---------------------------------------------------------------------------------------
// Scale: one query per table, so thousands of sessions read quickly.

#[test]
fn thousands_of_sessions_in_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    let conn = create_db(&dir.path().join("opencode.db"));
    conn.execute_batch("BEGIN").unwrap();
    for s in 0..2000 {
        let sid = format!("ses_{s:06}");
        add_session(
            &conn,
            S {
                id: &sid,
                parent: None,
                directory: "/w",
                title: "t",
                created: s,
                updated: s,
                archived: None,
            },
        );
        for m in 0..5 {
            let mid = format!("msg_{s:06}_{m}");
            add_message(
                &conn,
                &mid,
                &sid,
                if m % 2 == 0 { "user" } else { "assistant" },
                s * 10 + m,
                json!({}),
            );
            add_part(
                &conn,
                &format!("prt_{s:06}_{m}_a"),
                &mid,
                &sid,
                text(&format!("message {m}")),
            );
            add_part(
                &conn,
                &format!("prt_{s:06}_{m}_b"),
                &mid,
                &sid,
                tool(&"x".repeat(2000)),
            );
        }
    }
    conn.execute_batch("COMMIT").unwrap();
    // One query per table, never one per session: how fast is for `sessions-bench`.
    let all = read_root(dir.path());
    assert_eq!(all.len(), 2000);
    assert!(all.values().all(|s| s.messages.len() == 5));
    assert_eq!(all["ses_001234"].messages[4].text, "message 4");
}

#[test]
fn database_under_a_path_with_uri_characters() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("we?ird #dir%20").join("opencode");
    std::fs::create_dir_all(&root).unwrap();
    let writer = create_db(&root.join("opencode.db"));
    populate(&writer);
    // With the writer open (-wal present) and after it closed (immutable read).
    assert_eq!(read_root(&root).len(), 6);
    drop(writer);
    assert_eq!(read_root(&root).len(), 6);
}

/// Every message row of the index at `path`, by session id.
fn message_rows(path: &Path) -> std::collections::BTreeMap<String, Vec<i64>> {
    let conn = memory_bank_sessions::testing::connection(path);
    let mut stmt = conn
        .prepare("SELECT s.session_id, m.id FROM message m JOIN session s ON s.id = m.session ORDER BY m.id")
        .unwrap();
    let mut out: std::collections::BTreeMap<String, Vec<i64>> = Default::default();
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))).unwrap();
    for row in rows {
        let (session, id) = row.unwrap();
        out.entry(session).or_default().push(id);
    }
    out
}

fn answers(index: &Index, root: &Path) -> serde_json::Value {
    common::index_answers(index, &[root.to_string_lossy().into_owned()])
}

#[test]
fn database_changes_are_read_session_by_session() {
    let (_home, root, conn) = home_with_db();
    let dir = tempfile::tempdir().unwrap();
    let roots = vec![(Source::Opencode, root.clone())];
    let path = dir.path().join("index.sqlite");
    let mut index = Index::open(&path, memory_bank_sessions::testing::suite_key().as_ref()).unwrap();
    index.refresh(&roots).unwrap();
    let before = message_rows(&path);
    assert!(before.contains_key(A) && before.contains_key(B) && before.contains_key(WINDOWS), "{before:?}");
    // Rows stamped in the last millisecond read are read again (a write in that same
    // millisecond may have come after the read): the newest session's are.
    let newest: String = conn
        .query_row(
            "SELECT session_id FROM (SELECT id AS session_id, time_updated FROM session
               UNION ALL SELECT session_id, time_updated FROM message
               UNION ALL SELECT session_id, time_updated FROM part) ORDER BY time_updated DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();

    // While opencode runs it writes a new turn into A (rows stamped now) and deletes B.
    let now = 1_790_000_000_000_i64;
    add_message(&conn, "msg_f00000000001NewTurnAaaaaa", A, "user", now, json!({}));
    conn.execute(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
        params!["prt_f00000000001NewTurnAaaaaa", "msg_f00000000001NewTurnAaaaaa", A, now, text("and the retry logic?").to_string()],
    )
    .unwrap();
    for sql in ["DELETE FROM part WHERE session_id = ?1", "DELETE FROM message WHERE session_id = ?1", "DELETE FROM session WHERE id = ?1"] {
        conn.execute(sql, [B]).unwrap();
    }
    index.refresh(&roots).unwrap();

    let after = message_rows(&path);
    assert!(!after.contains_key(B), "a deleted session leaves the index");
    assert_eq!(after[A].len(), before[A].len() + 1);
    let mut untouched = 0;
    for (session, rows) in &before {
        if session != A && session != B && *session != newest {
            assert_eq!(after.get(session), Some(rows), "{session} was not changed, so not read again");
            untouched += 1;
        }
    }
    assert!(untouched >= 1, "{before:?}");
    let mut fresh = Index::open(&dir.path().join("fresh.sqlite"), memory_bank_sessions::testing::suite_key().as_ref()).unwrap();
    fresh.refresh(&roots).unwrap();
    let expected = answers(&fresh, &root);
    assert_eq!(answers(&index, &root), expected);
    let last = expected["transcripts"].as_array().unwrap().iter().flat_map(|t| t.as_array().unwrap()).any(|m| m["text"] == "and the retry logic?");
    assert!(last, "the new message is read");
}
