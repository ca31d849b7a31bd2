//! `memory-bank admin …`: accounts and tokens, straight on the database.
//! Ids and tokens print alone on stdout so scripts can capture them.

use clap::Subcommand;
use memory_bank_contract::teams::Role;
use memory_bank_store::offboarding::OFFBOARD_BATCH;
use memory_bank_store::{Bank, Offboard, StoreError};

#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Users.
    User {
        #[command(subcommand)]
        command: UserCommand,
    },
    /// Organizations.
    Org {
        #[command(subcommand)]
        command: OrgCommand,
    },
    /// Org membership.
    Member {
        #[command(subcommand)]
        command: MemberCommand,
    },
    /// API tokens.
    Token {
        #[command(subcommand)]
        command: TokenCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Create a user; prints its id.
    Add {
        /// Email address (unique).
        email: String,
    },
    /// List users: id, email, created.
    List,
    /// Delete a user and everything of theirs: memories (with contexts and revisions),
    /// proposals, tokens and memberships, in batches. Stopped part way, run it again.
    Delete {
        /// User id (usr_…).
        user_id: String,
        /// Yes, delete it: this cannot be undone.
        #[arg(long)]
        yes: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum OrgCommand {
    /// Create an org; prints its id.
    Add {
        /// Display name.
        name: String,
    },
    /// List the orgs a user belongs to: id, name.
    List {
        /// User id (usr_…).
        #[arg(long)]
        member: String,
    },
    /// Show an org's policy, changing what is given first: memory on or off for the org,
    /// whether members' agents may propose to its team bank, the team bank's cap.
    Policy {
        /// Org id (org_…).
        org_id: String,
        /// on or off: off refuses every memory request in this org (403 org_memory_disabled).
        #[arg(long, value_parser = parse_switch)]
        memory: Option<bool>,
        /// on or off: off refuses agents' proposals to the team bank.
        #[arg(long, value_parser = parse_switch)]
        agents_may_propose: Option<bool>,
        /// The most memories the team bank may hold, or none.
        #[arg(long, value_parser = parse_cap)]
        max_memories: Option<Cap>,
    },
    /// An org's audit log, newest first: seq, time, who, what, memory, proposal, length.
    Audit {
        /// Org id (org_…).
        org_id: String,
        /// Lines to show (1–200).
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=200))]
        limit: u32,
        /// Only lines before this seq (the last seq of the previous page).
        #[arg(long)]
        before: Option<i64>,
    },
    /// Delete an org: its memberships and every memory and proposal recorded with it,
    /// in batches. Its users stay. Stopped part way, run it again.
    Delete {
        /// Org id (org_…).
        org_id: String,
        /// Yes, delete it: this cannot be undone.
        #[arg(long)]
        yes: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum MemberCommand {
    /// Add a user to an org (an org's first member owns it; later ones are members unless
    /// --role says otherwise). Given to someone already a member, --role changes their role.
    Add {
        /// Org id (org_…).
        org_id: String,
        /// User id (usr_…).
        user_id: String,
        /// owner, admin or member. Admins and owners confirm what goes in the team bank;
        /// owners also set its policy.
        #[arg(long, value_parser = parse_role)]
        role: Option<Role>,
    },
    /// List an org's members: id, email, role (owners first).
    List {
        /// Org id (org_…).
        org_id: String,
    },
    /// Give a member another role (an org keeps one owner at least).
    Role {
        /// Org id (org_…).
        org_id: String,
        /// User id (usr_…).
        user_id: String,
        /// owner, admin or member.
        #[arg(value_parser = parse_role)]
        role: Role,
    },
    /// Remove a member from an org: they stop seeing its team bank at once. Their own
    /// memories stay theirs; the team memories they saved stay the org's.
    Remove {
        /// Org id (org_…).
        org_id: String,
        /// User id (usr_…).
        user_id: String,
    },
}

fn parse_role(text: &str) -> Result<Role, String> {
    Role::parse(text).ok_or_else(|| format!("{text:?} is not a role; use owner, admin or member"))
}

fn parse_switch(text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" => Ok(true),
        "off" | "false" | "no" => Ok(false),
        _ => Err(format!("{text:?}: use on or off")),
    }
}

/// A team bank's cap as typed: a number, or `none` (no cap). A type of its own: clap reads
/// `Option<Option<_>>` as a flag whose value may be left out.
#[derive(Debug, Clone, Copy)]
pub struct Cap(Option<u64>);

fn parse_cap(text: &str) -> Result<Cap, String> {
    if text.trim().eq_ignore_ascii_case("none") {
        return Ok(Cap(None));
    }
    text.trim().parse().map(|n| Cap(Some(n))).map_err(|_| format!("{text:?}: use a number of memories, or none"))
}

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Issue a token for a user; prints it once (only its hash is stored).
    Issue {
        /// User id (usr_…).
        user_id: String,
        /// An agent token: it may search, list and propose, but never save, accept,
        /// reject or delete (those need the person: 403 agent_token_cannot_confirm).
        #[arg(long)]
        agent: bool,
    },
    /// Revoke a token.
    Revoke {
        /// The token itself.
        token: String,
    },
}

