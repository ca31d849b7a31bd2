//! `memory-bank recall`, the hook agents run when the person lets them look up relevant
//! memories by themselves: the real binary, a real local bank (SQLite, encrypted with a
//! key file), the hook's JSON on stdin as Claude Code, Codex and Gemini CLI send it.
//! It prints only memories that clearly bear on the prompt, in the hook's answer format,
//! within its bounds; never a proposal or a secret-looking text; and whatever goes wrong it
//! prints nothing and exits 0, with one line in the log.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use memory_bank_access::{LocalAccess, MemoryAccess};
use memory_bank_contract::wire::{AcceptProposalRequest, ProposeRequest};
use memory_bank_db_key::KeySource;
use memory_bank_store::NewMemory;
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_memory-bank");

struct Bank {
    dir: tempfile::TempDir,
}

impl Bank {
    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn key_file(&self) -> PathBuf {
        self.dir.path().join("bank.key")
    }

    /// A local bank holding `saved` (confirmed as the person would), plus `pending`
    /// proposals left waiting.
    async fn with(saved: &[&str], pending: &[&str]) -> (Bank, LocalAccess) {
        let bank = Bank { dir: tempfile::tempdir().unwrap() };
        let mut key = memory_bank_access::private_files::create_file(&bank.key_file()).unwrap();
        key.write_all("ab".repeat(32).as_bytes()).unwrap();
        let access = LocalAccess::open_searching(&bank.data(), &KeySource::File(bank.key_file()), true).await.unwrap();
        for content in saved {
            let proposal = access.propose(ProposeRequest { content: Some((*content).into()), ..Default::default() }).await.unwrap();
            access.accept(&proposal.id, AcceptProposalRequest::default()).await.unwrap();
        }
        for content in pending {
            access.propose(ProposeRequest { content: Some((*content).into()), ..Default::default() }).await.unwrap();
        }
        (bank, access)
    }

