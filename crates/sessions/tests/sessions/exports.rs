//! Chat exports: a ChatGPT export's zip and a Claude.ai export's conversations.json,
//! shaped as the services write them, imported into a data folder, then listed, read and
//! searched like any session; a re-import is the same sessions (ids stable), a newer export
//! updates what changed, an older one never undoes it; an unzipped export in a folder the
//! person added is read as it is; and what is not an export is refused, with nothing kept.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use memory_bank_sessions::testing as kit;
use memory_bank_sessions::{
    import_chats, Env, ImportError, Library, ListArgs, ReadArgs, Role, Roots, SearchArgs, Source,
};
use serde_json::{json, Value};

/// A ChatGPT message node.
fn node(id: &str, parent: Option<&str>, children: &[&str], message: Value) -> (String, Value) {
    (id.to_owned(), json!({"id": id, "message": message, "parent": parent, "children": children}))
}

fn chatgpt_message(id: &str, role: &str, content: Value, at: f64) -> Value {
    json!({"id": id, "author": {"role": role, "name": null, "metadata": {}}, "create_time": at, "update_time": null,
           "content": content, "status": "finished_successfully", "end_turn": true, "weight": 1.0,
           "metadata": {}, "recipient": "all", "channel": null})
}

fn text(parts: &[&str]) -> Value {
    json!({"content_type": "text", "parts": parts})
}

/// A conversation with a hidden system message, an edited prompt (two branches, the second
/// current), an image, a tool call and its output, the assistant's thoughts, and code.
fn chatgpt_branched(updated: f64, extra: Option<&str>) -> Value {
    let mut hidden = chatgpt_message("m-sys", "system", text(&[""]), 1_767_225_600.0);
    hidden["metadata"] = json!({"is_visually_hidden_from_conversation": true});
    let mut tool_call = chatgpt_message("m-call", "assistant", json!({"content_type": "code", "language": "unknown", "text": "print(2+2)"}), 1_767_225_660.0);
    tool_call["recipient"] = json!("python");
    let mut nodes = vec![
        node("root", None, &["n-sys"], Value::Null),
        node("n-sys", Some("root"), &["n-q1", "n-q2"], hidden),
        // The first wording of the prompt, edited since: not on the branch shown.
        node("n-q1", Some("n-sys"), &["n-a1"], chatgpt_message("m-q1", "user", text(&["How do I deply?"]), 1_767_225_610.0)),
        node("n-a1", Some("n-q1"), &[], chatgpt_message("m-a1", "assistant", text(&["Did you mean deploy?"]), 1_767_225_615.0)),
        node("n-q2", Some("n-sys"), &["n-think"], chatgpt_message("m-q2", "user",
            json!({"content_type": "multimodal_text", "parts": [{"content_type": "image_asset_pointer", "asset_pointer": "file-service://x"}, "How do I deploy to staging? See the screenshot."]}),
            1_767_225_620.0)),
        node("n-think", Some("n-q2"), &["n-call"], chatgpt_message("m-think", "assistant", json!({"content_type": "thoughts", "thoughts": [{"summary": "x", "content": "thinking"}]}), 1_767_225_630.0)),
        node("n-call", Some("n-think"), &["n-out"], tool_call),
        node("n-out", Some("n-call"), &["n-a2"], chatgpt_message("m-out", "tool", json!({"content_type": "execution_output", "text": "4"}), 1_767_225_665.0)),
        node("n-a2", Some("n-out"), &[], chatgpt_message("m-a2", "assistant", text(&["Staging deploys need the VPN first."]), 1_767_225_670.0)),
    ];
    let mut current = "n-a2";
    if let Some(more) = extra {
        nodes[8].1["children"] = json!(["n-more"]);
        nodes.push(node("n-more", Some("n-a2"), &[], chatgpt_message("m-more", "user", text(&[more]), updated)));
        current = "n-more";
    }
    json!({"title": "Staging deploys", "create_time": 1_767_225_600.5, "update_time": updated,
           "mapping": nodes.into_iter().collect::<serde_json::Map<_, _>>(), "moderation_results": [],
           "current_node": current, "plugin_ids": null, "conversation_id": "6790a1b2-0000-8000-8000-000000000001",
           "conversation_template_id": null, "gizmo_id": null, "is_archived": false, "safe_urls": [],
           "default_model_slug": "gpt-5", "id": "6790a1b2-0000-8000-8000-000000000001"})
}

