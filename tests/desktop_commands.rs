//! The Tauri command layer on Tauri's mock runtime (no window), against the real
//! embedded service: commands answer, deletes are owned by Rust, and preferences
//! persist in the store file across restarts.

use std::sync::Arc;
use std::time::Duration;

use memory_bank_contract::validate::validate_save;
use memory_bank_contract::wire::SaveMemoryRequest;
use memory_bank_store::Bank;
use memory_bank_store_sqlite::SqliteStore;
use serde_json::json;

#[path = "support/mock_app.rs"]
mod mock_app;
use mock_app::call;

#[test]
fn commands_work_over_the_local_service_and_prefs_survive_a_restart() {
    keyring::set_default_credential_builder(keyring::mock::default_credential_builder());
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("data");
    // SAFETY: set before any thread of this test binary reads the environment.
    unsafe {
        std::env::set_var("XDG_DATA_HOME", home.path());
        std::env::set_var("MEMORY_BANK_DATA_DIR", &data);
        std::env::remove_var("MEMORY_BANK_URL");
        std::env::remove_var("MEMORY_BANK_TOKEN");
    }

    let (app, window) = mock_app::start("dev.memorybank.test");
    let state = call(&window, "get_state", json!({})).unwrap();
    assert_eq!(state["account"], json!({"kind": "local"}));
    assert_eq!(state["prefs"], json!({"memoryEnabled": true, "language": null, "sessionRoots": [], "keepArchivedSessions": true, "wordsOnly": false, "memoryScope": "all"}));
    let org = state["activeOrgId"].as_str().unwrap().to_owned();
    let user = state["user"]["id"].as_str().unwrap().to_owned();

    // Seed through the same database file the embedded service uses.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let bank = rt.block_on(async {
        // The app encrypted its bank with a key it made in the (mock) keyring: the same
        // key must open it here, and nothing else.
        let url = format!("sqlite://{}", data.join("memory.db").display());
        assert!(SqliteStore::open(&url).await.is_err(), "the local bank is encrypted");
        let store = memory_bank_db_key::open_bank(&url, &memory_bank_access::default_key_source(&data, None)).await.unwrap();
        Bank::new(Arc::new(store))
    });
    let mut ids = Vec::new();
    for content in ["<img src=x onerror=alert(1)>", "second memory", "third memory"] {
        let input = validate_save(SaveMemoryRequest { content: content.into(), ..Default::default() }).unwrap();
        ids.push(rt.block_on(bank.save(&user, &org, input)).unwrap().id);
    }

    let page = call(&window, "list_memories", json!({"orgId": org, "limit": 2})).unwrap();
    assert_eq!(page["memories"].as_array().unwrap().len(), 2);
    let next = call(&window, "list_memories", json!({"orgId": org, "limit": 2, "cursor": page["nextCursor"]})).unwrap();
    assert_eq!(next["memories"][0]["content"], "<img src=x onerror=alert(1)>");
    let found = call(&window, "search_memories", json!({"orgId": org, "q": "second"})).unwrap();
    assert_eq!(found["results"][0]["id"], ids[1].as_str());
    let bad = call(&window, "search_memories", json!({"orgId": org, "q": "   "})).unwrap_err();
    assert_eq!(bad["code"], "invalid_request");
    assert!(bad["message"].as_str().unwrap().contains("q is only whitespace"), "{bad}");
    let wrong_org = call(&window, "list_memories", json!({"orgId": "org_01jdq0000000000000000000"})).unwrap_err();
    assert_eq!(wrong_org["code"], "organization_not_found");

    // Settings → Search → "Search by words only": the local bank is opened again without
    // the model (no vectors made), and search and its status say so; then back on.
    let status = call(&window, "search_status", json!({"orgId": org})).unwrap();
    assert_ne!(status["meaning"], "off", "{status}");
    let state = call(&window, "set_prefs", json!({"wordsOnly": true})).unwrap();
    assert_eq!(state["prefs"]["wordsOnly"], true);
    let status = call(&window, "search_status", json!({"orgId": org})).unwrap();
    assert_eq!((status["meaning"].as_str(), status["memories"].as_u64()), (Some("off"), Some(3)), "{status}");
    let found = call(&window, "search_memories", json!({"orgId": org, "q": "second"})).unwrap();
    assert_eq!((found["results"][0]["id"].as_str(), found["results"][0]["matched"].as_str()), (Some(ids[1].as_str()), Some("words")));
    let state = call(&window, "set_prefs", json!({"wordsOnly": false})).unwrap();
    assert_eq!(state["prefs"]["wordsOnly"], false);
    assert_ne!(call(&window, "search_status", json!({"orgId": org})).unwrap()["meaning"], "off");

    // Deletes are held by Rust: undo sends nothing, flush sends the rest now.
    let scheduled = call(&window, "schedule_delete", json!({"orgId": org, "id": ids[1]})).unwrap();
    assert_eq!(scheduled["id"], ids[1].as_str());
    call(&window, "schedule_delete", json!({"orgId": org, "id": ids[2]})).unwrap();
    assert_eq!(call(&window, "undo_delete", json!({"id": ids[1]})).unwrap(), json!({"undone": true}));
    assert_eq!(call(&window, "undo_delete", json!({"id": ids[1]})).unwrap(), json!({"undone": false}));
    call(&window, "flush_deletes", json!({})).unwrap();
    let left = call(&window, "list_memories", json!({"orgId": org})).unwrap();
    let contents: Vec<&str> = left["memories"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap()).collect();
    assert_eq!(contents, ["second memory", "<img src=x onerror=alert(1)>"]);

    // A pending delete is sent when the app shuts down.
    call(&window, "schedule_delete", json!({"orgId": org, "id": ids[0]})).unwrap();
    let prefs = call(&window, "set_prefs", json!({"memoryEnabled": false, "language": "zh-CN", "keepArchivedSessions": false, "memoryScope": "team"})).unwrap();
    assert_eq!(prefs["prefs"], json!({"memoryEnabled": false, "language": "zh-CN", "sessionRoots": [], "keepArchivedSessions": false, "wordsOnly": false, "memoryScope": "team"}));
    assert_eq!(call(&window, "set_prefs", json!({"memoryScope": "everything"})).unwrap_err()["code"], "invalid_request");
    let rejected = call(&window, "set_prefs", json!({"language": "xx"})).unwrap_err();
    assert_eq!(rejected["code"], "invalid_request");
    let follow_os = call(&window, "set_prefs", json!({"language": null})).unwrap();
    assert_eq!(follow_os["prefs"], json!({"memoryEnabled": false, "language": null, "sessionRoots": [], "keepArchivedSessions": false, "wordsOnly": false, "memoryScope": "team"}), "null means follow the OS");
    let kept = call(&window, "set_prefs", json!({"language": "zh-CN"})).unwrap();
    assert_eq!(call(&window, "set_prefs", json!({"memoryEnabled": false})).unwrap()["prefs"], kept["prefs"], "absent = unchanged");
    memory_bank_app_lib::shutdown(app.handle());
    drop(window);
    drop(app);
    std::thread::sleep(Duration::from_millis(100));
    let remaining = rt.block_on(bank.list(&user, &memory_bank_contract::validate::parse_list(None, None).unwrap())).unwrap();
    assert_eq!(remaining.memories.len(), 1, "the pending delete reached the database at shutdown");
    let file = std::fs::read_to_string(data.join(memory_bank_app_lib::prefs_store::FILE)).unwrap();
    assert!(file.contains("zh-CN"), "{file}");

    // Restart: preferences come back from the store file; the local account is the same.
    let (app, window) = mock_app::start("dev.memorybank.test");
    let again = call(&window, "get_state", json!({})).unwrap();
    assert_eq!(again["prefs"], json!({"memoryEnabled": false, "language": "zh-CN", "sessionRoots": [], "keepArchivedSessions": false, "wordsOnly": false, "memoryScope": "team"}));
    assert_eq!(again["user"]["id"], user.as_str());
    assert_eq!(again["activeOrgId"], org.as_str());
    memory_bank_app_lib::shutdown(app.handle());
}

