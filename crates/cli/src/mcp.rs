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

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Subcommand};
use memory_bank_agent_install::{apply, plan_install_all, plan_remove_all, Agent, AgentEnv, Applied, Change, Plan, ServerSpec};
use memory_bank_access::{app_data_dir, LocalAccess, MemoryAccess, RemoteAccess};
use memory_bank_client::Client;
use memory_bank_mcp::{MemoryBankMcp, Sessions};

use crate::sessions::LibraryOptions;

/// Seconds a confirmation form waits, unless `--confirm-timeout` says otherwise.
const DEFAULT_CONFIRM_TIMEOUT: u64 = 600;

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
    /// Let the agent look up relevant memories by itself: its instructions say to search
    /// when a task touches your preferences, projects or earlier decisions (off: only
    /// when you ask).
    #[arg(long)]
    recall: bool,
    /// How long the person has to answer a confirmation form in the agent's client, in
    /// seconds; past it nothing is saved and the proposal waits in Memory Bank's Inbox.
    #[arg(long, default_value_t = DEFAULT_CONFIRM_TIMEOUT, env = "MEMORY_BANK_CONFIRM_TIMEOUT", value_name = "SECONDS",
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
    /// The agent: claude-code, codex, opencode, gemini, claude-desktop, cursor, vscode,
    /// windsurf, zed or goose.
    #[arg(long, value_parser = parse_agent)]
    agent: Agent,
    /// Remove the entry instead.
    #[arg(long)]
    remove: bool,
    /// Print the change as a diff without writing anything.
    #[arg(long)]
    dry_run: bool,
    /// "Let agents look up relevant memories by themselves": the server is registered with
    /// --recall, and in Claude Code, Codex CLI and Gemini CLI a hook (`memory-bank recall`)
    /// adds the few memories that clearly bear on each prompt. Installing without it
    /// turns recall off again (the hook is taken out).
    #[arg(long, conflicts_with = "remove")]
    recall: bool,
}

fn parse_agent(name: &str) -> Result<Agent, String> {
    name.parse().map_err(|e: memory_bank_agent_install::Error| e.to_string())
}

/// The global options `mcp` reads.
pub struct Globals {
    /// `--db-key-file` / `MEMORY_BANK_DB_KEY_FILE`; without it the local bank's key is the
    /// OS keyring's, as in the desktop app.
    pub key_file: Option<PathBuf>,
    /// `--database-url` / `MEMORY_BANK_DATABASE_URL`: not the MCP server's (it serves the
    /// local bank or `--url`), so `install` refuses it rather than drop it.
    pub database_url: Option<String>,
    /// `--db-key-keyring`: what the MCP server does anyway without a key file.
    pub db_key_keyring: bool,
    /// `--words-only` / `MEMORY_BANK_WORDS_ONLY`.
    pub words_only: bool,
}

