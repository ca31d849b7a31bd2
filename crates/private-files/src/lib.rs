//! Every file Memory Bank creates is its person's: memories, session titles and
//! transcripts, keys, preferences. So on Unix each file it creates is `0600` and each
//! folder `0700`, by construction: the code that creates one goes through this crate,
//! which gives the mode at creation (never a `chmod` after, which would leave a moment
//! where the file is readable), whatever the process's umask. The app and the CLI also
//! set umask `077` ([`restrict_new_files`]) for what others create on their behalf (the
//! web view's storage), and tighten their data folder when a release before this made it
//! readable ([`secure_data_dir`]). The other way round, a file that holds a secret (the
//! bank's key, `serve`'s metrics token) is read only while it is private
//! ([`read_private`]).
//!
//! SQLite makes a database's companions (`-wal`, `-shm`, `-journal`) with the database
//! file's own mode, so a database created empty here first ([`create_sqlite_file`]) has
//! private companions too.
//!
//! On Windows files and folders take the ACL of the folder they are made in, and a
//! user's profile folders are private to that user already: nothing is changed there.

mod dir;

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

pub use dir::secure_data_dir;

/// The mode of every file we create.
pub const FILE_MODE: u32 = 0o600;
/// The mode of every folder we create.
pub const DIR_MODE: u32 = 0o700;

/// Makes new files and folders of this process private to its user (umask `077`), for
/// what other code creates (a web view's storage, SQLite's temporary files). Call first
/// thing, before other threads start creating files.
pub fn restrict_new_files() {
    #[cfg(unix)]
    // SAFETY: umask only swaps the process's file-creation mask; it cannot fail.
    unsafe {
        libc::umask(0o077);
    }
}

/// Creates `dir` and any missing parents, each new one private (`0700`). Folders that
/// exist are left as they are: a parent may be shared on purpose (`/srv/…`).
pub fn create_dir_all(dir: &Path) -> io::Result<()> {
    if dir.as_os_str().is_empty() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, DIR_MODE);
    builder.create(dir)
}

/// Creates the parent folder of `path` if needed ([`create_dir_all`]).
pub fn create_parent_dir(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(parent) => create_dir_all(parent),
        None => Ok(()),
    }
}

/// Open options whose file, when they create it, is private (`0600`); the caller says
/// how to open (`write`, `create`, `create_new`, …). A file that exists keeps its mode.
pub fn open_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    options
}

/// Why [`read_private`] refused a file.
#[derive(Debug)]
pub enum ReadPrivateError {
    /// It cannot be read, or is not a file; the reason in words.
    Unreadable(String),
    /// Other users may read it (on Unix: a group or other permission bit is set).
    NotPrivate {
        /// Its permission bits.
        mode: u32,
    },
}

/// The text of a file that holds a secret (the bank's key, `serve`'s metrics token),
/// refused when other users can read it: a secret others could already read is no
/// secret, and saying so beats serving with it. Every secret file is read through this
/// one check.
pub fn read_private(path: &Path) -> Result<String, ReadPrivateError> {
    let unreadable = |e: io::Error| ReadPrivateError::Unreadable(e.to_string());
    let metadata = std::fs::metadata(path).map_err(unreadable)?;
    if !metadata.is_file() {
        return Err(ReadPrivateError::Unreadable("it is not a file".into()));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = metadata.permissions().mode() & 0o7777;
        if mode & 0o077 != 0 {
            return Err(ReadPrivateError::NotPrivate { mode });
        }
    }
    std::fs::read_to_string(path).map_err(unreadable)
}

/// Creates (or truncates) `path` for writing, private if it is new.
pub fn create_file(path: &Path) -> io::Result<File> {
    open_options().write(true).create(true).truncate(true).open(path)
}

/// Creates the SQLite database file `path` empty and private, with its folder, unless it
/// exists already (then nothing changes: an existing database keeps its mode). SQLite
/// reads an empty file as a new database, and makes `-wal`, `-shm` and `-journal` beside
/// it with the database file's mode, so they are private as well. Call it before the
/// first connection that may create the database.
pub fn create_sqlite_file(path: &Path) -> io::Result<()> {
    create_parent_dir(path)?;
    match open_options().write(true).create_new(true).open(path) {
        Ok(_) => Ok(()),
        // Another process (or an earlier run) made it: SQLite opens it as it is.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// A temporary file in `dir` named `prefix…suffix`, private, to be written and then
/// renamed over its destination ([`tempfile::NamedTempFile::persist`]); removed if
/// dropped first.
pub fn temp_file_in(dir: &Path, prefix: &str, suffix: &str) -> io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix).suffix(suffix);
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(FILE_MODE));
    builder.tempfile_in(dir)
}

#[cfg(feature = "testing")]
pub mod testing;

#[cfg(all(test, unix))]
mod tests;
