//! The same behaviours checked for each agent: one generic check per behaviour, instantiated
//! per agent by `agent_tests!` so failures name the agent.

use std::fs;

use memory_bank_agent_install::{apply, plan_install, plan_remove, status, Agent, Change, Error};

use crate::fixtures::fixture;
use crate::{expand, read, spec, tree, Home};

macro_rules! agent_tests {
    ($($module:ident => $agent:expr),* $(,)?) => {$(
        mod $module {
            use super::*;
            #[test] fn absent_file_is_created_with_only_our_entry() { absent_file(&$agent) }
            #[test] fn file_with_comments_and_other_servers_keeps_them() { realistic_file(&$agent) }
            #[test] fn install_twice_second_plan_is_unchanged() { install_twice(&$agent) }
            #[test] fn remove_restores_original_bytes() { remove_restores(&$agent) }
            #[test] fn install_remove_on_absent_file_deletes_the_file_install_created() { absent_round_trip(&$agent) }
            #[test] fn remove_without_our_entry_is_a_no_op() { remove_not_installed(&$agent) }
            #[test] fn stale_entry_is_updated() { stale_entry(&$agent) }
            #[test] fn malformed_file_is_an_error_and_untouched() { malformed(&$agent) }
            #[test] fn dry_run_writes_nothing() { dry_run(&$agent) }
            #[test] fn apply_keeps_a_backup_of_previous_bytes() { backup(&$agent) }
            #[cfg(unix)]
            #[test] fn permissions_are_preserved() { permissions(&$agent) }
        }
    )*};
}

agent_tests! {
    claude_code => Agent::ClaudeCode,
    codex => Agent::Codex,
    opencode => Agent::Opencode,
    gemini => Agent::Gemini,
    claude_desktop => Agent::ClaudeDesktop,
    cursor => Agent::Cursor,
    vscode => Agent::VsCode,
    windsurf => Agent::Windsurf,
    zed => Agent::Zed,
    goose => Agent::Goose,
}

fn absent_file(agent: &Agent) {
    let home = Home::new();
    let plan = plan_install(*agent, &home.env, &spec()).unwrap();
    assert_eq!(plan.path, home.config_path(*agent));
    assert_eq!(plan.change, Change::Create);
    assert_eq!(plan.before, None);
    assert_eq!(plan.after.as_deref(), Some(expand(fixture(*agent).created).as_str()));
    assert!(plan.changed);
    assert!(plan.diff.starts_with("--- /dev/null\n"), "{}", plan.diff);
    let applied = apply(&plan).unwrap();
    assert!(applied.written);
    assert_eq!(applied.backup, None, "no previous bytes, no backup");
    assert_eq!(read(&plan.path), expand(fixture(*agent).created));
    let st = status(*agent, &home.env, &spec());
    assert!(st.detected && st.installed && st.entry_matches, "{st:?}");
}

fn realistic_file(agent: &Agent) {
    let home = Home::new();
    let f = fixture(*agent);
    let path = home.config(*agent, f.realistic);
    let plan = plan_install(*agent, &home.env, &spec()).unwrap();
    assert_eq!(plan.change, Change::Add);
    assert_eq!(plan.after.as_deref(), Some(expand(f.realistic_installed).as_str()), "{}", plan.diff);
    // The diff only adds lines (plus, for JSON, a comma after the previous last entry).
    let removed: Vec<&str> =
        plan.diff.lines().filter(|l| l.starts_with('-') && !l.starts_with("---")).collect();
    assert!(removed.iter().all(|l| l.trim_end().ends_with('}')), "{removed:?}");
    apply(&plan).unwrap();
    assert_eq!(read(&path), expand(f.realistic_installed));
}

fn install_twice(agent: &Agent) {
    let home = Home::new();
    let path = home.config(*agent, fixture(*agent).realistic);
    apply(&plan_install(*agent, &home.env, &spec()).unwrap()).unwrap();
    let installed = read(&path);
    let second = plan_install(*agent, &home.env, &spec()).unwrap();
    assert_eq!(second.change, Change::AlreadyInstalled);
    assert!(!second.changed);
    assert_eq!(second.diff, "");
    assert_eq!(second.after.as_deref(), Some(installed.as_str()));
    let applied = apply(&second).unwrap();
    assert!(!applied.written);
    assert_eq!(read(&path), installed);
}

