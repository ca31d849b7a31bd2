//! `memory-bank admin` for team banks (docs/teams.md), end to end on a real SQLite file:
//! roles (an org's first member owns it, one owner always stays), removing a member,
//! an org's policy, and deleting the last owner saying what the operator must do next;
//! then `memory save --team` (a member's proposed to the org Inbox) and `--scope` on
//! search and list through a real `serve`.

#[path = "support/serve_process.rs"]
mod serve_process;

use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_memory-bank");

fn run(dir: &Path, args: &[&str]) -> Output {
    let url = format!("sqlite://{}", dir.join("memory.db").display());
    Command::new(BIN).args(["--database-url", &url]).args(args).env_remove("MEMORY_BANK_TOKEN").output().unwrap()
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = run(dir, args);
    assert!(out.status.success(), "{args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn refused(dir: &Path, args: &[&str]) -> String {
    let out = run(dir, args);
    assert!(!out.status.success(), "{args:?} should fail");
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn roles_membership_and_policy_through_the_admin_commands() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ada = ok(d, &["admin", "user", "add", "ada@example.com"]).trim().to_owned();
    let bob = ok(d, &["admin", "user", "add", "bob@example.com"]).trim().to_owned();
    let cy = ok(d, &["admin", "user", "add", "cy@example.com"]).trim().to_owned();
    let org = ok(d, &["admin", "org", "add", "Lab"]).trim().to_owned();
    ok(d, &["admin", "member", "add", &org, &ada]);
    ok(d, &["admin", "member", "add", &org, &bob]);
    ok(d, &["admin", "member", "add", &org, &cy, "--role", "admin"]);
    let list = ok(d, &["admin", "member", "list", &org]);
    assert_eq!(
        list,
        format!("{ada}\tada@example.com\towner\n{cy}\tcy@example.com\tadmin\n{bob}\tbob@example.com\tmember\n"),
        "owners first, then admins, then members"
    );

    let bad_role = refused(d, &["admin", "member", "role", &org, &bob, "root"]);
    assert!(bad_role.contains("use owner, admin or member"), "{bad_role}");
    let last = refused(d, &["admin", "member", "role", &org, &ada, "member"]);
    assert!(last.contains("Lab would have no owner left") && last.contains("make another member its owner first"), "{last}");
    ok(d, &["admin", "member", "role", &org, &bob, "owner"]);
    ok(d, &["admin", "member", "role", &org, &ada, "member"]);
    ok(d, &["admin", "member", "remove", &org, &ada]);
    let gone = refused(d, &["admin", "member", "remove", &org, &ada]);
    assert!(gone.contains("is not a member"), "{gone}");
    assert!(!ok(d, &["admin", "member", "list", &org]).contains(&ada));

    // Policy: the defaults, then what was changed, kept.
    assert_eq!(ok(d, &["admin", "org", "policy", &org]), "memory\ton\nagents-may-propose\ton\nmax-memories\tnone\n");
    let set = ok(d, &["admin", "org", "policy", &org, "--agents-may-propose", "off", "--max-memories", "500"]);
    assert_eq!(set, "memory\ton\nagents-may-propose\toff\nmax-memories\t500\n");
    assert_eq!(ok(d, &["admin", "org", "policy", &org, "--memory", "off"]), "memory\toff\nagents-may-propose\toff\nmax-memories\t500\n");
    assert_eq!(ok(d, &["admin", "org", "policy", &org, "--max-memories", "none"]), "memory\toff\nagents-may-propose\toff\nmax-memories\tnone\n");
    let bad_switch = refused(d, &["admin", "org", "policy", &org, "--memory", "maybe"]);
    assert!(bad_switch.contains("use on or off"), "{bad_switch}");
    let no_org = refused(d, &["admin", "org", "policy", "org_missing"]);
    assert!(no_org.contains("no org org_missing"), "{no_org}");
    assert_eq!(ok(d, &["admin", "org", "audit", &org]), "", "nothing changed in the team bank yet");

    // Deleting the org's only owner: done, and the operator is told the org needs one.
    let deleted = run(d, &["admin", "user", "delete", &bob, "--yes"]);
    assert!(deleted.status.success());
    let said = String::from_utf8_lossy(&deleted.stderr);
    assert!(said.contains(&format!("{org} has no owner now")) && said.contains("admin member role"), "{said}");
    ok(d, &["admin", "member", "role", &org, &cy, "owner"]);
}

/// `memory` against a running service as the holder of `token`, in `org`.
fn memory(url: &str, token: &str, org: &str, args: &[&str]) -> Output {
    Command::new(BIN).arg("memory").args(args).env("MEMORY_BANK_URL", url).env("MEMORY_BANK_TOKEN", token).env("MEMORY_BANK_ORG", org).output().unwrap()
}

fn contents(out: Output) -> Vec<String> {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut found: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["content"].as_str().unwrap().to_owned())
        .collect();
    found.sort();
    found
}

