//! Each helper makes what it creates private under an open umask (`022`), so by its own
//! mode and not by the mask; and leaves what exists as it is.

use std::os::unix::fs::PermissionsExt as _;

use crate::testing::{mode, not_private, open_umask};

fn set_mode(path: &std::path::Path, bits: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(bits)).unwrap();
}

#[test]
fn new_folders_are_private_and_existing_ones_keep_their_mode() {
    open_umask();
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    set_mode(&shared, 0o755);
    crate::create_dir_all(&shared.join("a/b")).unwrap();
    assert_eq!(mode(&shared.join("a")), 0o700, "each new level");
    assert_eq!(mode(&shared.join("a/b")), 0o700);
    assert_eq!(mode(&shared), 0o755, "a folder that was there is not ours to change");
    crate::create_dir_all(&shared.join("a/b")).unwrap();
    crate::create_parent_dir(&shared.join("c/file")).unwrap();
    assert_eq!(mode(&shared.join("c")), 0o700);
}

#[test]
fn created_files_are_private_and_existing_ones_keep_their_mode() {
    open_umask();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.json");
    std::io::Write::write_all(&mut crate::create_file(&path).unwrap(), b"{}").unwrap();
    assert_eq!(mode(&path), 0o600);

    let theirs = dir.path().join("theirs.txt");
    std::fs::write(&theirs, "x").unwrap();
    assert_eq!(mode(&theirs), 0o644, "the control: a file made without us, under this umask");
    crate::create_file(&theirs).unwrap();
    assert_eq!(mode(&theirs), 0o644, "rewriting a file keeps its mode");
    crate::open_options().append(true).open(&theirs).unwrap();
    assert_eq!(mode(&theirs), 0o644);
}

#[test]
fn a_sqlite_file_is_created_empty_and_private_and_an_existing_one_is_left_alone() {
    open_umask();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new/memory.db");
    crate::create_sqlite_file(&path).unwrap();
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&dir.path().join("new")), 0o700);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 0, "an empty file is a new database to SQLite");

    let existing = dir.path().join("old.db");
    std::fs::write(&existing, b"SQLite format 3\0 and pages").unwrap();
    set_mode(&existing, 0o640);
    crate::create_sqlite_file(&existing).unwrap();
    assert_eq!(mode(&existing), 0o640);
    assert_eq!(std::fs::read(&existing).unwrap(), b"SQLite format 3\0 and pages", "never truncated");
}

#[test]
fn temporary_files_are_private_and_stay_so_when_renamed_into_place() {
    open_umask();
    let dir = tempfile::tempdir().unwrap();
    let mut file = crate::temp_file_in(dir.path(), ".memory-bank-export-", ".tmp").unwrap();
    std::io::Write::write_all(&mut file, b"line\n").unwrap();
    assert_eq!(mode(file.path()), 0o600);
    let name = file.path().file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with(".memory-bank-export-") && name.ends_with(".tmp"), "{name}");
    let target = dir.path().join("export.jsonl");
    file.persist(&target).unwrap();
    assert_eq!(mode(&target), 0o600);
}

#[test]
fn a_data_folder_made_readable_is_tightened_whole() {
    open_umask();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(data.join("webview/cache")).unwrap();
    std::fs::write(data.join("memory.db"), b"").unwrap();
    std::fs::write(data.join("webview/cache/page"), b"").unwrap();
    for folder in [&data, &data.join("webview"), &data.join("webview/cache")] {
        set_mode(folder, 0o755);
    }
    std::os::unix::fs::symlink("/etc/hostname", data.join("link")).unwrap();
    assert_eq!(not_private(&data).len(), 5, "the control: {:?}", not_private(&data));
    crate::secure_data_dir(&data).unwrap();
    assert_eq!(not_private(&data), vec![]);
    assert_ne!(mode(std::path::Path::new("/etc/hostname")) & 0o044, 0, "a symlink's target is not followed");
}
