//! The Inbox: what agents proposed and the person has not decided yet.
//!
//! Agents never save or delete a memory themselves: they propose (`POST /v1/proposals`),
//! and the proposal waits here until the person accepts it (with the sentence and tags
//! edited if they like) or rejects it. [`Core::accept_proposal`] applies the same secret
//! check as [`Core::save`] to exactly what the person accepts, so nothing secret is stored
//! even if the UI is bypassed.
//!
//! [`InboxWatch`] polls the pending list while the app runs, so the UI (an event) and the
//! desktop notification learn about a new proposal within [`INBOX_POLL`], whichever door
//! it came through (`memory-bank mcp`, `serve`'s `/mcp`, or plain HTTP).

use std::collections::HashSet;
use std::time::Duration;

use memory_bank_contract::wire::{
    AcceptProposalRequest, ConfirmedVia, ContextInput, Proposal, ProposalAction, ProposalListResponse, ProposalResponse,
    ProposalStatus, ProposedContext, SaveMemoryRequest,
};
use serde::Serialize;

use crate::{Account, Core, DesktopError};

/// How often [`InboxWatch`] asks the service for pending proposals. With the UI's render
/// on top, a new proposal shows within 5 s.
pub const INBOX_POLL: Duration = Duration::from_secs(2);

/// The most pending proposals one list returns (the API's page limit).
pub const INBOX_LIMIT: u32 = 100;

/// The person's edits when accepting a save proposal; what is absent stays as proposed.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct ProposalEdits {
    /// The sentence as the person edited it.
    #[serde(default)]
    pub content: Option<String>,
    /// The tags as the person edited them (`[]` removes them all).
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// A save only: rewrite this memory (one of the proposal's `similar`) with the
    /// sentence instead of saving a new one.
    #[serde(default)]
    pub edit_instead: Option<String>,
    /// An edit or delete whose memory changed since it was proposed: the memory as the
    /// person saw it now (the proposal's `memoryNow`), to apply it over that anyway.
    #[serde(default)]
    pub memory_now: Option<memory_bank_contract::wire::MemoryVersion>,
}

impl Core {
    /// The pending proposals of the signed-in user, newest first (at most
    /// [`INBOX_LIMIT`]; `nextCursor` says whether there are more). `org_id` is the org the
    /// request is made in; proposals of every org of the user are listed, each with its
    /// own `orgId`.
    pub async fn list_proposals(&self, org_id: &str) -> Result<ProposalListResponse, DesktopError> {
        Ok(self.client().await?.list_proposals(org_id, Some(ProposalStatus::Pending), Some(INBOX_LIMIT), None).await?)
    }

    /// Accepts a proposal as the person (`confirmedVia: app`): a save stores the draft
    /// with `edits` merged in, a delete removes the memory. The merged text passes the
    /// gate first (`looks_like_secret`, `invalid_request`: nothing leaves the app), as
    /// [`Core::save`] does; the service runs the same gate again. An edit or delete whose
    /// memory changed since it was proposed is `memory_changed` unless `edits.memoryNow`
    /// names the version the person saw.
    pub async fn accept_proposal(&self, org_id: &str, id: &str, edits: ProposalEdits) -> Result<ProposalResponse, DesktopError> {
        let client = self.client().await?;
        let proposal = client.proposal(org_id, id).await?.proposal;
        let mut request = AcceptProposalRequest { confirmed_via: Some(ConfirmedVia::App), ..Default::default() };
        // A save or an edit: the person's wording is checked before it is sent.
        if proposal.action != ProposalAction::Delete {
            let merged = SaveMemoryRequest {
                content: edits.content.clone().unwrap_or_else(|| proposal.content.clone()),
                tags: edits.tags.clone().or_else(|| proposal.tags.clone()),
                contexts: Some(proposal.contexts.iter().map(context_input).collect()),
                confirmed_via: Some(ConfirmedVia::App),
                scope: None,
            };
            crate::core::through_the_gate(&merged)?;
            request.content = edits.content;
            request.tags = edits.tags;
            request.edit_instead = edits.edit_instead;
        }
        request.memory_now = edits.memory_now;
        Ok(client.accept_proposal(org_id, id, &request).await?)
    }

    /// Rejects a proposal: nothing is saved or deleted.
    pub async fn reject_proposal(&self, org_id: &str, id: &str) -> Result<ProposalResponse, DesktopError> {
        Ok(self.client().await?.reject_proposal(org_id, id).await?)
    }
}

