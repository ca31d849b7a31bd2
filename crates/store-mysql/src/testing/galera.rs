//! A throwaway MariaDB Galera cluster: several `mariadbd` nodes on loopback ports,
//! each with its own data folder, replicating through Debian's `galera-4` provider.
//!
//! Like [`super::MariaDb`], no node may outlive the test process: each is spawned with
//! `PR_SET_PDEATHSIG` from one keeper thread, the folders of a cluster whose process is
//! gone are swept on the next start, and dropping the cluster kills every node. A node
//! that dies mid state transfer takes its transfer script (and the script its rsync)
//! with it: the script watches its parent.
//!
//! The first node bootstraps the cluster (`--wsrep-new-cluster`) from a data folder made
//! by `mariadb-install-db`; the others start with an empty folder and receive a full
//! copy by rsync (SST, `wsrep_sst_rsync`, needing only the `rsync` package). A node
//! killed and started again recovers its position from InnoDB and catches up with an
//! incremental transfer (IST) from a donor's write-set cache.

use std::ffi::CString;
use std::future::Future;
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sqlx::{Connection as _, MySqlConnection};

use super::process::{find_program, own_tmpdir, spawn_tied_to_this_process, sweep_stale_dirs};

/// The wsrep provider of Debian's `galera-4` package.
pub const GALERA_PROVIDER: &str = "/usr/lib/galera/libgalera_smm.so";

/// What to install when the cluster cannot start.
pub const GALERA_INSTALL_HINT: &str = "the Galera tests need MariaDB with Galera and rsync (for the state transfer \
    to joining nodes): install them with `apt-get install mariadb-server mariadb-client galera-4 rsync`";

/// How long a node may take to reach Synced: a full rsync transfer on a loaded machine,
/// or crash recovery plus an incremental transfer.
const SYNC_TIMEOUT: Duration = Duration::from_secs(180);

/// Prefix of the temporary folders; the test process's PID follows it.
const DIR_PREFIX: &str = "memory-bank-galera-";

/// A running Galera cluster whose nodes can be killed and started again.
pub struct GaleraCluster {
    dir: tempfile::TempDir,
    nodes: Vec<Node>,
    /// The (uid, gid) the nodes run as when this process is root: see [`node_account`].
    account: Option<(u32, u32)>,
    /// Options given to [`GaleraCluster::start_with`], kept for restarts.
    extra_args: Vec<String>,
    server: PathBuf,
}

struct Node {
    /// Client (MySQL protocol), group replication, IST receive and SST receive ports.
    client: u16,
    replication: u16,
    ist: u16,
    sst: u16,
    child: Option<Child>,
}

impl GaleraCluster {
    /// Starts a cluster of `size` nodes and waits until every one is Synced.
    pub fn start(size: usize) -> Result<Self, String> {
        Self::start_with(size, &[])
    }