fn remove_restores(agent: &Agent) {
    let f = fixture(*agent);
    for original in [f.realistic, f.no_container] {
        let home = Home::new();
        let path = home.config(*agent, original);
        apply(&plan_install(*agent, &home.env, &spec()).unwrap()).unwrap();
        assert_ne!(read(&path), original);
        let plan = plan_remove(*agent, &home.env).unwrap();
        assert_eq!(plan.change, Change::Remove);
        assert_eq!(plan.after.as_deref(), Some(original));
        apply(&plan).unwrap();
        assert_eq!(read(&path), original, "install + remove must give back the original bytes");
        let st = status(*agent, &home.env, &spec());
        assert!(!st.installed && !st.entry_matches && st.problem.is_none(), "{st:?}");
    }
}

fn absent_round_trip(agent: &Agent) {
    let home = Home::new();
    let path = home.config_path(*agent);
    let created = memory_bank_agent_install::created_path(&path);
    apply(&plan_install(*agent, &home.env, &spec()).unwrap()).unwrap();
    assert!(created.exists(), "install notes that it created the file");
    let plan = plan_remove(*agent, &home.env).unwrap();
    assert_eq!((plan.change, plan.after.clone()), (Change::Remove, None), "{}", plan.diff);
    let applied = apply(&plan).unwrap();
    assert!(applied.written && applied.deleted && applied.backup.is_none(), "{applied:?}");
    assert!(!path.exists() && !created.exists(), "a file install created goes again, with its note");
    let st = status(*agent, &home.env, &spec());
    assert!(!st.installed && st.problem.is_none(), "{st:?}");

    // Once the person has written their own things in it, it is theirs: it stays.
    apply(&plan_install(*agent, &home.env, &spec()).unwrap()).unwrap();
    let theirs = fixture(*agent).no_container;
    fs::write(&path, theirs).unwrap();
    apply(&plan_install(*agent, &home.env, &spec()).unwrap()).unwrap();
    let applied = apply(&plan_remove(*agent, &home.env).unwrap()).unwrap();
    assert!(!applied.deleted);
    assert_eq!(read(&path), theirs);
    assert!(!created.exists(), "the note goes: the file is the person's now");
}

fn remove_not_installed(agent: &Agent) {
    let home = Home::new();
    let none = plan_remove(*agent, &home.env).unwrap();
    assert_eq!((none.change, none.changed, none.after.clone()), (Change::NotInstalled, false, None));
    assert!(!apply(&none).unwrap().written);
    assert!(!home.config_path(*agent).exists(), "remove must not create the file");

    let original = fixture(*agent).realistic;
    let path = home.config(*agent, original);
    let plan = plan_remove(*agent, &home.env).unwrap();
    assert_eq!((plan.change, plan.changed), (Change::NotInstalled, false));
    apply(&plan).unwrap();
    assert_eq!(read(&path), original);
}

fn stale_entry(agent: &Agent) {
    let home = Home::new();
    let f = fixture(*agent);
    let path = home.config(*agent, f.stale);
    let st = status(*agent, &home.env, &spec());
    assert!(st.installed && !st.entry_matches, "{st:?}");
    let plan = plan_install(*agent, &home.env, &spec()).unwrap();
    assert_eq!(plan.change, Change::Update);
    assert_eq!(plan.after.as_deref(), Some(expand(f.stale_updated).as_str()), "{}", plan.diff);
    apply(&plan).unwrap();
    assert_eq!(read(&path), expand(f.stale_updated));
    assert!(status(*agent, &home.env, &spec()).entry_matches);
    assert!(!plan_install(*agent, &home.env, &spec()).unwrap().changed);
}

