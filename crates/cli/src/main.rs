//! `memory-bank`: run the memory service, administer it, and use it from scripts.

mod admin;
mod database;
mod db_key;
mod folders;
mod markdown;
mod mcp;
mod memory;
mod recall;
mod sessions;

use std::net::SocketAddr;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};

/// A plaintext memory for AI agents that people can read, search, cite and delete.
#[derive(Debug, Parser)]
#[command(name = "memory-bank", version, about, propagate_version = true)]
struct Cli {
    /// Database to use: sqlite:///path/to/memory.db (default: memory.db in the OS data folder)
    /// or mysql://user:password@host:3306/memory_bank (MySQL 8 / MariaDB 10.6+).
    #[arg(long, global = true, env = "MEMORY_BANK_DATABASE_URL", value_name = "URL")]
    database_url: Option<String>,

    /// A file holding the SQLite bank's key (64 hex characters, e.g. from `openssl rand -hex
    /// 32`, readable by its owner only). The bank is encrypted with it (a plaintext one on
    /// first open). Also read by `mcp`, and by `sessions` and `mcp` for the session archive.
    #[arg(long, global = true, env = "MEMORY_BANK_DB_KEY_FILE", value_name = "PATH")]
    db_key_file: Option<std::path::PathBuf>,

    /// Keep the SQLite bank's key in the OS keyring (the entry the desktop app makes for its
    /// bank; one is made for a bank that has none).
    #[arg(long, global = true, env = "MEMORY_BANK_DB_KEY_KEYRING", value_parser = clap::builder::BoolishValueParser::new())]
    db_key_keyring: bool,

    /// Search by words only: no search by meaning, so the embedding model is never loaded
    /// and no vectors are made (the ones made before are kept for when it is back on).
    // Boolish: `MEMORY_BANK_WORDS_ONLY=1` (as the README and the meaning crate read it),
    // `true`, `yes`, `on`, and their opposites.
    #[arg(long, global = true, env = "MEMORY_BANK_WORDS_ONLY", value_parser = clap::builder::BoolishValueParser::new())]
    words_only: bool,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the HTTP memory service.
    Serve {
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:8787", env = "MEMORY_BANK_LISTEN")]
        listen: SocketAddr,
        /// Most memories one person may have (409 quota_exceeded past it); 0: no cap.
        #[arg(long, default_value_t = 10_000, env = "MEMORY_BANK_MAX_MEMORIES_PER_USER")]
        max_memories_per_user: u64,
        /// Requests per second per token, on average (429 with Retry-After past it), and per
        /// client address for requests without a valid token; 0: no limit.
        #[arg(long, default_value_t = 20, env = "MEMORY_BANK_RATE_LIMIT")]
        rate_limit: u32,
        /// Requests a token may send at once before the rate applies.
        #[arg(long, default_value_t = 40, env = "MEMORY_BANK_RATE_BURST")]
        rate_burst: u32,
        /// How long a person has to answer a confirmation form an agent's client shows
        /// (MCP elicitation), in seconds; past it nothing is saved and the proposal waits
        /// in the Inbox.
        #[arg(long, default_value_t = 600, env = "MEMORY_BANK_CONFIRM_TIMEOUT", value_name = "SECONDS",
              value_parser = clap::value_parser!(u64).range(1..=86_400))]
        confirm_timeout: u64,
        /// A host name clients (or a proxy in front) call this service by, e.g.
        /// memory.example.com, or memory.example.com:8443 for that port only; repeat for
        /// more. Requests naming any other host are refused with 403, against DNS
        /// rebinding. Always answered: on a loopback address its own loopback names, on
        /// any other address every IP address and localhost.
        #[arg(long = "allowed-host", value_name = "NAME", env = "MEMORY_BANK_ALLOWED_HOSTS", value_delimiter = ',')]
        allowed_hosts: Vec<memory_bank_server::AllowedHost>,
        /// Serve GET /metrics in Prometheus's text format: requests by route and status,
        /// latency, saves, searches, proposals, refusals; never content, ids or emails. On
        /// a loopback address local scrapers need no token; on any other address
        /// --metrics-token-file is required.
        #[arg(long, env = "MEMORY_BANK_METRICS", value_parser = clap::builder::BoolishValueParser::new())]
        metrics: bool,
        /// A file holding the token scrapers of /metrics must send as `Authorization:
        /// Bearer <token>` (at least 16 characters, e.g. from `openssl rand -hex 32`,
        /// readable by its owner only). Required with --metrics on a non-loopback address.
        #[arg(long, env = "MEMORY_BANK_METRICS_TOKEN_FILE", value_name = "PATH")]
        metrics_token_file: Option<std::path::PathBuf>,
    },
    /// Database maintenance.
    Db {
        #[command(subcommand)]
        command: DbCommand,
    },
    /// Manage users, orgs, memberships and tokens (works on the database directly).
    Admin {
        #[command(subcommand)]
        command: admin::AdminCommand,
    },
    /// Save, search, list and delete memories through a running service.
    Memory(memory::MemoryArgs),
    /// Look up the agent sessions on this machine (Claude Code, Codex, opencode, Gemini CLI).
    Sessions(sessions::SessionsArgs),
    /// The MCP server agents start (stdio), and `mcp install` to register it with an agent.
    Mcp(mcp::McpArgs),
    /// The recall hook agents run when you let them look up relevant memories by themselves
    /// (`mcp install --recall`): reads the hook's JSON on stdin, prints the memories that
    /// clearly bear on it, and never fails the agent's turn.
    Recall(recall::RecallArgs),
}