pub async fn run(bank: &Bank, command: AdminCommand) -> anyhow::Result<()> {
    match command {
        AdminCommand::User { command: UserCommand::Add { email } } => println!("{}", bank.add_user(&email).await?.id),
        AdminCommand::User { command: UserCommand::List } => {
            for user in bank.list_users().await? {
                println!("{}\t{}\t{}", user.id, user.email, user.created_at);
            }
        }
        AdminCommand::Org { command: OrgCommand::Add { name } } => println!("{}", bank.add_org(&name).await?.id),
        AdminCommand::Org { command: OrgCommand::List { member } } => {
            for org in bank.user_orgs(&member).await? {
                println!("{}\t{}", org.id, org.name);
            }
        }
        AdminCommand::User { command: UserCommand::Delete { user_id, yes } } => {
            offboard(bank, Offboard::User(&user_id), yes, "user").await?;
        }
        AdminCommand::Org { command: OrgCommand::Delete { org_id, yes } } => {
            offboard(bank, Offboard::Org(&org_id), yes, "org").await?;
        }
        AdminCommand::Member { command: MemberCommand::Add { org_id, user_id, role } } => {
            match role {
                Some(role) => bank.add_member_as(&org_id, &user_id, role).await?,
                None => bank.add_member(&org_id, &user_id).await?,
            }
            let role = bank.member_role(&user_id, &org_id).await?.map_or("member".into(), |r| r.to_string());
            eprintln!("{user_id} is a member of {org_id} ({role})");
        }
        AdminCommand::Member { command: MemberCommand::List { org_id } } => {
            for member in bank.org_members(&org_id).await? {
                println!("{}\t{}\t{}", member.user_id, member.email, member.role);
            }
        }
        AdminCommand::Member { command: MemberCommand::Role { org_id, user_id, role } } => {
            bank.set_member_role(&org_id, &user_id, role).await?;
            eprintln!("{user_id} is now {role} of {org_id}");
        }
        AdminCommand::Member { command: MemberCommand::Remove { org_id, user_id } } => {
            if !bank.remove_member(&org_id, &user_id).await? {
                anyhow::bail!("{user_id} is not a member of {org_id} (`memory-bank admin member list {org_id}`)");
            }
            eprintln!("{user_id} is no longer a member of {org_id}");
        }
        AdminCommand::Org { command: OrgCommand::Policy { org_id, memory, agents_may_propose, max_memories } } => {
            if bank.org(&org_id).await?.is_none() {
                anyhow::bail!("no org {org_id}: check the id (`memory-bank admin org list --member USER_ID`)");
            }
            let mut policy = bank.org_policy(&org_id).await?;
            if memory.is_some() || agents_may_propose.is_some() || max_memories.is_some() {
                policy.memory_enabled = memory.unwrap_or(policy.memory_enabled);
                policy.agents_may_propose = agents_may_propose.unwrap_or(policy.agents_may_propose);
                policy.max_memories = max_memories.map_or(policy.max_memories, |Cap(cap)| cap);
                bank.set_org_policy(&org_id, &policy).await?;
            }
            let switch = |on: bool| if on { "on" } else { "off" };
            println!("memory\t{}", switch(policy.memory_enabled));
            println!("agents-may-propose\t{}", switch(policy.agents_may_propose));
            println!("max-memories\t{}", policy.max_memories.map_or("none".into(), |n| n.to_string()));
        }
        AdminCommand::Org { command: OrgCommand::Audit { org_id, limit, before } } => {
            for line in bank.org_audit(&org_id, before, limit).await? {
                let or_dash = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
                println!(
                    "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                    line.seq,
                    line.at,
                    line.actor_id,
                    line.action.as_str(),
                    or_dash(&line.memory_id),
                    or_dash(&line.proposal_id),
                    line.content_chars.map_or("-".into(), |n| n.to_string())
                );
            }
        }
        AdminCommand::Token { command: TokenCommand::Issue { user_id, agent } } => {
            let kind = if agent { memory_bank_store::TokenKind::Agent } else { memory_bank_store::TokenKind::Full };
            println!("{}", bank.issue_token_of_kind(&user_id, kind).await?)
        }
        AdminCommand::Token { command: TokenCommand::Revoke { token } } => {
            if !bank.revoke_token(&token).await? {
                anyhow::bail!("no live token matches; it may already be revoked");
            }
            eprintln!("token revoked");
        }
    }
    Ok(())
}

async fn offboard(bank: &Bank, target: Offboard<'_>, yes: bool, what: &str) -> anyhow::Result<()> {
    let (Offboard::User(id) | Offboard::Org(id)) = target;
    if !yes {
        anyhow::bail!("this deletes {what} {id} and everything recorded with it, for good; run it again with --yes");
    }
    match bank.offboard(target, OFFBOARD_BATCH).await {
        Ok(report) => {
            eprintln!("deleted {what} {id} and {} memories", report.memories);
            for org_id in &report.orgs_without_owner {
                eprintln!(
                    "{org_id} has no owner now: give it one with `memory-bank admin member role {org_id} USER_ID owner`"
                );
            }
            Ok(())
        }
        Err(StoreError::NotFound(_)) => {
            let list = if what == "user" { "admin user list" } else { "admin org list --member USER_ID" };
            anyhow::bail!("no {what} {id}: check the id (`memory-bank {list}`), or it was deleted already")
        }
        Err(other) => Err(anyhow::Error::new(other).context(format!("{what} {id} is partly deleted; run the same command again to finish"))),
    }
}