/// The window's capability grants event listen/unlisten, exactly the app's own commands
/// (no `core:default`: no image, menu, tray, window or path APIs) and the opener's
/// `open_url` scoped to http, https and mailto (no `opener:default`: no `open_path`, no
/// `reveal_item_in_dir`, no `tel:`), and every command the UI invokes is among them.
#[test]
fn the_capability_grants_only_what_the_ui_calls() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let capability: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("src-tauri/capabilities/default.json")).unwrap(),
    )
    .unwrap();
    let (plain, scoped): (Vec<_>, Vec<_>) =
        capability["permissions"].as_array().unwrap().iter().partition(|p| p.is_string());
    assert_eq!(
        scoped,
        [&json!({
            "identifier": "opener:allow-open-url",
            "allow": [{"url": "http://*"}, {"url": "https://*"}, {"url": "mailto:*"}],
        })],
        "the only scoped permission: links in http, https and mailto"
    );
    let granted: std::collections::BTreeSet<String> =
        plain.iter().map(|p| p.as_str().unwrap().to_owned()).collect();
    let mut expected: std::collections::BTreeSet<String> = memory_bank_app_lib::APP_COMMANDS
        .iter()
        .map(|c| format!("allow-{}", c.replace('_', "-")))
        .collect();
    expected.extend([
        "core:event:allow-listen".to_owned(),
        "core:event:allow-unlisten".to_owned(),
    ]);
    assert_eq!(granted, expected);

    let ipc = std::fs::read_to_string(root.join("ui/src/ipc.ts")).unwrap();
    let invoked: Vec<&str> = ipc
        .split("call(\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    assert!(invoked.len() >= 20, "{invoked:?}");
    for command in invoked {
        assert!(
            memory_bank_app_lib::APP_COMMANDS.contains(&command),
            "the UI invokes {command}, which is not granted"
        );
    }
}