fn context_input(context: &ProposedContext) -> ContextInput {
    let citation = context.citation.clone().unwrap_or_default();
    ContextInput {
        snippet: context.snippet.clone(),
        conversation_id: citation.conversation_id,
        message_id: citation.message_id,
        origin: context.origin,
    }
}

/// What changed in the Inbox since the last look.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct InboxChange {
    /// Pending proposals now (the person's own, and the org Inbox's for its admins and owners).
    pub pending: usize,
    /// Proposals that were not there at the last look (never those already waiting when
    /// the app started or switched accounts: they are not news).
    #[serde(skip)]
    pub new: Vec<Proposal>,
}

/// Looks the org Inbox is skipped for after it was refused (the person is a member):
/// a member's role is asked again every 30 s, not every 2 s.
const TEAM_REFUSED_SKIPS: u32 = 15;

/// Remembers which proposals were pending at the last look, per account.
#[derive(Debug, Default)]
pub struct InboxWatch {
    /// The account and user the ids belong to; `None` before the first look.
    owner: Option<(Account, String)>,
    pending: HashSet<String>,
    failing: bool,
    /// The org Inbox at the last look that answered (empty for a member).
    team: Vec<Proposal>,
    /// Looks left before the org Inbox is asked again after a refusal.
    team_skips: u32,
}

impl InboxWatch {
    /// A watch that has not looked yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Looks at the pending proposals once. `None` when nothing changed, or when there is
    /// no account or org to look in (or the service did not answer; logged once per
    /// outage).
    pub async fn check(&mut self, core: &Core) -> Option<InboxChange> {
        let state = core.state().await;
        let (Some(account), Some(user)) = (state.account, state.user) else {
            self.owner = None;
            return None;
        };
        let org = state.active_org_id.or_else(|| state.orgs.first().map(|o| o.id.clone()))?;
        let mut listed = match core.list_proposals(&org).await {
            Ok(listed) => {
                self.failing = false;
                listed
            }
            Err(err) => {
                if !std::mem::replace(&mut self.failing, true) {
                    tracing::info!(code = %err.code, "cannot look at the inbox: {}", err.message);
                }
                return None;
            }
        };
        let owner = (account, user.id);
        let first_look = self.owner.as_ref() != Some(&owner);
        if first_look {
            self.team.clear();
            self.team_skips = 0;
        }
        // The org Inbox too, for its admins and owners (a member's own team proposals wait
        // for someone else: not news for them).
        if self.team_skips > 0 {
            self.team_skips -= 1;
        } else {
            match core.team_proposals_to_decide(&org).await {
                Ok(Some(team)) => self.team = team.proposals,
                Ok(None) => {
                    self.team.clear();
                    self.team_skips = TEAM_REFUSED_SKIPS;
                }
                // Kept as it was: a blip must not make its proposals new again.
                Err(_) => {}
            }
        }
        listed.proposals.extend(self.team.iter().cloned());
        let now: HashSet<String> = listed.proposals.iter().map(|p| p.id.clone()).collect();
        if !first_look && now == self.pending {
            return None;
        }
        let new = if first_look {
            Vec::new()
        } else {
            listed.proposals.into_iter().filter(|p| !self.pending.contains(&p.id)).collect()
        };
        self.owner = Some(owner);
        self.pending = now;
        Some(InboxChange { pending: self.pending.len(), new })
    }
}

/// Polls the Inbox every `every` for as long as the future runs, reporting each change.
pub async fn watch_inbox(core: std::sync::Arc<Core>, every: Duration, mut on_change: impl FnMut(InboxChange) + Send) {
    let mut watch = InboxWatch::new();
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        if let Some(change) = watch.check(&core).await {
            on_change(change);
        }
    }
}

/// The name people know an MCP client by (`claude-code` → "Claude Code"); a name we do
/// not know is shown as given. Mirrors `clientName` in the UI.
pub fn client_display_name(name: &str) -> String {
    let known = match name.trim().to_ascii_lowercase().as_str() {
        "claude-code" | "claude code" => "Claude Code",
        "codex" | "codex-mcp-client" | "codex-cli" => "Codex",
        "opencode" => "opencode",
        "gemini-cli" | "gemini" | "gemini-cli-mcp-client" => "Gemini CLI",
        _ => return name.trim().to_owned(),
    };
    known.to_owned()
}

