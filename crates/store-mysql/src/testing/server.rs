//! A throwaway MariaDB server: its own data folder, a free loopback port, started
//! and stopped by PID.
//!
//! A test process may crash or be killed, so the server must never outlive it:
//! it is spawned with `PR_SET_PDEATHSIG` (the kernel kills it when its parent goes),
//! the folder of a server whose test process is gone is swept on the next start,
//! and the shared server is stopped by an exit hook.

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::process::{find_program, own_tmpdir, spawn_tied_to_this_process, sweep_stale_dirs};

/// How long a starting server may take to accept connections (crash recovery after
/// a kill included) on a loaded machine.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// Prefix of the temporary folders; the test process's PID follows it.
const DIR_PREFIX: &str = "memory-bank-mariadb-";

/// What to do when no server binary can be found.
pub const INSTALL_HINT: &str = "install MariaDB with `apt-get install mariadb-server mariadb-client` \
    (scripts/test.sh does this), or set MEMORY_BANK_TEST_MYSQL_URL=mysql://user:password@host:3306 \
    to use a server you already run";

/// A running (or deliberately killed) throwaway MariaDB server.
pub struct MariaDb {
    dir: tempfile::TempDir,
    port: u16,
    child: Option<Child>,
    /// Options given to [`MariaDb::start_with`], kept for restarts.
    extra_args: Vec<String>,
}

impl MariaDb {
    /// Creates a data folder with `mariadb-install-db` and starts `mariadbd` on a
    /// free loopback port. Root connects over TCP with an empty password. The server
    /// runs with default full-text settings (minimum token size 3, stopwords on).
    pub fn start() -> Result<Self, String> {
        Self::start_with(&[])
    }

    /// Like [`Self::start`], with `extra_args` passed to `mariadbd` after the test
    /// settings, so they override them (the server takes the last value of an option).
    /// The benchmark uses this for a production-sized buffer pool
    /// (`--innodb-buffer-pool-size=1G`): the tests' 128 MB would measure disk reads.
    pub fn start_with(extra_args: &[String]) -> Result<Self, String> {
        sweep_stale_dirs(DIR_PREFIX);
        let server = find_program(&["mariadbd", "mysqld"]).ok_or_else(|| format!("mariadbd was not found; {INSTALL_HINT}"))?;
        let install = find_program(&["mariadb-install-db", "mysql_install_db"])
            .ok_or_else(|| format!("mariadb-install-db was not found; {INSTALL_HINT}"))?;
        let dir = tempfile::Builder::new()
            .prefix(&format!("{DIR_PREFIX}{}-", std::process::id()))
            .tempdir()
            .map_err(|e| format!("cannot create a temporary folder for MariaDB: {e}"))?;
        let mut args = vec![
            "--no-defaults".to_owned(),
            format!("--datadir={}", dir.path().join("data").display()),
            own_tmpdir(dir.path())?,
        ];
        args.extend(root_user_flag());
        args.extend(["--auth-root-authentication-method=normal".to_owned(), "--skip-test-db".to_owned()]);
        let installed = Command::new(&install)
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", install.display()))?;
        if !installed.status.success() {
            return Err(format!(
                "{} failed ({}): {}{}",
                install.display(),
                installed.status,
                String::from_utf8_lossy(&installed.stdout),
                String::from_utf8_lossy(&installed.stderr)
            ));
        }
        let mut db = Self { dir, port: 0, child: None, extra_args: extra_args.to_vec() };
        // A port picked free may be taken before the server binds it: try a few.
        let mut last_error = String::new();
        for _ in 0..3 {
            db.port = free_port()?;
            match db.launch(&server) {
                Ok(()) => return Ok(db),
                Err(e) => last_error = e,
            }
        }
        Err(last_error)
    }

    /// The server's data folder (its tablespaces, redo log, undo logs).
    pub fn data_dir(&self) -> std::path::PathBuf {
        self.dir.path().join("data")
    }

    /// The loopback port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `mysql://root@127.0.0.1:<port>`, without a database.
    pub fn server_url(&self) -> String {
        format!("mysql://root@127.0.0.1:{}", self.port)
    }

    /// The server's process id while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Kills the server at once (SIGKILL, like a crash) and waits for it to exit.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops the server and starts it again on the same port and data folder with
    /// `extra_args` instead of the ones it was started with (turning encryption on for a
    /// server that has tables already, say).
    pub fn restart_with(&mut self, extra_args: &[String]) -> Result<(), String> {
        self.extra_args = extra_args.to_vec();
        self.restart()
    }

    /// Starts the server again on the same port and data folder (InnoDB recovers
    /// whatever the kill interrupted).
    pub fn restart(&mut self) -> Result<(), String> {
        self.kill();
        let server = find_program(&["mariadbd", "mysqld"]).ok_or_else(|| format!("mariadbd was not found; {INSTALL_HINT}"))?;
        self.launch(&server)
    }

    fn launch(&mut self, server: &Path) -> Result<(), String> {
        let dir = self.dir.path();
        let mut command = Command::new(server);
        command.arg("--no-defaults").args(root_user_flag()).args([
            format!("--datadir={}", dir.join("data").display()),
            own_tmpdir(dir)?,
            format!("--socket={}", dir.join("mariadb.sock").display()),
            format!("--pid-file={}", dir.join("mariadb.pid").display()),
            format!("--log-error={}", dir.join("error.log").display()),
            format!("--port={}", self.port),
            "--bind-address=127.0.0.1".to_owned(),
            "--skip-name-resolve".to_owned(),
            "--skip-log-bin".to_owned(),
            "--max-connections=1000".to_owned(),
            "--character-set-server=utf8mb4".to_owned(),
            "--innodb-buffer-pool-size=128M".to_owned(),
            "--innodb-log-file-size=16M".to_owned(),
            // No fsync per commit (speed), but each commit still reaches the OS, so
            // killing the server (the restart tests) loses nothing committed.
            "--innodb-flush-log-at-trx-commit=2".to_owned(),
            "--innodb-doublewrite=0".to_owned(),
        ]);
        command.args(&self.extra_args);
        command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
        let mut child = spawn_tied_to_this_process(command).map_err(|e| format!("cannot start {}: {e}", server.display()))?;
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("mariadbd exited ({status}) while starting: {}", self.log_tail()));
            }
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                self.child = Some(child);
                return Ok(());
            }
            if started.elapsed() > START_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("mariadbd did not accept connections within {START_TIMEOUT:?}: {}", self.log_tail()));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(15)..].join("\n")
    }
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        // Stop by PID before the folder goes.
        self.kill();
    }
}

/// `--user=root` when running as root: mariadbd refuses to run as root otherwise.
fn root_user_flag() -> Option<String> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    (unsafe { libc::geteuid() } == 0).then(|| "--user=root".to_owned())
}

fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind(("127.0.0.1", 0)).map_err(|e| format!("cannot find a free loopback port: {e}"))?;
    listener.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

