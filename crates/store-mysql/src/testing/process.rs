//! Starting the throwaway database servers of the tests (one MariaDB, or the nodes of
//! a Galera cluster) so that they never outlive the test process, and cleaning up
//! after test processes that were killed.

use std::io;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};

/// Looks for the first of `names` on PATH and in the sbin folders, which are not on a
/// non-root user's PATH on Debian.
pub(crate) fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    dirs.extend(["/usr/sbin", "/usr/local/sbin", "/usr/local/bin", "/usr/bin"].map(PathBuf::from));
    names.iter().find_map(|name| dirs.iter().map(|d| d.join(name)).find(|p| p.is_file()))
}

/// Removes the folders named `<prefix><pid>-…` in the temp folder whose test process no
/// longer exists.
pub(crate) fn sweep_stale_dirs(prefix: &str) {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix(prefix).and_then(|rest| rest.split('-').next()) else { continue };
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

type SpawnRequest = (Command, mpsc::Sender<io::Result<Child>>);

/// Spawns `command` so that the kernel kills it when this process dies.
///
/// `PR_SET_PDEATHSIG` fires when the *thread* that forked the child exits, and test
/// threads (and tokio's blocking threads) come and go; so every server is forked by
/// one keeper thread that lives as long as the process. The signal is set in
/// `pre_exec`, which runs after `Command::uid` has switched the account (a later change
/// of credentials would clear it).
pub(crate) fn spawn_tied_to_this_process(mut command: Command) -> io::Result<Child> {
    static KEEPER: OnceLock<Mutex<mpsc::Sender<SpawnRequest>>> = OnceLock::new();
    let parent = std::process::id();
    // SAFETY: the closure runs between fork and exec and only makes async-signal-safe
    // calls (prctl, getppid).
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                return Err(io::Error::last_os_error());
            }
            // The parent may have died before prctl took effect.
            if libc::getppid() as u32 != parent {
                return Err(io::Error::other("the test process exited while the database server was starting"));
            }
            Ok(())
        });
    }
    let keeper = KEEPER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<SpawnRequest>();
        let spawned = std::thread::Builder::new().name("database-keeper".into()).spawn(move || {
            // The sender lives in a static, so this loop (and the thread) never ends.
            for (mut command, reply) in rx {
                let _ = reply.send(command.spawn());
            }
        });
        if let Err(e) = spawned {
            eprintln!("cannot start the database keeper thread: {e}");
        }
        Mutex::new(tx)
    });
    let (reply_tx, reply_rx) = mpsc::channel();
    keeper
        .lock()
        .map_err(|_| io::Error::other("the database keeper lock is poisoned"))?
        .send((command, reply_tx))
        .map_err(|_| io::Error::other("the database keeper thread is gone"))?;
    reply_rx.recv().map_err(|_| io::Error::other("the database keeper thread did not answer"))?
}

/// `--tmpdir` inside the server's own folder. Why: a starting server deletes every
/// `#sql*` file in its tmpdir as left over from a crash, so servers sharing `/tmp` (tests
/// running in parallel) deleted each other's temporary tables, and `mariadb-install-db`
/// failed with "Unknown table 'mysql.tmp_user_sys'".
pub(crate) fn own_tmpdir(dir: &Path) -> Result<String, String> {
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    Ok(format!("--tmpdir={}", tmp.display()))
}