/// Title and body of the desktop notification for new proposals, in `language` (`zh…`
/// for Simplified Chinese, anything else English); `None` when there is nothing new.
pub fn notification_text(new: &[Proposal], language: &str) -> Option<(String, String)> {
    const SENTENCE_CHARS: usize = 120;
    let zh = language.to_ascii_lowercase().starts_with("zh");
    let title = if zh { "记忆库" } else { "Memory Bank" }.to_owned();
    let body = match new {
        [] => return None,
        [one] => {
            let who = one.proposed_by.as_deref().map(client_display_name);
            let sentence = shorten(&one.content, SENTENCE_CHARS);
            match (one.action, who, zh) {
                (ProposalAction::Save, Some(who), false) => format!("{who} proposes a memory: “{sentence}”"),
                (ProposalAction::Save, None, false) => format!("An agent proposes a memory: “{sentence}”"),
                (ProposalAction::Delete, Some(who), false) => format!("{who} asks to delete a memory: “{sentence}”"),
                (ProposalAction::Delete, None, false) => format!("An agent asks to delete a memory: “{sentence}”"),
                (ProposalAction::Save, Some(who), true) => format!("{who} 提议保存一条记忆：“{sentence}”"),
                (ProposalAction::Save, None, true) => format!("智能体提议保存一条记忆：“{sentence}”"),
                (ProposalAction::Delete, Some(who), true) => format!("{who} 请求删除一条记忆：“{sentence}”"),
                (ProposalAction::Delete, None, true) => format!("智能体请求删除一条记忆：“{sentence}”"),
                (ProposalAction::Edit, Some(who), false) => format!("{who} proposes an edit: “{sentence}”"),
                (ProposalAction::Edit, None, false) => format!("An agent proposes an edit: “{sentence}”"),
                (ProposalAction::Edit, Some(who), true) => format!("{who} 提议修改一条记忆为：“{sentence}”"),
                (ProposalAction::Edit, None, true) => format!("智能体提议修改一条记忆为：“{sentence}”"),
            }
        }
        many if zh => format!("收件箱中有 {} 条新的提议等你确认。", many.len()),
        many => format!("{} new proposals wait for you in the Inbox.", many.len()),
    };
    Some((title, body))
}

/// The language for text Rust shows itself (notifications): the person's choice, else
/// the OS locale as the POSIX variables give it (`LC_ALL`, `LC_MESSAGES`, `LANG`), else English.
pub fn notification_language(chosen: Option<&str>) -> String {
    if let Some(chosen) = chosen {
        return chosen.to_owned();
    }
    ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|value| !value.trim().is_empty())
        .unwrap_or_else(|| "en".into())
}

fn shorten(text: &str, max: usize) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= max {
        return text;
    }
    let cut: String = text.chars().take(max - 1).collect();
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proposal(action: ProposalAction, content: &str, by: Option<&str>) -> Proposal {
        serde_json::from_value(serde_json::json!({
            "id": "prop_01jdq0000000000000000000", "action": action, "status": "pending", "content": content,
            "tags": null, "contexts": [], "memoryId": null, "proposedBy": by, "orgId": "org_1",
            "createdAt": "2026-01-01T00:00:00Z", "expiresAt": "2026-01-08T00:00:00Z", "decidedAt": null,
        }))
        .unwrap()
    }

    #[test]
    fn client_names_are_shown_as_people_know_them() {
        assert_eq!(client_display_name("claude-code"), "Claude Code");
        assert_eq!(client_display_name("codex-mcp-client"), "Codex");
        assert_eq!(client_display_name("gemini-cli"), "Gemini CLI");
        assert_eq!(client_display_name("opencode"), "opencode");
        assert_eq!(client_display_name("my-own-agent"), "my-own-agent");
    }

    #[test]
    fn the_notification_names_the_client_and_the_sentence() {
        let one = [proposal(ProposalAction::Save, "Ada  prefers\ntea", Some("claude-code"))];
        assert_eq!(
            notification_text(&one, "en-US"),
            Some(("Memory Bank".into(), "Claude Code proposes a memory: “Ada prefers tea”".into()))
        );
        let delete = [proposal(ProposalAction::Delete, "old address", None)];
        assert_eq!(notification_text(&delete, "zh-CN").unwrap().1, "智能体请求删除一条记忆：“old address”");
        let two = [one[0].clone(), delete[0].clone()];
        assert_eq!(notification_text(&two, "en").unwrap().1, "2 new proposals wait for you in the Inbox.");
        assert_eq!(notification_text(&[], "en"), None);
        let long = [proposal(ProposalAction::Save, &"x".repeat(500), None)];
        assert!(notification_text(&long, "en").unwrap().1.chars().count() < 170);
    }
}
