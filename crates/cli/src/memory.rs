//! `memory-bank memory …`: a client of a running service, for people and scripts.

use std::io::{Read as _, Write as _};

use anyhow::{bail, Context as _};
use clap::{Args, Subcommand};
use memory_bank_client::{Client, DeleteOutcome, SaveOutcome};
use memory_bank_contract::edit::EditMemoryRequest;
use memory_bank_contract::transfer::{ExportedMemory, OnConflict};
use memory_bank_contract::teams::BankScope;
use memory_bank_contract::wire::{ContextInput, Memory, Origin, SaveMemoryRequest};

#[derive(Debug, Args)]
pub struct MemoryArgs {
    /// Service URL.
    #[arg(long, env = "MEMORY_BANK_URL", default_value = "http://127.0.0.1:8787", global = true)]
    url: String,
    /// API token (prefer the env variable: flags show up in process lists).
    #[arg(long, env = "MEMORY_BANK_TOKEN", hide_env_values = true, global = true)]
    token: Option<String>,
    /// Org to act in (org_…).
    #[arg(long, env = "MEMORY_BANK_ORG", global = true)]
    org: Option<String>,
    /// Print the service's JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: MemoryCommand,
}

#[derive(Debug, Subcommand)]
enum MemoryCommand {
    /// Save a memory (content as an argument, or `-` to read it from stdin).
    Save {
        /// The sentence to remember, or `-` for stdin.
        content: String,
        /// A tag (repeatable).
        #[arg(long = "tag", value_name = "TAG")]
        tags: Vec<String>,
        /// A provenance snippet.
        #[arg(long)]
        snippet: Option<String>,
        /// Session the snippet came from (needs --snippet).
        #[arg(long, requires = "snippet")]
        conversation_id: Option<String>,
        /// Message the snippet came from (needs --snippet).
        #[arg(long, requires = "snippet")]
        message_id: Option<String>,
        /// active_conversation or searched_conversation (needs --snippet).
        #[arg(long, requires = "snippet", value_parser = ["active_conversation", "searched_conversation"])]
        origin: Option<String>,
        /// Save it to your org's team bank (admins and owners), where every member reads it.
        #[arg(long)]
        team: bool,
    },
    /// Search memories by words.
    Search {
        /// Words to look for.
        query: String,
        /// Most results (1-50, default 20).
        #[arg(long)]
        limit: Option<u32>,
        /// Which memories: mine (your own), team (your org's team bank) or all (both; the
        /// service's default).
        #[arg(long, value_parser = parse_scope)]
        scope: Option<BankScope>,
    },
    /// List memories, newest first.
    List {
        /// Page size (1-100, default 20).
        #[arg(long)]
        limit: Option<u32>,
        /// Continue from a previous page's cursor.
        #[arg(long, conflicts_with = "all")]
        cursor: Option<String>,
        /// Walk every page.
        #[arg(long)]
        all: bool,
        /// Which memories: mine, team or all (both; the service's default).
        #[arg(long, value_parser = parse_scope)]
        scope: Option<BankScope>,
    },
    /// Delete a memory by id.
    Delete {
        /// mem_… id.
        id: String,
    },
    /// Edit a memory in place: a new sentence and/or new tags (the old version is kept
    /// in its history).
    Edit {
        /// mem_… id.
        id: String,
        /// The new sentence, or `-` for stdin.
        #[arg(long)]
        content: Option<String>,
        /// A tag (repeatable): replaces all the tags.
        #[arg(long = "tag", value_name = "TAG", conflicts_with = "clear_tags")]
        tags: Vec<String>,
        /// Remove every tag.
        #[arg(long)]
        clear_tags: bool,
    },
    /// A memory's earlier versions, most recently replaced first.
    History {
        /// mem_… id.
        id: String,
    },
    /// Make an earlier version current again (itself kept in the history).
    Restore {
        /// mem_… id.
        id: String,
        /// mrev_… id, from `memory history`.
        revision: String,
    },
    /// Show the user the token belongs to and their orgs.
    Whoami,
    /// Write every memory to stdout: JSON lines to import elsewhere (ids, timestamps,
    /// contexts and revisions kept), or one Markdown file to read.
    Export {
        /// jsonl (for `memory import`) or markdown (for people).
        #[arg(long, default_value = "jsonl", value_parser = ["jsonl", "markdown"])]
        format: String,
        /// The org's team bank instead, then its audit log (admins and owners); the
        /// Markdown holds the memories only.
        #[arg(long)]
        team: bool,
    },
    /// Import a `memory export` file: every line is checked first; bad lines are
    /// reported by number and the good ones imported, as imported (the file's claim of
    /// how each was confirmed is kept as importedFrom, never as a confirmation).
    Import {
        /// The .jsonl file, or `-` for stdin.
        file: String,
        /// What to do with a memory you already have: keep it (skip) or replace it.
        #[arg(long, default_value = "skip", value_parser = ["skip", "overwrite"])]
        on_conflict: String,
    },
}