fn chatgpt_simple() -> Value {
    let nodes = vec![
        node("r", None, &["u"], Value::Null),
        node("u", Some("r"), &["a"], chatgpt_message("m-u", "user", text(&["Which tea is best in the morning?"]), 1_767_312_000.0)),
        node("a", Some("u"), &[], chatgpt_message("m-a", "assistant", text(&["Green tea, for most people."]), 1_767_312_010.0)),
    ];
    json!({"title": "Morning tea", "create_time": 1_767_312_000.0, "update_time": 1_767_312_010.0,
           "mapping": nodes.into_iter().collect::<serde_json::Map<_, _>>(), "current_node": "a",
           "conversation_id": "6790a1b2-0000-8000-8000-000000000002", "id": "6790a1b2-0000-8000-8000-000000000002"})
}

/// A zip as ChatGPT's export email links to.
fn chatgpt_zip(dir: &Path, name: &str, conversations: &[Value]) -> PathBuf {
    let path = dir.join(name);
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (file, body) in [
        ("chat.html", "<html><body>your chats</body></html>".to_owned()),
        ("user.json", json!({"id": "user-1", "email": "ada@example.com"}).to_string()),
        ("conversations.json", serde_json::to_string_pretty(conversations).unwrap()),
        ("message_feedback.json", "[]".to_owned()),
    ] {
        zip.start_file(file, options).unwrap();
        zip.write_all(body.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
    path
}

fn claude_ai_conversations() -> Value {
    json!([{
        "uuid": "0c3f4a2e-1111-4222-8333-944455566677", "name": "Billing service ownership", "summary": "",
        "created_at": "2026-02-01T09:00:00.000000Z", "updated_at": "2026-02-01T09:05:00.000000Z",
        "account": {"uuid": "acc-1"},
        "current_leaf_message_uuid": "c-a2",
        "chat_messages": [
            {"uuid": "c-q1", "sender": "human", "text": "Who owns invoices?", "created_at": "2026-02-01T09:00:00.000000Z",
             "content": [{"type": "text", "text": "Who owns invoices?"}], "attachments": [], "files": []},
            {"uuid": "c-a1", "parent_message_uuid": "c-q1", "sender": "assistant", "created_at": "2026-02-01T09:01:00.000000Z",
             "text": "", "content": [{"type": "thinking", "thinking": "let me think"}, {"type": "tool_use", "name": "web_search", "input": {"query": "billing"}},
                         {"type": "tool_result", "content": [{"type": "text", "text": "search results"}]},
                         {"type": "text", "text": "The billing service owns invoices."}], "attachments": [], "files": []},
            // A retried answer, on the branch that is not shown.
            {"uuid": "c-a1-old", "parent_message_uuid": "c-q1", "sender": "assistant", "created_at": "2026-02-01T09:00:30.000000Z",
             "text": "I am not sure.", "content": [], "attachments": [], "files": []},
            {"uuid": "c-q2", "parent_message_uuid": "c-a1", "sender": "human", "text": "And refunds?", "created_at": "2026-02-01T09:04:00.000000Z",
             "content": [{"type": "text", "text": "And refunds?"}],
             "attachments": [{"file_name": "notes.txt", "file_type": "txt", "extracted_content": "refund notes"}], "files": []},
            {"uuid": "c-a2", "parent_message_uuid": "c-q2", "sender": "assistant", "text": "Refunds too.", "created_at": "2026-02-01T09:05:00.000000Z",
             "content": [{"type": "text", "text": "Refunds too."}], "attachments": [], "files": []}
        ]
    }])
}

struct Data {
    dir: tempfile::TempDir,
}

impl Data {
    fn new() -> Data {
        Data { dir: tempfile::tempdir().unwrap() }
    }
    fn folder(&self) -> PathBuf {
        self.dir.path().join("data")
    }
    /// The environment of every door: home, and the app's data folder.
    fn env(&self) -> Env {
        let mut env = kit::env_with_home(&self.dir.path().join("home"));
        env.vars.insert("MEMORY_BANK_DATA_DIR".into(), self.folder().to_string_lossy().into_owned());
        env
    }
    fn library(&self) -> Library {
        let lib = Library::open(None, Roots::new(&self.env(), &[]), None).unwrap();
        lib.refresh().unwrap();
        lib
    }
}

fn transcript(lib: &Library, id: &str) -> Vec<(String, Role, String)> {
    let read = lib.read_transcript(ReadArgs { session_id: Some(id.into()), count: Some(json!(30)), ..Default::default() }).unwrap();
    read.messages.into_iter().map(|m| (m.message_id, m.role, m.text)).collect()
}

const BRANCHED: &str = "6790a1b2-0000-8000-8000-000000000001";

#[test]
fn a_chatgpt_export_is_listed_read_and_searched_as_sessions() {
    let data = Data::new();
    let zip = chatgpt_zip(data.dir.path(), "export.zip", &[chatgpt_branched(1_767_225_670.0, None), chatgpt_simple()]);
    let report = import_chats(&zip, &data.folder()).unwrap();
    assert_eq!((report.source, report.conversations, report.added, report.updated, report.unchanged), (Some(Source::Chatgpt), 2, 2, 0, 0));

    let lib = data.library();
    let list = lib.list_sessions(ListArgs { source: Some("chatgpt".into()), ..Default::default() }).unwrap();
    let titles: Vec<&str> = list.sessions.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(titles, ["Morning tea", "Staging deploys"], "newest first");
    let branched = list.sessions.iter().find(|s| s.session_id == BRANCHED).unwrap();
    assert_eq!(branched.workspace, None);
    // The branch shown in ChatGPT: the edited prompt, no hidden, tool or thought messages.
    assert_eq!(
        transcript(&lib, BRANCHED),
        [
            ("m-q2".to_owned(), Role::User, "[image]\n\nHow do I deploy to staging? See the screenshot.".to_owned()),
            ("m-a2".to_owned(), Role::Assistant, "Staging deploys need the VPN first.".to_owned()),
        ]
    );
    let activity = lib.session_activity(memory_bank_sessions::ActivityArgs { session_id: Some(BRANCHED.into()), ..Default::default() }).unwrap();
    assert!(serde_json::to_string(&activity).unwrap().contains("python"), "the tool call is shown: {activity:?}");
    let hits = lib.search_messages(SearchArgs { query: Some("VPN".into()), ..Default::default() }).unwrap();
    assert_eq!(hits.hits.len(), 1);
    assert_eq!((hits.hits[0].session_id.as_str(), hits.hits[0].message_id.as_str()), (BRANCHED, "m-a2"));
    // Kept private, one file per conversation, named by its id.
    let kept = data.folder().join("imports/chatgpt").join(format!("{BRANCHED}.json"));
    assert!(kept.is_file());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(kept.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o700);
    }
}

#[test]
fn a_reimport_is_the_same_sessions_a_newer_export_updates_and_an_older_one_never_undoes() {
    let data = Data::new();
    let first = chatgpt_zip(data.dir.path(), "first.zip", &[chatgpt_branched(1_767_225_670.0, None), chatgpt_simple()]);
    import_chats(&first, &data.folder()).unwrap();
    let lib = data.library();
    let before = transcript(&lib, BRANCHED);
    drop(lib);

    let again = import_chats(&first, &data.folder()).unwrap();
    assert_eq!((again.added, again.updated, again.unchanged), (0, 0, 2));
    let lib = data.library();
    assert_eq!(transcript(&lib, BRANCHED), before, "the same ids, the same messages");
    drop(lib);

    let newer = chatgpt_zip(data.dir.path(), "newer.zip", &[chatgpt_branched(1_767_230_000.0, Some("And production?")), chatgpt_simple()]);
    let report = import_chats(&newer, &data.folder()).unwrap();
    assert_eq!((report.added, report.updated, report.unchanged), (0, 1, 1));
    let lib = data.library();
    let after = transcript(&lib, BRANCHED);
    assert_eq!(after.len(), 3);
    assert_eq!(after[..2], before[..]);
    assert_eq!(after[2], ("m-more".to_owned(), Role::User, "And production?".to_owned()));
    drop(lib);

    // The first export again: older than what is kept, so nothing goes back.
    let older = import_chats(&first, &data.folder()).unwrap();
    assert_eq!((older.updated, older.unchanged), (0, 2));
    assert_eq!(transcript(&data.library(), BRANCHED).len(), 3);

    // A conversation a later export no longer has stays (the services drop deleted chats).
    let only_simple = chatgpt_zip(data.dir.path(), "later.zip", &[chatgpt_simple()]);
    import_chats(&only_simple, &data.folder()).unwrap();
    assert_eq!(transcript(&data.library(), BRANCHED).len(), 3);
}

#[test]
fn a_claude_ai_export_shows_the_branch_last_seen_with_tool_calls_apart() {
    let data = Data::new();
    let file = data.dir.path().join("conversations.json");
    std::fs::write(&file, claude_ai_conversations().to_string()).unwrap();
    let report = import_chats(&file, &data.folder()).unwrap();
    assert_eq!((report.source, report.added), (Some(Source::ClaudeAi), 1));
    let lib = data.library();
    let id = "0c3f4a2e-1111-4222-8333-944455566677";
    let info = lib.session_info(memory_bank_sessions::OpenArgs { session_id: Some(id.into()), ..Default::default() }).unwrap();
    assert_eq!((info.source, info.title.as_str()), (Source::ClaudeAi, "Billing service ownership"));
    assert_eq!(
        transcript(&lib, id),
        [
            ("c-q1".to_owned(), Role::User, "Who owns invoices?".to_owned()),
            ("c-a1".to_owned(), Role::Assistant, "The billing service owns invoices.".to_owned()),
            ("c-q2".to_owned(), Role::User, "And refunds?".to_owned()),
            ("c-a2".to_owned(), Role::Assistant, "Refunds too.".to_owned()),
        ]
    );
}

#[test]
fn an_unzipped_export_in_an_added_folder_is_read_as_it_is() {
    let data = Data::new();
    let folder = data.dir.path().join("unzipped");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("conversations.json"), json!([chatgpt_branched(1_767_225_670.0, None), chatgpt_simple()]).to_string()).unwrap();
    std::fs::write(folder.join("user.json"), json!({"id": "user-1"}).to_string()).unwrap();
    let roots = Roots::new(&data.env(), &[(Source::Chatgpt, folder.clone())]);
    let lib = Library::open(None, roots, None).unwrap();
    lib.refresh().unwrap();
    assert_eq!(transcript(&lib, BRANCHED).len(), 2);
    let all = lib.list_sessions(ListArgs { source: Some("chatgpt".into()), ..Default::default() }).unwrap();
    assert_eq!(all.total, 2);
}

#[test]
fn what_is_not_an_export_is_refused_and_nothing_is_kept() {
    let data = Data::new();
    let other_zip = data.dir.path().join("photos.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&other_zip).unwrap());
    zip.start_file("cat.jpg", zip::write::SimpleFileOptions::default()).unwrap();
    zip.write_all(b"\xff\xd8\xff").unwrap();
    zip.finish().unwrap();
    let not_json = data.dir.path().join("notes.txt");
    std::fs::write(&not_json, "just some notes").unwrap();
    let other_json = data.dir.path().join("list.json");
    std::fs::write(&other_json, r#"[{"name": "not a conversation"}]"#).unwrap();
    for file in [&other_zip, &not_json, &other_json] {
        match import_chats(file, &data.folder()) {
            Err(e @ ImportError::NotAnExport { .. }) => assert!(e.to_string().contains("Choose the .zip"), "{e}"),
            other => panic!("{}: {other:?}", file.display()),
        }
    }
    assert!(matches!(import_chats(&data.dir.path().join("missing.zip"), &data.folder()), Err(ImportError::Read { .. })));
    assert!(!data.folder().join("imports").exists(), "nothing kept");
}