#[test]
fn the_team_bank_through_save_search_and_list() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ada = ok(d, &["admin", "user", "add", "ada@example.com"]).trim().to_owned();
    let bob = ok(d, &["admin", "user", "add", "bob@example.com"]).trim().to_owned();
    let org = ok(d, &["admin", "org", "add", "Lab"]).trim().to_owned();
    ok(d, &["admin", "member", "add", &org, &ada]); // the owner
    ok(d, &["admin", "member", "add", &org, &bob]);
    let (ada_token, bob_token) = (ok(d, &["admin", "token", "issue", &ada]).trim().to_owned(), ok(d, &["admin", "token", "issue", &bob]).trim().to_owned());
    let url = format!("sqlite://{}", d.join("memory.db").display());
    let mut serving = serve_process::start(BIN, &url, &[]).expect("serve starts");

    let saved = memory(&serving.url, &ada_token, &org, &["save", "--team", "Staging deploys need the VPN"]);
    assert!(saved.status.success(), "{}", String::from_utf8_lossy(&saved.stderr));
    let proposed = memory(&serving.url, &bob_token, &org, &["save", "--team", "Bob's team fact"]);
    assert!(proposed.status.success(), "{}", String::from_utf8_lossy(&proposed.stderr));
    assert!(String::from_utf8_lossy(&proposed.stdout).starts_with("proposed prop_"), "{}", String::from_utf8_lossy(&proposed.stdout));
    let why = String::from_utf8_lossy(&proposed.stderr);
    assert!(why.contains("admins and owners") && why.contains("org Inbox"), "says where it waits: {why}");
    assert!(memory(&serving.url, &bob_token, &org, &["save", "Bob deploys on Fridays"]).status.success());

    let search = |scope: &str| memory(&serving.url, &bob_token, &org, &["--json", "list", "--all", "--scope", scope]);
    assert_eq!(contents(search("team")), ["Staging deploys need the VPN"]);
    assert_eq!(contents(search("mine")), ["Bob deploys on Fridays"]);
    assert_eq!(contents(search("all")), ["Bob deploys on Fridays", "Staging deploys need the VPN"]);
    let found = memory(&serving.url, &ada_token, &org, &["search", "deploys", "--scope", "all"]);
    let text = String::from_utf8_lossy(&found.stdout);
    assert!(text.contains("Staging deploys need the VPN") && !text.contains("Bob deploys"), "the owner never reads Bob's own: {text}");
    // The org's export: its memories, then its log (the Markdown: the memories only);
    // refused to a member with the org's reason.
    let exported = memory(&serving.url, &ada_token, &org, &["export", "--team"]);
    assert!(exported.status.success(), "{}", String::from_utf8_lossy(&exported.stderr));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&exported.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["content"], "Staging deploys need the VPN");
    assert!(lines[1..].iter().all(|l| l["audit"]["action"].is_string()) && lines.len() >= 3, "then the log: {lines:?}");
    let readable = memory(&serving.url, &ada_token, &org, &["export", "--team", "--format", "markdown"]);
    let text = String::from_utf8_lossy(&readable.stdout);
    assert!(text.contains("Staging deploys need the VPN") && !text.contains("audit") && !text.contains("Bob deploys"), "{text}");
    let refused = memory(&serving.url, &bob_token, &org, &["export", "--team"]);
    assert!(!refused.status.success() && String::from_utf8_lossy(&refused.stderr).contains("admins and owners"), "{}", String::from_utf8_lossy(&refused.stderr));
    let bad = memory(&serving.url, &bob_token, &org, &["search", "deploys", "--scope", "everyone"]);
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("mine (your own memories), team"), "{}", String::from_utf8_lossy(&bad.stderr));
    let _ = serving.child.kill();
    let _ = serving.child.wait();
}