pub async fn run(args: MemoryArgs) -> anyhow::Result<()> {
    let token = args
        .token
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .context("no token: pass --token or set MEMORY_BANK_TOKEN (issue one with `memory-bank admin token issue USER_ID`)")?;
    let client = Client::new(&args.url, token)?;
    let org = || {
        args.org
            .as_deref()
            .map(str::trim)
            .filter(|o| !o.is_empty())
            .context("no org: pass --org or set MEMORY_BANK_ORG (`memory-bank memory whoami` lists your orgs)")
    };
    match args.command {
        MemoryCommand::Whoami => {
            let me = client.me().await?;
            if args.json {
                return print_json(&me);
            }
            println!("{}\t{}", me.user.id, me.user.email);
            for org in me.orgs {
                println!("  {}\t{}", org.id, org.name);
            }
        }
        MemoryCommand::Save { content, tags, snippet, conversation_id, message_id, origin, team } => {
            let content = if content == "-" { read_stdin()? } else { content };
            let contexts = snippet.map(|snippet| {
                vec![ContextInput { snippet, conversation_id, message_id, origin: origin.as_deref().and_then(Origin::parse) }]
            });
            let request = SaveMemoryRequest {
                content,
                tags: (!tags.is_empty()).then_some(tags),
                contexts,
                confirmed_via: Some(memory_bank_contract::wire::ConfirmedVia::Cli),
                scope: team.then_some(memory_bank_contract::wire::Scope::Org),
            };
            let saved = match client.save_or_propose(org()?, &request, true).await? {
                SaveOutcome::Saved(saved) => *saved,
                SaveOutcome::Proposed(proposed) => {
                    if args.json {
                        return print_json(&proposed);
                    }
                    println!("proposed {}", proposed.proposal.id);
                    eprintln!(
                        "only the org's admins and owners save to its team bank: this waits in the org Inbox for one of \
                         them to accept it"
                    );
                    return Ok(());
                }
            };
            if args.json {
                return print_json(&saved);
            }
            println!("saved {}", saved.memory.id);
            print_similar(&saved.similar, &saved.memory.id);
        }
        MemoryCommand::Search { query, limit, scope } => {
            // `--words-only` (or MEMORY_BANK_WORDS_ONLY) asks the service for words only too.
            let found = client.search(org()?, &query, limit, memory_bank_meaning::words_only_from_env(), scope).await?;
            if args.json {
                return print_json(&found);
            }
            if found.results.is_empty() {
                eprintln!("no memories match {query:?}");
            }
            for hit in &found.results {
                print_memory(&hit.memory, Some(hit.score));
            }
        }
        MemoryCommand::List { limit, cursor, all, scope } => {
            let org = org()?;
            let mut cursor = cursor;
            loop {
                let page = client.list(org, limit, cursor.as_deref(), scope).await?;
                if args.json && !all {
                    return print_json(&page);
                }
                for memory in &page.memories {
                    if args.json {
                        println!("{}", serde_json::to_string(memory)?); // one JSON object per line
                    } else {
                        print_memory(memory, None);
                    }
                }
                match page.next_cursor {
                    Some(next) if all => cursor = Some(next),
                    Some(next) => {
                        eprintln!("more: memory-bank memory list --cursor {next}");
                        break;
                    }
                    None => break,
                }
            }
        }
        MemoryCommand::Edit { id, content, tags, clear_tags } => {
            let content = match content.as_deref() {
                Some("-") => Some(read_stdin()?),
                _ => content,
            };
            let tags = if clear_tags { Some(Vec::new()) } else { (!tags.is_empty()).then_some(tags) };
            if content.is_none() && tags.is_none() {
                bail!("nothing to change: pass --content, --tag or --clear-tags");
            }
            let request = EditMemoryRequest { content, tags, confirmed_via: Some(memory_bank_contract::wire::ConfirmedVia::Cli) };
            let edited = client.edit(org()?, &id, &request).await?;
            if args.json {
                return print_json(&edited);
            }
            println!("edited {}", edited.id);
        }
        MemoryCommand::History { id } => {
            let history = client.revisions(org()?, &id).await?;
            if args.json {
                return print_json(&history);
            }
            if history.revisions.is_empty() {
                eprintln!("{id} was never edited");
            }
            for revision in &history.revisions {
                let replaced = revision.replaced_at.to_rfc3339();
                println!("{}  replaced {}", revision.id, &replaced[..16].replace('T', " "));
                println!("  {}", revision.content.replace('\n', "\n  "));
                if let Some(tags) = revision.tags.as_ref().filter(|t| !t.is_empty()) {
                    println!("  tags: {}", tags.join(", "));
                }
            }
        }
        MemoryCommand::Restore { id, revision } => {
            let restored = client.restore_revision(org()?, &id, &revision).await?;
            if args.json {
                return print_json(&restored);
            }
            println!("restored {} to {revision}", restored.id);
        }
        MemoryCommand::Export { format, team } => {
            let org = org()?;
            if format == "markdown" {
                let mut ndjson = Vec::new();
                let sink = |chunk: &[u8]| {
                    ndjson.extend_from_slice(chunk);
                    Ok(())
                };
                if team {
                    client.export_team(org, sink).await?;
                } else {
                    client.export(org, sink).await?;
                }
                let memories = std::str::from_utf8(&ndjson)?
                    .lines()
                    // An org's audit lines are not memories to read.
                    .filter(|l| !l.trim().is_empty() && !l.starts_with("{\"audit\""))
                    .map(serde_json::from_str)
                    .collect::<Result<Vec<ExportedMemory>, _>>()
                    .context("the service sent an export this version cannot read")?;
                print!("{}", crate::markdown::render(&memories));
            } else {
                // The service's bytes as they come: importing them gives the same bank.
                let mut stdout = std::io::stdout().lock();
                if team {
                    client.export_team(org, |chunk| stdout.write_all(chunk)).await?;
                } else {
                    client.export(org, |chunk| stdout.write_all(chunk)).await?;
                }
                stdout.flush()?;
            }
        }
        MemoryCommand::Import { file, on_conflict } => {
            let bytes = if file == "-" {
                let mut bytes = Vec::new();
                std::io::stdin().read_to_end(&mut bytes).context("cannot read the import from stdin")?;
                bytes
            } else {
                std::fs::read(&file).with_context(|| format!("cannot read {file}"))?
            };
            let on_conflict = OnConflict::parse(&on_conflict).unwrap_or_default();
            let report = client.import(org()?, bytes, on_conflict).await?;
            if args.json {
                print_json(&report)?;
            } else {
                println!("imported {}, skipped {}, overwritten {}, failed {}", report.imported, report.skipped, report.overwritten, report.failed_count);
                for new in &report.new_ids {
                    println!("line {}: imported under the new id {} (its own could not be kept)", new.line, new.id);
                }
                if report.new_id_count > report.new_ids.len() as u64 {
                    println!("… and {} more lines under new ids", report.new_id_count - report.new_ids.len() as u64);
                }
            }
            for failure in &report.failed {
                eprintln!("line {}: {} ({})", failure.line, failure.message, failure.error);
            }
            if report.failed_count > report.failed.len() as u64 {
                eprintln!("… and {} more lines", report.failed_count - report.failed.len() as u64);
            }
            if report.failed_count > 0 {
                bail!("{} lines were not imported (the others were)", report.failed_count);
            }
        }
        MemoryCommand::Delete { id } => match client.delete(org()?, &id).await? {
            DeleteOutcome::Deleted => println!("deleted {id}"),
            DeleteOutcome::NotFound => bail!("memory {id} not found: it does not exist, was already deleted, or is not yours"),
        },
    }
    Ok(())
}

