//! `memory-bank mcp`: the MCP server over stdio that agents start, and `memory-bank mcp
//! install`, which registers it in an agent's own config file.
//!
//! The server takes the same session options as `memory-bank sessions` (`--root`,
//! `--index` and their environment variables) and so reads the same folders into the same
//! index. It runs on a current-thread tokio runtime of its own, started here rather than in
//! `main` like the other async commands: one stdio connection needs no worker threads,
//! session lookups run on the blocking pool, and `install` needs no runtime at all.
//!
//! Agents start the server when they launch, so it answers `initialize` before reading
//! anything: the session index is opened and refreshed on a thread of its own (see
//! `memory_bank_mcp::sessions`), and the first session tool call waits for that refresh.
//! Stdout carries the protocol and nothing else; logs and errors go to stderr.

use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Subcommand};
use memory_bank_agent_install::{apply, plan_install, plan_remove, Agent, AgentEnv, Change, Plan, ServerSpec};
use memory_bank_access::{app_data_dir, LocalAccess, MemoryAccess, RemoteAccess};
use memory_bank_client::Client;
use memory_bank_mcp::{MemoryBankMcp, Sessions};

use crate::sessions::LibraryOptions;

/// Arguments of `memory-bank mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    #[command(flatten)]
    library: LibraryOptions,

    /// A memory service to use instead of the local bank (the desktop app's, in
    /// $MEMORY_BANK_DATA_DIR or the OS data folder).
    #[arg(long, env = "MEMORY_BANK_URL", value_name = "URL")]
    url: Option<String>,
    /// The token for --url (an agent token is enough: `admin token issue USER --agent`).
    #[arg(long, env = "MEMORY_BANK_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// The org to act in on --url (default: the token's user's only org).
    #[arg(long, env = "MEMORY_BANK_ORG")]
    org: Option<String>,
    /// Expose only the meta face: search_capabilities and execute_capability.
    #[arg(long)]
    meta: bool,
    /// How long the person has to answer a confirmation form in the agent's client, in
    /// seconds; past it nothing is saved and the proposal waits in Memory Bank's Inbox.
    #[arg(long, default_value_t = 600, env = "MEMORY_BANK_CONFIRM_TIMEOUT", value_name = "SECONDS",
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub(crate) confirm_timeout: u64,

    #[command(subcommand)]
    command: Option<McpCommand>,
}

#[derive(Debug, Subcommand)]
enum McpCommand {
    /// Register the server in an agent's own config file (or remove it), editing only its
    /// `memory-bank` entry; prints the change.
    Install(InstallArgs),
}

#[derive(Debug, Args)]
struct InstallArgs {
    /// The agent: claude-code, codex, opencode or gemini.
    #[arg(long, value_parser = parse_agent)]
    agent: Agent,
    /// Remove the entry instead.
    #[arg(long)]
    remove: bool,
    /// Print the change as a diff without writing anything.
    #[arg(long)]
    dry_run: bool,
}

fn parse_agent(name: &str) -> Result<Agent, String> {
    name.parse().map_err(|e: memory_bank_agent_install::Error| e.to_string())
}

/// Runs `memory-bank mcp …`; errors are printed here, to stderr.
/// `key_file`: the global `--db-key-file` / `MEMORY_BANK_DB_KEY_FILE`; without it the
/// local bank's key is the OS keyring's, as in the desktop app.
pub fn run(args: McpArgs, key_file: Option<std::path::PathBuf>) -> ExitCode {
    let outcome = match args.command {
        Some(McpCommand::Install(install_args)) => install(&args.library, &install_args),
        None => {
            let bank = Bank { url: args.url, token: args.token, org: args.org, key_file };
            serve(args.library, bank, args.meta, std::time::Duration::from_secs(args.confirm_timeout))
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("memory-bank: error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Which memory bank the memory tools use.
struct Bank {
    url: Option<String>,
    token: Option<String>,
    org: Option<String>,
    key_file: Option<std::path::PathBuf>,
}

impl Bank {
    /// A memory service when a URL is given, else the person's local bank file.
    async fn open(self) -> Result<Arc<dyn MemoryAccess>, String> {
        match self.url.filter(|u| !u.trim().is_empty()) {
            Some(url) => {
                let token = self.token.ok_or("--url needs a token: pass --token or set MEMORY_BANK_TOKEN")?;
                let client = Client::new(&url, &token).map_err(|e| e.to_string())?;
                let remote = RemoteAccess::connect(client, self.org.as_deref()).await.map_err(|e| e.message)?;
                Ok(Arc::new(remote))
            }
            None => {
                let dir = app_data_dir().ok_or("cannot find the data folder; set MEMORY_BANK_DATA_DIR")?;
                let key = memory_bank_access::default_key_source(&dir, self.key_file);
                Ok(Arc::new(LocalAccess::open(&dir, &key).await.map_err(|e| e.message)?))
            }
        }
    }
}

/// Serves until the agent closes stdin.
fn serve(options: LibraryOptions, bank: Bank, meta: bool, confirm_timeout: std::time::Duration) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    // The archive's key comes from the same key file as the bank's, else its own keyring entry.
    let key_file = bank.key_file.clone();
    let sessions = Arc::new(Sessions::new(move || options.open(key_file.as_deref())));
    sessions.warm_up();
    let memory = runtime.block_on(bank.open())?;
    let server = MemoryBankMcp::new().with_sessions(sessions).with_memory(memory).with_confirm_timeout(confirm_timeout);
    let server = if meta { server.meta_face() } else { server };
    let served = runtime.block_on(memory_bank_mcp::serve_stdio(server));
    // Once the agent has gone, a lookup still running (a long first index) must not hold
    // the process up.
    runtime.shutdown_background();
    served.map_err(|e| format!("the MCP connection failed: {e}"))
}

/// Plans the edit, prints it, and applies it unless `--dry-run`.
fn install(options: &LibraryOptions, args: &InstallArgs) -> Result<(), String> {
    if !options.roots.is_empty() {
        return Err("--root is an option of the server; install registers `memory-bank mcp` without options \
                    (the server reads each tool's default folders)"
            .into());
    }
    let env = AgentEnv::from_process().map_err(|e| e.to_string())?;
    let plan = if args.remove {
        plan_remove(args.agent, &env)
    } else {
        ServerSpec::current_exe().and_then(|spec| plan_install(args.agent, &env, &spec))
    }
    .map_err(|e| e.to_string())?;
    let name = args.agent.display_name();
    let path = plan.path.display();
    if !plan.changed {
        println!("{name}: {} ({path})", plan.change);
        return Ok(());
    }
    if args.dry_run {
        println!("{name}: would {} in {path} (dry run: nothing written)", plan.change);
        print!("{}", plan.diff);
        return Ok(());
    }
    let applied = apply(&plan).map_err(|e| e.to_string())?;
    println!("{name}: {} in {path}", done(&plan));
    if let Some(backup) = &applied.backup {
        println!("previous version kept in {}", backup.display());
    }
    print!("{}", plan.diff);
    if args.agent == Agent::ClaudeCode {
        println!("Claude Code rewrites this file while it runs: if it was running, quit it and run this again.");
    }
    Ok(())
}

/// The change in the past tense.
fn done(plan: &Plan) -> &'static str {
    match plan.change {
        Change::Create => "created the file with the memory-bank server",
        Change::Add => "added the memory-bank server",
        Change::Update => "updated the memory-bank server",
        Change::Remove => "removed the memory-bank server",
        Change::AlreadyInstalled => "already installed; nothing to do",
        Change::NotInstalled => "not installed; nothing to do",
    }
}