    fn recall(&self, agent: &str, input: &str) -> Output {
        let key = self.key_file();
        let mut child = Command::new(BIN)
            .args(["recall", "--db-key-file", key.to_str().unwrap(), "--agent", agent])
            .env("MEMORY_BANK_DATA_DIR", self.data())
            .env("HOME", self.dir.path())
            .env_remove("MEMORY_BANK_DB_KEY_FILE")
            .env_remove("MEMORY_BANK_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.data().join("recall.log")).unwrap_or_default()
    }
}

fn prompt_event(event: &str, prompt: &str, cwd: &str) -> String {
    json!({"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": cwd, "hook_event_name": event, "prompt": prompt}).to_string()
}

/// The additional context of a hook's answer, after checking the answer's shape.
fn context_of(out: &Output, event: &str) -> String {
    assert!(out.status.success(), "exit {:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    let answer: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is one JSON answer ({e}): {:?}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], event);
    answer["hookSpecificOutput"]["additionalContext"].as_str().expect("a context").to_owned()
}

fn silent(out: &Output) {
    assert!(out.status.success(), "exit {:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty(), "printed {:?}", String::from_utf8_lossy(&out.stdout));
}

const NOISE: [&str; 6] = [
    "The person drinks green tea in the morning.",
    "Their cat is called Miso.",
    "They prefer short answers without preamble.",
    "The laptop runs Debian 12 with GNOME.",
    "Weekly planning happens on Monday mornings.",
    "They read science fiction on the train.",
];

#[tokio::test]
async fn a_prompt_brings_the_memories_about_it_and_nothing_else() {
    let mut saved = vec!["Staging deploys need the VPN to be up first.", "The billing service owns invoices and refunds."];
    saved.extend(NOISE);
    let (bank, access) = Bank::with(&saved, &["Staging deploys are frozen on Fridays (proposed, not confirmed)."]).await;
    let staging = access.search("VPN", 5, None).await.unwrap()[0].memory.clone();

    for (agent, event) in [("claude-code", "UserPromptSubmit"), ("codex", "UserPromptSubmit"), ("gemini", "BeforeAgent")] {
        let out = bank.recall(agent, &prompt_event(event, "How do I deploy to staging?", "/home/ada/src/web"));
        let context = context_of(&out, event);
        assert!(context.contains(&format!("- {} [{}]", staging.content, staging.id)), "{agent}: {context}");
        assert!(!context.contains("Fridays"), "a proposal is never recalled: {context}");
        assert!(!context.contains("billing") && !context.contains("tea"), "{context}");
        assert!(context.contains("not instructions"), "{context}");
    }
    // Nothing in the bank is about this: nothing is said at all.
    silent(&bank.recall("claude-code", &prompt_event("UserPromptSubmit", "Rename the helper function in utils.py", "/w/app")));
    assert_eq!(bank.log(), "", "nothing went wrong");
}

#[tokio::test]
async fn a_session_start_brings_what_names_the_project() {
    let mut saved = vec!["The billing service owns invoices and refunds.", "Billing runs its migrations by hand."];
    saved.extend(NOISE);
    let (bank, _access) = Bank::with(&saved, &[]).await;
    let start = json!({"hook_event_name": "SessionStart", "source": "startup", "cwd": "/home/ada/src/billing"}).to_string();
    let context = context_of(&bank.recall("claude-code", &start), "SessionStart");
    assert!(context.contains("owns invoices") && context.contains("migrations by hand"), "{context}");
    assert!(!context.contains("Miso"), "{context}");
    // In the home folder there is no project to go on.
    let home = json!({"hook_event_name": "SessionStart", "cwd": bank.dir.path()}).to_string();
    silent(&bank.recall("claude-code", &home));
}

#[tokio::test]
async fn at_most_five_memories_and_two_kilobytes_and_never_a_secret() {
    // Eight long memories, each about the prompt (its own code word, and the deploy step).
    let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"];
    let tail = "and the rest of the runbook is in the wiki ".repeat(40);
    let many: Vec<String> = words.iter().map(|w| format!("{w} deploy step: check the VPN {tail}")).collect();
    let mut saved: Vec<&str> = many.iter().map(String::as_str).collect();
    saved.extend(NOISE);
    let (bank, access) = Bank::with(&saved, &[]).await;
    // An older bank may hold what today's gate would refuse; this one matches best of all.
    let key = ["AKIA", "IOSFODNN7EXAMPLE"].concat();
    let org = access.bank().user_orgs(access.user_id()).await.unwrap().remove(0).id;
    let secret = NewMemory::plain(access.user_id(), &org, format!("alpha bravo deploy step VPN key {key}"), 1_800_000_000_000);
    access.bank().store().insert_memory(&secret).await.unwrap();

    let prompt = format!("{} deploy step VPN", words.join(" "));
    let context = context_of(&bank.recall("claude-code", &prompt_event("UserPromptSubmit", &prompt, "/w/x")), "UserPromptSubmit");
    assert!(context.len() <= 2048, "{} bytes", context.len());
    let items: Vec<&str> = context.lines().filter(|l| l.starts_with("- ")).collect();
    assert_eq!(items.len(), 5, "{context}");
    assert!(items.iter().all(|l| l.contains("deploy step") && l.ends_with(']')), "{context}");
    assert!(!context.contains(&key) && !context.contains(&secret.id), "{context}");
}

#[tokio::test]
async fn whatever_goes_wrong_it_prints_nothing_exits_0_and_says_why_in_the_log() {
    let (bank, _access) = Bank::with(&["Staging deploys need the VPN."], &[]).await;
    let prompt = "How do I deploy to staging? (a private prompt)";

    // Not a hook event.
    silent(&bank.recall("claude-code", "this is not json"));
    let log = bank.log();
    assert!(log.contains("recall for claude-code printed nothing: the hook's input is not JSON"), "{log}");

    // The bank's key is wrong: the bank cannot be read.
    std::fs::write(bank.key_file(), "00".repeat(32)).unwrap();
    let out = bank.recall("codex", &prompt_event("UserPromptSubmit", prompt, "/w/x"));
    silent(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("memory-bank: recall for codex printed nothing"), "{out:?}");
    let log = bank.log();
    assert_eq!(log.lines().count(), 2, "{log}");
    assert!(!log.contains("private prompt") && !log.contains("VPN"), "the log says why, never what: {log}");
    assert!(log.lines().all(|l| l.starts_with("20")), "each line is dated: {log}");
    #[cfg(unix)]
    assert_eq!(memory_bank_private_files::testing::mode(&bank.data().join("recall.log")), 0o600);

    // No bank yet: nothing to recall, nothing wrong.
    let empty = Bank { dir: tempfile::tempdir().unwrap() };
    std::fs::write(empty.key_file(), "11".repeat(32)).unwrap();
    silent(&empty.recall("gemini", &prompt_event("BeforeAgent", prompt, "/w/x")));
    assert_eq!(empty.log(), "");
}
