// The app's own commands, as the ACL knows them: `build.rs` declares them in the app
// manifest (so each needs a permission) and `capabilities/default.json` grants
// `allow-<name>` for each; a test checks the capability grants exactly these.
pub const APP_COMMANDS: &[&str] = &[
    "get_state",
    "set_active_org",
    "set_prefs",
    "sign_in_team",
    "use_local_account",
    "sign_out",
    "list_memories",
    "search_memories",
    "schedule_delete",
    "undo_delete",
    "flush_deletes",
    "list_sessions",
    "session_facets",
    "open_session",
    "find_session",
    "read_transcript",
    "latest_message",
    "session_activity",
    "search_messages",
    "save_memory",
    "set_session_roots",
];