#[derive(Debug, Subcommand)]
enum DbCommand {
    /// Create the tables and the full-text index in a new, empty database (idempotent).
    Bootstrap,
    /// Apply pending migrations and make sure the full-text index exists (idempotent).
    Migrate,
    /// Rewrite the full-text index compactly, to take back the space of an index grown
    /// one save at a time (SQLite merges its segments; MySQL/MariaDB packs the index
    /// table's pages). Search stays fast without it. Searches go on meanwhile; saves and
    /// deletes wait until it is done.
    Optimize,
    /// Whether the bank is encrypted at rest and where its key is looked for (never the key).
    Status,
    /// Give an encrypted SQLite bank a new random key, stored where its key is now. Close
    /// the app, agents and `serve` first: it needs the bank to itself.
    Rekey,
}

fn main() -> ExitCode {
    // Before any thread exists: what this process creates is its user's alone (each file
    // is also created private on purpose; this covers what other code makes for us).
    memory_bank_private_files::restrict_new_files();
    memory_bank_meaning::prepare_process();
    let cli = Cli::parse();
    if cli.words_only {
        // Still before any thread: every bank this process opens reads it.
        std::env::set_var(memory_bank_meaning::WORDS_ONLY_ENV, "1");
    }
    let default_level = if matches!(cli.command, Command::Serve { .. }) { "info" } else { "warn" };
    let filter = tracing_subscriber::EnvFilter::try_from_env("MEMORY_BANK_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level))
        // rmcp's session layer logs each MCP session id, at every level from info down;
        // an id was enough to answer another person's form before sessions were bound to
        // their token, and is still a handle on someone's session: never in a log, at
        // any MEMORY_BANK_LOG. (A more specific directive wins over the person's own.)
        .add_directive("rmcp::transport::streamable_http_server=off".parse().expect("a valid directive"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour_on_stderr())
        .init();
    report_panics_as_errors();
    // A fault in an action is an error answer like any other: the message and exit
    // code 1, never the runtime's exit 101 and a backtrace prompt.
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_command(cli)));
    outcome.unwrap_or(ExitCode::FAILURE)
}

/// Colour only for a person at a terminal: an agent's log of `memory-bank mcp`'s stderr
/// (Claude Code keeps one) must not fill with escape codes. `NO_COLOR` (set and not
/// empty) turns it off there too (no-color.org).
fn colour_on_stderr() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Panics print one `memory-bank: error:` line naming the fault and where it is.
fn report_panics_as_errors() {
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown fault".into());
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("memory-bank: error: internal fault ({what}{place}); the step stopped where it failed, and what it had done before stays done. Please report it.");
    }));
}