    /// Like [`Self::start`], with `extra_args` given to every `mariadbd` after the test
    /// settings, so they override them (e.g. `--wsrep-sync-wait=1`).
    pub fn start_with(size: usize, extra_args: &[String]) -> Result<Self, String> {
        assert!(size >= 1, "a cluster needs at least one node");
        sweep_stale_dirs(DIR_PREFIX);
        let server =
            find_program(&["mariadbd", "mysqld"]).ok_or_else(|| format!("mariadbd was not found; {GALERA_INSTALL_HINT}"))?;
        let install = find_program(&["mariadb-install-db", "mysql_install_db"])
            .ok_or_else(|| format!("mariadb-install-db was not found; {GALERA_INSTALL_HINT}"))?;
        if !Path::new(GALERA_PROVIDER).is_file() {
            return Err(format!("the Galera provider {GALERA_PROVIDER} was not found; {GALERA_INSTALL_HINT}"));
        }
        for program in ["rsync", "wsrep_sst_rsync"] {
            if find_program(&[program]).is_none() {
                return Err(format!("{program} was not found; {GALERA_INSTALL_HINT}"));
            }
        }
        let account = node_account()?;
        let dir = tempfile::Builder::new()
            .prefix(&format!("{DIR_PREFIX}{}-", std::process::id()))
            .tempdir()
            .map_err(|e| format!("cannot create a temporary folder for the cluster: {e}"))?;
        if account.is_some() {
            // The nodes' account must reach its folders inside this root-owned one.
            set_mode(dir.path(), 0o755)?;
        }
        let ports = free_ports(4 * size)?;
        let nodes: Vec<Node> =
            ports.chunks(4).map(|p| Node { client: p[0], replication: p[1], ist: p[2], sst: p[3], child: None }).collect();
        for i in 0..size {
            let data = dir.path().join(format!("node{i}")).join("data");
            std::fs::create_dir_all(&data).map_err(|e| format!("cannot create {}: {e}", data.display()))?;
            let node = data.parent().unwrap_or(&data).to_path_buf();
            own_tmpdir(&node)?;
            if let Some((uid, gid)) = account {
                for path in [node.as_path(), &data, &node.join("tmp")] {
                    std::os::unix::fs::chown(path, Some(uid), Some(gid))
                        .map_err(|e| format!("cannot hand {} to the mysql user: {e}", path.display()))?;
                }
            }
        }
        // Only the first node needs system tables; the joiners receive everything by SST.
        let mut command = Command::new(&install);
        command
            .arg("--no-defaults")
            .arg(format!("--datadir={}", dir.path().join("node0").join("data").display()))
            .arg(own_tmpdir(&dir.path().join("node0"))?)
            // The server's default 96 MB redo log would only be shrunk at first start.
            .args(["--auth-root-authentication-method=normal", "--skip-test-db", "--innodb-log-file-size=16M"])
            .stdin(Stdio::null());
        if let Some((uid, gid)) = account {
            command.uid(uid).gid(gid);
        }
        let installed = command.output().map_err(|e| format!("cannot run {}: {e}", install.display()))?;
        if !installed.status.success() {
            return Err(format!(
                "{} failed ({}): {}{}",
                install.display(),
                installed.status,
                String::from_utf8_lossy(&installed.stdout),
                String::from_utf8_lossy(&installed.stderr)
            ));
        }
        let mut cluster = Self { dir, nodes, account, extra_args: extra_args.to_vec(), server };
        // One joiner at a time: a donor serves one full transfer at once.
        for i in 0..size {
            cluster.launch(i, i == 0)?;
        }
        Ok(cluster)
    }

    /// How many nodes the cluster was started with.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Always false: a cluster has at least one node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The client port of node `i`.
    pub fn port(&self, i: usize) -> u16 {
        self.nodes[i].client
    }

    /// `mysql://root@127.0.0.1:<port>` of node `i`, without a database.
    pub fn server_url(&self, i: usize) -> String {
        format!("mysql://root@127.0.0.1:{}", self.nodes[i].client)
    }

    /// Whether node `i`'s process is running (not killed).
    pub fn is_running(&self, i: usize) -> bool {
        self.nodes[i].child.is_some()
    }

