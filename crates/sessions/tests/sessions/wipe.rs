//! A forgotten archived session leaves the archive's bytes (issue 28, item 9): the
//! archive may hold the only copy of a transcript, and forgetting it must not leave that
//! text in the file's free pages or in its WAL. (Plaintext, where the bytes can be read;
//! an encrypted archive's pages are ciphertext either way.)

use memory_bank_sessions::testing as kit;
use memory_bank_sessions::{archive_path, ForgetArgs, Library, Roots};

/// The archive file and everything SQLite keeps beside it.
fn archive_files(index: &std::path::Path) -> Vec<std::path::PathBuf> {
    let archive = archive_path(index);
    ["", "-wal", "-shm", "-journal"].iter().map(|s| std::path::PathBuf::from(format!("{}{s}", archive.display()))).collect()
}

fn holding(files: &[std::path::PathBuf], needle: &str) -> Vec<std::path::PathBuf> {
    files.iter().filter(|f| std::fs::read(f).unwrap_or_default().windows(needle.len()).any(|w| w == needle.as_bytes())).cloned().collect()
}

#[test]
fn a_forgotten_archived_session_leaves_no_text_in_the_archive_file_or_its_wal() {
    let h = kit::TempHome::new();
    let secret = "the zqforgottenvaultword is under the third stair ".repeat(40);
    let kept = "the zqkeptsessionword stays";
    let gone = h.write("-work-app", "s-forget", &[kit::claude_line("user", "u1", &secret, "2026-11-01T10:00:00.000Z")]);
    let stays = h.write("-work-app", "s-keep", &[kit::claude_line("user", "u2", kept, "2026-11-01T11:00:00.000Z")]);
    // Plaintext: the bytes must be readable for the scan to mean anything.
    let lib = Library::open(Some(&h.index), Roots::new(&kit::env_with_home(&h.home), &[]), None).unwrap();
    lib.refresh().unwrap();
    std::fs::remove_file(&gone).unwrap();
    std::fs::remove_file(&stays).unwrap();
    assert_eq!(lib.refresh().unwrap().sessions_archived, 2);
    let files = archive_files(&h.index);
    assert!(!holding(&files, "zqforgottenvaultword").is_empty(), "the control: the archived text is in the archive");

    lib.forget_session(ForgetArgs { session_id: Some("s-forget".into()), source: None }).unwrap();
    assert_eq!(holding(&files, "zqforgottenvaultword"), Vec::<std::path::PathBuf>::new(), "open");
    assert!(!holding(&files, "zqkeptsessionword").is_empty(), "the scan finds what stays");
    drop(lib);
    assert_eq!(holding(&files, "zqforgottenvaultword"), Vec::<std::path::PathBuf>::new(), "closed");
}