fn run_command(cli: Cli) -> ExitCode {
    if let Command::Sessions(args) = cli.command {
        return sessions::run(args, cli.db_key_file);
    }
    if let Command::Recall(args) = cli.command {
        return recall::run(args, cli.db_key_file);
    }
    if let Command::Mcp(args) = cli.command {
        let globals = mcp::Globals {
            key_file: cli.db_key_file,
            database_url: cli.database_url,
            db_key_keyring: cli.db_key_keyring,
            words_only: cli.words_only,
        };
        return mcp::run(args, globals);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("memory-bank: error: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("memory-bank: error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let url = || database::resolve_url(cli.database_url.as_deref());
    let key_file = cli.db_key_file.clone();
    let key = |url: &str| database::key_source(url, key_file.clone(), cli.db_key_keyring);
    match cli.command {
        Command::Serve {
            listen, max_memories_per_user, rate_limit, rate_burst, confirm_timeout, allowed_hosts, metrics, metrics_token_file,
        } => {
            // Before the database is opened: a configuration that must not serve stops here.
            let metrics = memory_bank_server::metrics_access(metrics, listen, metrics_token_file.as_deref())?;
            let quota = (max_memories_per_user > 0).then_some(max_memories_per_user);
            let rate = std::num::NonZeroU32::new(rate_limit).map(|per_second| memory_bank_server::RateLimit {
                per_second,
                burst: std::num::NonZeroU32::new(rate_burst).unwrap_or(per_second),
            });
            let url = url()?;
            let options = ServeConfig {
                listen,
                quota,
                rate_limit: rate,
                confirm_timeout: std::time::Duration::from_secs(confirm_timeout),
                allowed_hosts,
                metrics,
            };
            serve(&url, &key(&url)?, options).await
        }
        Command::Db { command: DbCommand::Optimize } => {
            let url = url()?;
            optimize(&url, &key(&url)?).await
        }
        Command::Db { command: DbCommand::Status } => {
            let url = url()?;
            db_key::status(&url, &key(&url)?, cli.db_key_file.as_deref()).await
        }
        Command::Db { command: DbCommand::Rekey } => {
            let url = url()?;
            db_key::rekey(&url, &key(&url)?).await
        }
        // One code path for both: migrations, then the full-text index ensured. They
        // differ in intent (a new database, an existing one) and in what they report.
        Command::Db { command } => {
            let url = url()?;
            let bank = database::open_for_maintenance(&url, &key(&url)?).await?;
            let outcome = bank.store().migrate().await?;
            let done = if matches!(command, DbCommand::Bootstrap) { "bootstrapped" } else { "migrated" };
            let index = if outcome.created { "full-text index created" } else { "full-text index present" };
            // Done here rather than left to the service: an operator's migration is the
            // moment they expect a database to be rewritten.
            let read = bank.rewrite_search_terms().await?;
            let terms = if read == 0 { String::new() } else { format!("; search terms of {read} memories brought up to date") };
            println!("{done}; {index}{terms}");
            // The vectors are not made here: that takes a while on a large bank, and the
            // service makes them in the background while it serves.
            Ok(())
        }
        Command::Admin { command } => {
            let url = url()?;
            admin::run(&database::open(&url, &key(&url)?).await?, command).await
        }
        Command::Memory(args) => memory::run(args).await,
        Command::Sessions(_) | Command::Mcp(_) | Command::Recall(_) => unreachable!("answered before the runtime starts"),
    }
}

/// `db optimize`: the index rewritten, with how long it took and its size before and after.
async fn optimize(url: &str, key: &memory_bank_db_key::KeySource) -> anyhow::Result<()> {
    let bank = database::open(url, key).await?;
    eprintln!("memory-bank: rewriting the full-text index; searches go on, saves and deletes wait until it is done");
    let started = std::time::Instant::now();
    let outcome = bank.store().optimize_search_index().await?;
    let took = started.elapsed().as_secs_f64();
    let mb = |bytes: u64| bytes as f64 / 1e6;
    match (outcome.before_bytes, outcome.after_bytes) {
        (Some(before), Some(after)) => {
            println!("full-text index optimized in {took:.1} s: {:.1} MB → {:.1} MB", mb(before), mb(after));
        }
        _ => println!("full-text index optimized in {took:.1} s (this database user may not see its size)"),
    }
    Ok(())
}

/// How `serve` was asked to run.
struct ServeConfig {
    listen: SocketAddr,
    quota: Option<u64>,
    rate_limit: Option<memory_bank_server::RateLimit>,
    confirm_timeout: std::time::Duration,
    allowed_hosts: Vec<memory_bank_server::AllowedHost>,
    /// Who may read /metrics; `None`: metrics off.
    metrics: Option<memory_bank_server::MetricsAccess>,
}

async fn serve(url: &str, key: &memory_bank_db_key::KeySource, config: ServeConfig) -> anyhow::Result<()> {
    let ServeConfig { listen, quota, rate_limit, confirm_timeout, allowed_hosts, metrics } = config;
    let metrics = metrics.map(memory_bank_server::Metrics::new);
    let bank = database::open(url, key).await?.with_memory_quota(quota);
    // Before any clone is made: the API and the MCP routes count with the same bank.
    let bank = match &metrics {
        Some(metrics) => metrics.observe(bank),
        None => bank,
    };
    // Refuse to serve a search that would silently find nothing.
    bank.assert_search_index().await?;
    // An older bank's terms are brought to today's scheme while it serves, and every
    // memory without a vector gets one.
    tokio::spawn(bank.clone().rewrite_search_terms_logged());
    tokio::spawn(bank.clone().backfill_vectors_forever());
    if database::is_mysql(url) {
        warn_unless_encrypted(url).await;
    }
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("cannot listen on {listen}; is another service using it? pick another with --listen"))?;
    let address = listener.local_addr()?;
    // Signal handlers go in before the "serving" line: a supervisor (or a test) may
    // send SIGTERM as soon as it reads it, and must get a clean shutdown.
    let shutdown = shutdown_signal()?;
    tracing::info!(%address, backend = bank.store().backend(), "memory service listening");
    // Formatted first so the line reaches stderr in one write: a reader waiting for
    // the address must never see half of it.
    let serving = format!("memory-bank: serving http://{address} ({} database); stop with Ctrl-C", bank.store().backend());
    eprintln!("{serving}");
    if let Some(metrics) = &metrics {
        // Never the token: only whether one is asked for.
        tracing::info!(%address, access = ?metrics, "metrics served at /metrics");
    }
    // MCP for remote agents beside the API: the memory tools at /mcp, the meta face at
    // /mcp/agent, with the same tokens.
    let options = memory_bank_server::ServeOptions {
        // Built from the bound address: `--listen 127.0.0.1:0` answers the port it got.
        host_check: memory_bank_server::HostCheck::for_listener(address, allowed_hosts),
        extra_routes: Some(memory_bank_mcp::http::routes(bank.clone(), confirm_timeout)),
        rate_limit: rate_limit.map(memory_bank_server::RateLimiter::new),
        metrics,
        ..Default::default()
    };
    memory_bank_server::serve(listener, bank, options, shutdown).await?;
    tracing::info!("memory service stopped");
    Ok(())
}

/// A MySQL/MariaDB database whose memory tables the server does not encrypt is served
/// all the same, with a warning saying how to encrypt them.
async fn warn_unless_encrypted(url: &str) {
    let report = match database::open_mysql(url).await {
        Ok(store) => store.encryption_report().await,
        Err(e) => return tracing::warn!("cannot check whether the database is encrypted at rest: {e:#}"),
    };
    match report {
        Ok(report) if report.all_encrypted() => tracing::info!(tables = report.tables.len(), "the database is encrypted at rest"),
        Ok(report) if report.plaintext_tables().is_empty() => tracing::warn!(
            tables = report.unopened_tables().len(),
            "the server cannot tell yet whether it encrypts these memory tables: {} (it reports a table once it has \
             opened it since it started, and one made before encryption was turned on once it has encrypted it); \
             `memory-bank db migrate` rebuilds every table it has not encrypted",
            report.unopened_tables().join(", ")
        ),
        Ok(report) => {
            let plain = report.plaintext_tables();
            tracing::warn!(
                tables = plain.len(),
                "the server does not encrypt these memory tables at rest: {}; turn on InnoDB encryption \
                 (file_key_management, innodb_encrypt_tables) and run `memory-bank db migrate` (README: \"Encryption at rest\")",
                plain.join(", ")
            );
        }
        Err(e) => tracing::warn!("cannot check whether the database is encrypted at rest: {e}"),
    }
}

/// Resolves on Ctrl-C or SIGTERM; unlike a lazily polled future, the handlers are
/// installed when this returns.
#[cfg(unix)]
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut interrupt = signal(SignalKind::interrupt()).context("cannot install the Ctrl-C handler")?;
    let mut terminate = signal(SignalKind::terminate()).context("cannot install the SIGTERM handler")?;
    Ok(async move {
        tokio::select! { _ = interrupt.recv() => {}, _ = terminate.recv() => {} }
    })
}

#[cfg(not(unix))]
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    Ok(memory_bank_server::shutdown_signal())
}