    /// Kills node `i` at once (SIGKILL, like a crash) and waits for it to exit.
    pub fn kill(&mut self, i: usize) {
        if let Some(mut child) = self.nodes[i].child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts node `i` again on its ports and data folder; it rejoins the others and
    /// catches up. Returns once it is Synced.
    pub fn restart(&mut self, i: usize) -> Result<(), String> {
        self.kill(i);
        self.launch(i, false)
    }

    /// Cuts node `i` off from the others as a network partition would
    /// (`gmcast.isolate`): its process and client port stay up, but alone it is not
    /// Primary, so it refuses to serve data. Returns once it says so.
    pub fn isolate(&mut self, i: usize) -> Result<(), String> {
        self.set_provider_option(i, "gmcast.isolate=1")?;
        self.wait_for(i, |port| status(port, "wsrep_cluster_status").is_ok_and(|s| s != "Primary"), "leave the Primary component")
    }

    /// Ends [`Self::isolate`]: the node rejoins, catches up, and this returns once it
    /// is Synced.
    pub fn reconnect(&mut self, i: usize) -> Result<(), String> {
        self.set_provider_option(i, "gmcast.isolate=0")?;
        self.wait_for(i, is_synced, "rejoin and reach Synced")
    }

    fn set_provider_option(&self, i: usize, option: &str) -> Result<(), String> {
        let (url, statement) = (self.server_url(i), format!("SET GLOBAL wsrep_provider_options = '{option}'"));
        block_on(async move {
            let mut conn = MySqlConnection::connect(&url).await.map_err(|e| e.to_string())?;
            sqlx::raw_sql(sqlx::AssertSqlSafe(statement)).execute(&mut conn).await.map_err(|e| e.to_string())?;
            let _ = conn.close().await;
            Ok(())
        })
    }

    fn wait_for(&self, i: usize, done: impl Fn(u16) -> bool, what: &str) -> Result<(), String> {
        let started = Instant::now();
        while !done(self.nodes[i].client) {
            if started.elapsed() > SYNC_TIMEOUT {
                return Err(format!("node {i} did not {what} within {SYNC_TIMEOUT:?}: {}", self.log_tail(i)));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(())
    }

    /// A global status variable of node `i` (e.g. `wsrep_cluster_size`).
    pub fn status(&self, i: usize, name: &str) -> Result<String, String> {
        status(self.nodes[i].client, name)
    }

    /// The last lines of node `i`'s error log, after every `[ERROR]` line of the whole
    /// log: a node that aborts logs why well before the lines of its shutdown.
    pub fn log_tail(&self, i: usize) -> String {
        let log = std::fs::read_to_string(self.node_dir(i).join("error.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        let errors: Vec<&str> = lines.iter().copied().filter(|l| l.contains("[ERROR]")).collect();
        let tail = lines[lines.len().saturating_sub(25)..].join("\n");
        if errors.is_empty() {
            tail
        } else {
            format!("[ERROR] lines:\n{}\n… last lines:\n{tail}", errors[errors.len().saturating_sub(40)..].join("\n"))
        }
    }

    fn node_dir(&self, i: usize) -> PathBuf {
        self.dir.path().join(format!("node{i}"))
    }

    fn launch(&mut self, i: usize, bootstrap: bool) -> Result<(), String> {
        let dir = self.node_dir(i);
        let node = &self.nodes[i];
        let members: Vec<String> = self.nodes.iter().map(|n| format!("127.0.0.1:{}", n.replication)).collect();
        let mut command = Command::new(&self.server);
        command.arg("--no-defaults").args([
            format!("--datadir={}", dir.join("data").display()),
            own_tmpdir(&dir)?,
            format!("--socket={}", dir.join("mariadb.sock").display()),
            format!("--pid-file={}", dir.join("mariadb.pid").display()),
            format!("--log-error={}", dir.join("error.log").display()),
            format!("--port={}", node.client),
            "--bind-address=127.0.0.1".to_owned(),
            "--skip-name-resolve".to_owned(),
            "--skip-log-bin".to_owned(),
            "--max-connections=500".to_owned(),
            "--character-set-server=utf8mb4".to_owned(),
            "--innodb-buffer-pool-size=64M".to_owned(),
            "--innodb-log-file-size=16M".to_owned(),
            "--innodb-flush-log-at-trx-commit=2".to_owned(),
            "--innodb-doublewrite=0".to_owned(),
            // What Galera requires of every node.
            "--binlog-format=ROW".to_owned(),
            "--innodb-autoinc-lock-mode=2".to_owned(),
            "--default-storage-engine=InnoDB".to_owned(),
            "--wsrep-on=ON".to_owned(),
            format!("--wsrep-provider={GALERA_PROVIDER}"),
            format!("--wsrep-cluster-name=memory-bank-test-{}", std::process::id()),
            format!("--wsrep-cluster-address=gcomm://{}", members.join(",")),
            format!("--wsrep-node-name=node{i}"),
            format!("--wsrep-node-address=127.0.0.1:{}", node.replication),
            format!("--wsrep-node-incoming-address=127.0.0.1:{}", node.client),
            "--wsrep-sst-method=rsync".to_owned(),
            format!("--wsrep-sst-receive-address=127.0.0.1:{}", node.sst),
            // Every port pinned to this node's own: three nodes share one address. A
            // small write-set cache (the default preallocates 128 MB per node) still
            // holds far more than a test writes while a node is down, so a restarted
            // node catches up by IST.
            format!(
                "--wsrep-provider-options=base_host=127.0.0.1;base_port={r};gmcast.listen_addr=tcp://127.0.0.1:{r};\
                 ist.recv_addr=127.0.0.1:{ist};gcache.size=32M",
                r = node.replication,
                ist = node.ist
            ),
        ]);
        if bootstrap {
            command.arg("--wsrep-new-cluster");
        }
        command.args(&self.extra_args);
        command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
        if let Some((uid, gid)) = self.account {
            command.uid(uid).gid(gid);
        }
        let mut child =
            spawn_tied_to_this_process(command).map_err(|e| format!("cannot start {}: {e}", self.server.display()))?;
        let port = node.client;
        let started = Instant::now();
        loop {
            if let Ok(Some(exit)) = child.try_wait() {
                return Err(format!("node {i} exited ({exit}) while starting: {}", self.log_tail(i)));
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() && is_synced(port) {
                self.nodes[i].child = Some(child);
                return Ok(());
            }
            if started.elapsed() > SYNC_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("node {i} did not reach Synced within {SYNC_TIMEOUT:?}: {}", self.log_tail(i)));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for GaleraCluster {
    fn drop(&mut self) {
        // Stop by PID before the folder goes.
        for i in 0..self.nodes.len() {
            self.kill(i);
        }
    }
}

/// Whether the node on `port` is Synced and ready: connections are accepted during a
/// state transfer too, but only a Synced node serves the data.
fn is_synced(port: u16) -> bool {
    status(port, "wsrep_local_state_comment").is_ok_and(|s| s == "Synced") && status(port, "wsrep_ready").is_ok_and(|s| s == "ON")
}

/// A global status variable of the server on `port`, read by root.
fn status(port: u16, name: &str) -> Result<String, String> {
    let (url, name) = (format!("mysql://root@127.0.0.1:{port}"), name.to_owned());
    block_on(async move {
        let mut conn = MySqlConnection::connect(&url).await.map_err(|e| e.to_string())?;
        // A causal read (a test may set wsrep_sync_wait globally) fails on a node
        // outside the Primary component, whose status is what is being asked.
        sqlx::raw_sql("SET SESSION wsrep_sync_wait = 0").execute(&mut conn).await.map_err(|e| e.to_string())?;
        let value: Option<String> = sqlx::query_scalar(
            "SELECT CAST(VARIABLE_VALUE AS CHAR) FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = ?",
        )
        .bind(name.to_uppercase())
        .fetch_optional(&mut conn)
        .await
        .map_err(|e| e.to_string())?;
        let _ = conn.close().await;
        value.ok_or_else(|| format!("no status variable {name}"))
    })
}

/// Runs `future` to completion on a thread of its own: callers may be inside an async
/// test, where a runtime cannot be started.
fn block_on<T: Send>(future: impl Future<Output = Result<T, String>> + Send) -> Result<T, String> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
                runtime.block_on(future)
            })
            .join()
            .unwrap_or_else(|_| Err("the status thread panicked".to_owned()))
    })
}

/// The account the nodes run as: none (this process's own) unless this process is root.
/// As root, `mariadbd --user=root` would run, but the rsync daemon of a state transfer
/// started by root drops to `nobody`, which cannot write the joiner's data folder; so
/// the nodes run as the `mysql` user the mariadb-server package creates, as in production.
fn node_account() -> Result<Option<(u32, u32)>, String> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(None);
    }
    let name = CString::new("mysql").map_err(|e| e.to_string())?;
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut buffer = vec![0 as libc::c_char; 16 * 1024];
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call, and the buffer length is its own.
    let rc = unsafe { libc::getpwnam_r(name.as_ptr(), &mut entry, buffer.as_mut_ptr(), buffer.len(), &mut found) };
    if rc != 0 || found.is_null() {
        return Err(format!(
            "running as root, the Galera nodes run as the `mysql` user, which does not exist; create it \
             (`adduser --system --group mysql`) or run the tests as another user; {GALERA_INSTALL_HINT}"
        ));
    }
    Ok(Some((entry.pw_uid, entry.pw_gid)))
}

fn set_mode(path: &Path, mode: u32) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| format!("cannot chmod {}: {e}", path.display()))
}

/// `count` distinct free loopback ports: every listener is held until all are picked.
fn free_ports(count: usize) -> Result<Vec<u16>, String> {
    let listeners = (0..count)
        .map(|_| TcpListener::bind(("127.0.0.1", 0)).map_err(|e| format!("cannot find a free loopback port: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    listeners.iter().map(|l| l.local_addr().map(|a| a.port()).map_err(|e| e.to_string())).collect()
}