/// Runs `memory-bank mcp …`; errors are printed here, to stderr.
pub fn run(args: McpArgs, globals: Globals) -> ExitCode {
    let key_file = globals.key_file.clone();
    let outcome = match &args.command {
        Some(McpCommand::Install(install_args)) => {
            let recall = install_args.recall || args.recall;
            server_options(&args, &globals).and_then(|options| install(options, recall, install_args))
        }
        None if globals.database_url.as_deref().is_some_and(|u| !u.trim().is_empty()) => Err(
            "--database-url (or MEMORY_BANK_DATABASE_URL) is for `serve`, `admin` and `db`: the MCP server uses the \
             local bank, or a memory service through --url. Unset it for `mcp`, or run `serve` on that database and \
             give its address with --url."
                .into(),
        ),
        None => {
            let bank = Bank { url: args.url, token: args.token, org: args.org, key_file };
            let options = ServeOptions { meta: args.meta, recall: args.recall, confirm_timeout: std::time::Duration::from_secs(args.confirm_timeout) };
            serve(args.library, bank, options)
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

/// How the server behaves toward the agent.
struct ServeOptions {
    meta: bool,
    recall: bool,
    confirm_timeout: std::time::Duration,
}

/// Serves until the agent closes stdin.
fn serve(options: LibraryOptions, bank: Bank, serving: ServeOptions) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    // The archive's key comes from the same key file as the bank's, else its own keyring entry.
    let key_file = bank.key_file.clone();
    let sessions = Arc::new(Sessions::new(move || options.open(key_file.as_deref())));
    sessions.warm_up();
    let memory = runtime.block_on(bank.open())?;
    let server = MemoryBankMcp::new()
        .with_sessions(sessions)
        .with_memory(memory)
        .with_recall(serving.recall)
        .with_confirm_timeout(serving.confirm_timeout);
    let server = if serving.meta { server.meta_face() } else { server };
    let served = runtime.block_on(memory_bank_mcp::serve_stdio(server));
    // Once the agent has gone, a lookup still running (a long first index) must not hold
    // the process up.
    runtime.shutdown_background();
    served.map_err(|e| format!("the MCP connection failed: {e}"))
}

/// The options `mcp install` registers after `mcp`, so the agent starts the server the
/// person meant: paths made absolute (agents start servers from any folder). Options the
/// stdio server cannot take from a config file are refused, naming what to do instead,
/// before anything is written; none is dropped silently.
fn server_options(args: &McpArgs, globals: &Globals) -> Result<Vec<String>, String> {
    if globals.database_url.as_deref().is_some_and(|u| !u.trim().is_empty()) {
        return Err("--database-url (or MEMORY_BANK_DATABASE_URL) is for `serve`, `admin` and `db`: the MCP server \
                    uses the local bank, or a memory service through --url. Nothing was written; run install \
                    without it (unset MEMORY_BANK_DATABASE_URL)."
            .into());
    }
    if globals.db_key_keyring {
        return Err("--db-key-keyring is what the MCP server does already without --db-key-file (the local bank's \
                    key is the OS keyring's, as in the desktop app). Nothing was written; run install without it."
            .into());
    }
    if args.url.as_deref().is_some_and(|u| !u.trim().is_empty()) {
        return Err("--url (or MEMORY_BANK_URL) is not registered: the agent would need the token in its config \
                    file. Register the service's own MCP endpoint in the agent instead, <URL>/mcp over HTTP with \
                    an agent token (`admin token issue USER --agent`) kept in the agent's secret store or an \
                    environment variable it reads; or run install without --url for the local bank. Nothing was \
                    written."
            .into());
    }
    if args.org.is_some() {
        return Err("--org only means something with --url, which install does not register. Nothing was written; \
                    run install without it (unset MEMORY_BANK_ORG)."
            .into());
    }
    let absolute = |path: &Path| -> Result<String, String> {
        let path = std::path::absolute(path).map_err(|e| format!("cannot make {} absolute: {e}", path.display()))?;
        path.to_str().map(str::to_owned).ok_or_else(|| format!("{} is not valid UTF-8; config files are text", path.display()))
    };
    let mut options = Vec::new();
    if let Some(index) = &args.library.index {
        options.extend(["--index".to_owned(), absolute(index)?]);
    }
    for (source, root) in &args.library.roots {
        options.extend(["--root".to_owned(), format!("{source}={}", absolute(root)?)]);
    }
    if let Some(key_file) = &globals.key_file {
        options.extend(["--db-key-file".to_owned(), absolute(key_file)?]);
    }
    if globals.words_only {
        options.push("--words-only".to_owned());
    }
    if args.meta {
        options.push("--meta".to_owned());
    }
    if args.confirm_timeout != DEFAULT_CONFIRM_TIMEOUT {
        options.extend(["--confirm-timeout".to_owned(), args.confirm_timeout.to_string()]);
    }
    Ok(options)
}

/// Plans every edit (the server entry, and the recall hook where the agent has hooks),
/// prints them, and applies them in order unless `--dry-run`.
fn install(options: Vec<String>, recall: bool, args: &InstallArgs) -> Result<(), String> {
    let env = AgentEnv::from_process().map_err(|e| e.to_string())?;
    let plans = if args.remove {
        plan_remove_all(args.agent, &env)
    } else {
        ServerSpec::as_invoked()
            .and_then(|spec| plan_install_all(args.agent, &env, &spec.with_options(options).with_recall(recall)))
    }
    .map_err(|e| e.to_string())?;
    let name = args.agent.display_name();
    let mut told = String::new();
    for plan in &plans {
        let path = plan.path.display();
        if !plan.changed {
            told.push_str(&format!("{name}: {} ({path})\n", plan.summary()));
        } else if args.dry_run {
            told.push_str(&format!("{name}: would {} in {path} (dry run: nothing written)\n{}", plan.summary(), plan.diff));
        } else {
            // Applied one after another: a later plan of the same file starts from this one.
            match apply(plan) {
                Ok(applied) => told.push_str(&done(plan, &applied)),
                Err(e) => {
                    say(format_args!("{told}"));
                    return Err(format!("{e} ({} was not changed; the changes listed above were made)", plan.part.noun()));
                }
            }
        }
    }
    let wrote = !args.dry_run && plans.iter().any(|p| p.changed);
    if wrote && args.agent == Agent::ClaudeCode {
        told.push_str("Claude Code rewrites its files while it runs: if it was running, quit it and run this again.\n");
    }
    if !args.remove {
        if let Some(notice) = args.agent.notice() {
            told.push_str(notice.text());
            told.push('\n');
        }
        if recall && args.agent.has_recall_hook() {
            told.push_str(&format!("{}\n", memory_bank_agent_install::recall_hook_notice(args.agent)));
        } else if recall {
            told.push_str(&format!(
                "{name} has no hook that adds context to a prompt, so recall there is the server's instructions alone: \
                 the agent is told to search your memories by itself when a task touches your preferences, projects or \
                 earlier decisions.\n"
            ));
        }
    }
    say(format_args!("{told}"));
    Ok(())
}

/// Prints to stdout. A reader that has gone (`| head -1`, `| true`) is not a fault: the
/// edit is made (or planned) either way, and the exit code says so.
fn say(text: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_fmt(text).and_then(|()| out.flush());
}

/// What an applied plan did, in the past tense, with its diff.
fn done(plan: &Plan, applied: &Applied) -> String {
    let what = plan.part.noun();
    let did = match plan.change {
        Change::Create => format!("created the file with {what}"),
        Change::Add => format!("added {what}"),
        Change::Update => format!("updated {what}"),
        Change::Remove if applied.deleted => format!("removed {what} and the file, which install had created"),
        Change::Remove => format!("removed {what}"),
        Change::AlreadyInstalled | Change::NotInstalled => plan.summary(),
    };
    let mut told = format!("{}: {did} in {}\n", plan.agent.display_name(), plan.path.display());
    if let Some(backup) = &applied.backup {
        told.push_str(&format!("the file as it was before Memory Bank first changed it: {}\n", backup.display()));
    }
    told.push_str(&plan.diff);
    told
}
