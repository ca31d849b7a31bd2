//! `ui/src/bindings.ts`, the TypeScript of the desktop IPC, is generated from the Rust
//! command types: this test fails while the committed file is stale, and rewrites it
//! when `UPDATE_BINDINGS=1` is set.

use memory_bank_desktop::bindings::{render, REGENERATE};

fn committed_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings.ts")
}

#[test]
fn the_committed_bindings_are_generated_from_the_rust_types() {
    let generated = render(memory_bank_app_lib::APP_COMMANDS).unwrap_or_else(|problem| panic!("{problem}"));
    let path = committed_path();
    if std::env::var_os("UPDATE_BINDINGS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(committed == generated, "ui/src/bindings.ts is stale: run `{REGENERATE}` and commit ui/src/bindings.ts");
}

#[test]
fn every_granted_command_has_its_argument_and_answer_types() {
    let generated = render(memory_bank_app_lib::APP_COMMANDS).unwrap();
    let map = generated.split("export type CommandTypes = {").nth(1).unwrap().split("\n};").next().unwrap();
    for command in memory_bank_app_lib::APP_COMMANDS {
        let line = map
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{command}: ")))
            .unwrap_or_else(|| panic!("{command} is not typed"));
        assert!(line.contains("args: ") && line.contains("answer: "), "{line}");
    }
    let missing = render(&["get_state", "not_a_command"]).unwrap_err();
    assert!(missing.contains("not_a_command"), "{missing}");
}