fn malformed(agent: &Agent) {
    let f = fixture(*agent);
    let (bad_syntax, line) = f.syntax_error;
    for text in [bad_syntax, f.wrong_shape] {
        let home = Home::new();
        let path = home.config(*agent, text);
        let files = tree(home.dir.path());
        let install = plan_install(*agent, &home.env, &spec()).unwrap_err();
        let remove = plan_remove(*agent, &home.env).unwrap_err();
        for err in [&install, &remove] {
            let message = err.to_string();
            assert!(message.contains(&path.display().to_string()), "names the file: {message}");
            assert!(message.contains("by hand"), "says what to do: {message}");
            match err {
                Error::Syntax { line: l, column, .. } => {
                    assert_eq!(text, bad_syntax);
                    assert_eq!(*l, Some(line), "{message}");
                    assert!(column.is_some(), "{message}");
                }
                Error::Shape { .. } => assert_eq!(text, f.wrong_shape),
                other => panic!("unexpected error {other:?}"),
            }
        }
        let st = status(*agent, &home.env, &spec());
        assert!(st.problem.is_some() && !st.installed, "{st:?}");
        assert_eq!(read(&path), text, "a malformed file is left untouched");
        assert_eq!(tree(home.dir.path()), files, "no temp or backup file left behind");
    }
}

fn dry_run(agent: &Agent) {
    let home = Home::new();
    let plan = plan_install(*agent, &home.env, &spec()).unwrap();
    assert!(plan.changed && !plan.diff.is_empty());
    assert!(tree(home.dir.path()).is_empty(), "planning an absent file creates nothing");

    let path = home.config(*agent, fixture(*agent).realistic);
    let files = tree(home.dir.path());
    let install = plan_install(*agent, &home.env, &spec()).unwrap();
    assert!(install.changed && install.diff.contains("+"));
    assert_eq!(tree(home.dir.path()), files);
    assert_eq!(read(&path), fixture(*agent).realistic);
}

fn backup(agent: &Agent) {
    let home = Home::new();
    let original = fixture(*agent).realistic;
    let path = home.config(*agent, original);
    let applied = apply(&plan_install(*agent, &home.env, &spec()).unwrap()).unwrap();
    let backup = applied.backup.expect("a backup of the previous file");
    assert_eq!(backup, memory_bank_agent_install::backup_path(&path));
    assert!(backup.to_string_lossy().ends_with(".memory-bank.bak"));
    assert_eq!(fs::read_to_string(&backup).unwrap(), original);
    // The backup stays the person's original through remove and a second install.
    let applied = apply(&plan_remove(*agent, &home.env).unwrap()).unwrap();
    assert_eq!(applied.backup.as_deref(), Some(backup.as_path()));
    apply(&plan_install(*agent, &home.env, &spec()).unwrap()).unwrap();
    assert_eq!(fs::read_to_string(&backup).unwrap(), original);
}

fn permissions(agent: &Agent) {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;

    // Under an open umask: what is made is private by how it is made (issue 28, item 8).
    memory_bank_private_files::testing::open_umask();
    let home = Home::new();
    let created = apply(&plan_install(*agent, &home.env, &spec()).unwrap()).unwrap();
    assert!(created.written);
    let config = home.config_path(*agent);
    assert_eq!(mode(&config), 0o600, "a new config file is private");
    let mut folder = config.parent().unwrap();
    while folder != home.dir.path() {
        assert_eq!(mode(folder), 0o700, "a folder made for it is private: {}", folder.display());
        folder = folder.parent().unwrap();
    }

    for wanted in [0o600, 0o640, 0o644] {
        let home = Home::new();
        let path = home.config(*agent, fixture(*agent).realistic);
        fs::set_permissions(&path, fs::Permissions::from_mode(wanted)).unwrap();
        let applied = apply(&plan_install(*agent, &home.env, &spec()).unwrap()).unwrap();
        assert_eq!(mode(&path), wanted);
        assert_eq!(mode(&applied.backup.unwrap()), 0o600, "the backup is ours: private whatever the file's mode");
        apply(&plan_remove(*agent, &home.env).unwrap()).unwrap();
        assert_eq!(mode(&path), wanted);
    }
}