fn read_stdin() -> anyhow::Result<String> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).context("cannot read the memory from stdin")?;
    Ok(text)
}

/// The duplicate hints of a save, on stderr so `saved ID` stays the one stdout line.
fn print_similar(similar: &[memory_bank_contract::wire::SimilarMemory], saved_id: &str) {
    if similar.is_empty() {
        return;
    }
    eprintln!("you already have:");
    for alike in similar {
        eprintln!("  {}  {}", alike.id, alike.content.replace('\n', " "));
    }
    eprintln!("nothing was merged; to keep one memory: memory-bank memory delete {saved_id}, then memory-bank memory edit ID --content \"…\"");
}

fn print_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// One memory as text: id, date, score, content, then tags and provenance.
fn print_memory(memory: &Memory, score: Option<f64>) {
    let date = memory.created_at.to_rfc3339();
    let score = score.map(|s| format!("  score {s:.3}")).unwrap_or_default();
    println!("{}  {}{}", memory.id, &date[..16].replace('T', " "), score);
    println!("  {}", memory.content.replace('\n', "\n  "));
    if let Some(tags) = memory.tags.as_ref().filter(|t| !t.is_empty()) {
        println!("  tags: {}", tags.join(", "));
    }
    for context in &memory.contexts {
        let cited = context
            .citation
            .as_ref()
            .map(|c| {
                let parts: Vec<&str> = [c.conversation_id.as_deref(), c.message_id.as_deref()].into_iter().flatten().collect();
                format!(" [{}]", parts.join(" / "))
            })
            .unwrap_or_default();
        println!("  from: {}{}", context.snippet.replace('\n', " "), cited);
    }
}

/// `--scope`: mine, team or all, in any case.
fn parse_scope(text: &str) -> Result<BankScope, String> {
    BankScope::parse(text).ok_or_else(|| format!("{text:?} is not a scope: use mine (your own memories), team (your org's) or all (both)"))
}
