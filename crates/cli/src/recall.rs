//! `memory-bank recall`: the hook an agent runs on each prompt (and at a session's start)
//! when the person turned on "Let agents look up relevant memories by themselves"
//! (Settings → Agents, `mcp install --recall`). It reads the hook's JSON on stdin and
//! prints the few memories of the local bank that clearly bear on it, in the agent's hook
//! format (`memory_bank_recall`), or nothing.
//!
//! It must never cost the person their turn: whatever goes wrong (no bank yet, a locked
//! or unreadable bank, input that is not a hook event), it prints nothing on stdout and
//! exits 0, with one line on stderr and in `recall.log` in the data folder saying why.
//! It opens the bank only to read (nothing provisioned, no background work, no model),
//! on a single-threaded runtime, so it answers quickly on every prompt.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use memory_bank_access::{app_data_dir, default_key_source, LocalAccess};
use memory_bank_recall::{answer, render, HookInput, MAX_INPUT_BYTES};
use memory_bank_store::RecallQuery;

/// The log file beside the bank, and the size past which it starts afresh.
const LOG_FILE: &str = "recall.log";
const LOG_MAX_BYTES: u64 = 64 * 1024;

/// Arguments of `memory-bank recall`.
#[derive(Debug, Args)]
pub struct RecallArgs {
    /// The agent whose hook runs this (claude-code, codex, gemini), named in the log.
    #[arg(long, value_name = "AGENT")]
    agent: Option<String>,
}

/// Runs the hook; always exits 0.
pub fn run(args: RecallArgs, key_file: Option<PathBuf>) -> ExitCode {
    let dir = app_data_dir();
    if let Err(why) = recall(dir.as_deref(), key_file) {
        let agent = args.agent.as_deref().unwrap_or("an agent");
        log_failure(dir.as_deref(), &format!("recall for {agent} printed nothing: {why}"));
    }
    ExitCode::SUCCESS
}

fn recall(dir: Option<&Path>, key_file: Option<PathBuf>) -> Result<(), String> {
    let mut input = Vec::new();
    std::io::stdin()
        .take(MAX_INPUT_BYTES)
        .read_to_end(&mut input)
        .map_err(|e| format!("cannot read the hook's input: {e}"))?;
    let event = HookInput::parse(&input)?;
    let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    let Some(moment) = event.moment(home.as_deref()) else { return Ok(()) };
    let dir = dir.ok_or("cannot find the data folder; set MEMORY_BANK_DATA_DIR")?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let key = default_key_source(dir, key_file);
    let recalled = runtime.block_on(async {
        let Some(bank) = LocalAccess::open_to_recall(dir, &key).await.map_err(|e| e.message)? else {
            return Ok::<_, String>(Vec::new());
        };
        let (prompt, folder) = moment.texts();
        bank.recall(&RecallQuery { prompt, folder }, &moment.rule()).await.map_err(|e| e.message)
    })?;
    if let Some(context) = render(&recalled) {
        let mut out = std::io::stdout().lock();
        // A reader that has gone is the agent's business; there is nothing to log.
        let _ = writeln!(out, "{}", answer(event.event_name(), &context)).and_then(|()| out.flush());
    }
    Ok(())
}

/// One line on stderr and, when the data folder exists, in its `recall.log` (private;
/// started afresh past [`LOG_MAX_BYTES`]). Never the prompt or a memory: only why.
fn log_failure(dir: Option<&Path>, line: &str) {
    eprintln!("memory-bank: {line}");
    let Some(dir) = dir.filter(|d| d.is_dir()) else { return };
    let path = dir.join(LOG_FILE);
    let fresh = std::fs::metadata(&path).is_ok_and(|m| m.len() > LOG_MAX_BYTES);
    let mut options = memory_bank_access::private_files::open_options();
    options.create(true);
    if fresh {
        options.write(true).truncate(true);
    } else {
        options.append(true);
    }
    let stamp = memory_bank_contract::Timestamp::now();
    if let Ok(mut file) = options.open(&path) {
        let _ = writeln!(file, "{stamp} {line}");
    }
}
