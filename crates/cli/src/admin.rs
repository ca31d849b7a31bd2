//! `memory-bank admin …`: accounts and tokens, straight on the database.
//! Ids and tokens print alone on stdout so scripts can capture them.

use clap::Subcommand;
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
    /// Add a user to an org.
    Add {
        /// Org id (org_…).
        org_id: String,
        /// User id (usr_…).
        user_id: String,
    },
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
        AdminCommand::Member { command: MemberCommand::Add { org_id, user_id } } => {
            bank.add_member(&org_id, &user_id).await?;
            eprintln!("{user_id} is a member of {org_id}");
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
            Ok(())
        }
        Err(StoreError::NotFound(_)) => {
            let list = if what == "user" { "admin user list" } else { "admin org list --member USER_ID" };
            anyhow::bail!("no {what} {id}: check the id (`memory-bank {list}`), or it was deleted already")
        }
        Err(other) => Err(anyhow::Error::new(other).context(format!("{what} {id} is partly deleted; run the same command again to finish"))),
    }
}
