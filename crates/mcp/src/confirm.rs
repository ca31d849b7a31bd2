//! The person's confirmation of what an agent proposes (`propose_memory`,
//! `delete_memory`, and the meta face's `postMemory` and `deleteMemoryById`).
//!
//! The proposal is stored first, so whatever happens next it waits in Memory Bank's
//! Inbox. Then, when the client advertised elicitation forms, the person is asked in
//! the agent's own client: accept saves (or deletes) exactly what they accepted,
//! decline and cancel change nothing. How the form travels depends on the protocol:
//!
//! - up to 2025-11-25 the server sends `elicitation/create` and waits for the answer;
//! - from 2026-07-28 servers may not send requests, so the tool answers
//!   `input_required` (the multi-round-trip result) carrying the form, and the client
//!   calls the tool again with the person's answer. The `requestState` it echoes is
//!   only a handle (`proposal:<id>`): the proposal itself stays in the bank, owner-scoped,
//!   so a retry is honoured only for a pending proposal of this caller whose action and
//!   wording match the call being retried, and a retry that lands on another replica
//!   or after a restart still works.

use memory_bank_access::MemoryAccess;
use memory_bank_contract::wire::{AcceptProposalRequest, ConfirmedVia, Proposal, ProposalAction, ProposalStatus, ProposeRequest};
use memory_bank_contract::ErrorCode;
use rmcp::model::{
    CallToolResponse, CallToolResult, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    EnumSchema, EnumSchemaBuilder,
    InputRequest, InputRequests, InputRequiredResult, InputResponses, PrimitiveSchemaDefinition, StringSchema,
};
use rmcp::service::{ElicitationMode, RequestContext};
use rmcp::RoleServer;
use serde_json::json;
use std::time::Duration;

use crate::bounded::{self, prefix};
use crate::memory::{failure, shaped};
use crate::MemoryBankMcp;

/// How long the person has to answer a confirmation form in the agent's client.
const ELICITATION_TIMEOUT: Duration = Duration::from_secs(600);

/// The key of our one form in a multi-round-trip `inputRequests` map.
const FORM_KEY: &str = "confirm";

/// What a 2026-07-28 client sends back when it calls the tool again after an
/// `input_required` answer: the state we gave it and the person's answers.
#[derive(Default)]
pub(crate) struct Retry {
    pub(crate) state: Option<String>,
    pub(crate) responses: Option<InputResponses>,
}

impl MemoryBankMcp {
    /// Stores the proposal, then asks the person in the client when it can; the Inbox
    /// otherwise.
    pub(crate) async fn propose_and_confirm(
        &self,
        context: &RequestContext<RoleServer>,
        mut request: ProposeRequest,
        retry: Retry,
    ) -> CallToolResponse {
        let access = match self.access(context) {
            Ok(access) => access,
            Err(fail) => return fail.into(),
        };
        // A new memory, or (propose_edit) a new version of one.
        let action = request.action.unwrap_or(ProposalAction::Save);
        request.action = Some(action);
        request.proposed_by = client_name(context);
        if let Some(state) = retry.state {
            let same_call = |p: &Proposal| {
                let same_memory = action != ProposalAction::Edit || p.memory_id.as_deref() == request.memory_id.as_deref().map(str::trim);
                let same_words = request.content.as_deref().is_none_or(|c| p.content.trim() == c.trim());
                same_memory && same_words && (action == ProposalAction::Edit || request.content.is_some())
            };
            return match retried_proposal(access.as_ref(), &state, action, same_call).await {
                Ok(proposal) => answer_to_save(access.as_ref(), &proposal, form_answer(retry.responses)).await,
                Err(done) => done,
            }
            .into();
        }
        let proposal = match access.propose(request).await {
            Ok(proposal) => proposal,
            Err(e) => return failure(&e, "propose_memory").into(),
        };
        let mut form = ElicitationSchema::builder()
            .required_property("content", PrimitiveSchemaDefinition::String(sentence(&proposal.content)))
            .property("tags", PrimitiveSchemaDefinition::String(tag_list(proposal.tags.as_deref())));
        if let Some(choice) = save_as(&proposal) {
            // Optional: a client that fills only the fields it knows still answers, and saves as new.
            form = form.property(SAVE_AS, PrimitiveSchemaDefinition::Enum(choice));
        }
        let form = form.build();
        match form {
            Ok(form) => self.ask(context, access.as_ref(), &proposal, save_question(&proposal), form).await,
            Err(_) => pending(&proposal).into(),
        }
    }

    /// Proposes the delete, then asks the person in the client when it can; the Inbox
    /// otherwise.
    pub(crate) async fn delete_and_confirm(
        &self,
        context: &RequestContext<RoleServer>,
        id: &str,
        retry: Retry,
    ) -> CallToolResponse {
        let access = match self.access(context) {
            Ok(access) => access,
            Err(fail) => return fail.into(),
        };
        let id = id.trim();
        if let Some(state) = retry.state {
            let same_call = |p: &Proposal| p.memory_id.as_deref() == Some(id);
            return match retried_proposal(access.as_ref(), &state, ProposalAction::Delete, same_call).await {
                Ok(proposal) => answer_to_delete(access.as_ref(), &proposal, form_answer(retry.responses)).await,
                Err(done) => done,
            }
            .into();
        }
        let request = ProposeRequest {
            action: Some(ProposalAction::Delete),
            memory_id: Some(id.to_owned()),
            proposed_by: client_name(context),
            ..Default::default()
        };
        let proposal = match access.propose(request).await {
            Ok(proposal) => proposal,
            Err(e) => return failure(&e, "delete_memory").into(),
        };
        let (shown, _) = prefix(&proposal.content, 500);
        let message = format!("{} wants to delete this memory:\n\n“{shown}”\n\nDelete it?", who(&proposal));
        let form = ElicitationSchema::builder()
            .required_bool_with("delete", |b| b.title("Delete").description("Uncheck to keep the memory.").with_default(true))
            .build();
        match form {
            Ok(form) => self.ask(context, access.as_ref(), &proposal, message, form).await,
            Err(_) => pending(&proposal).into(),
        }
    }

    /// Puts the form to the person the way the client's protocol allows: a request and
    /// its answer, or an `input_required` answer the client retries with. Without forms
    /// the proposal waits in the Inbox.
    async fn ask(
        &self,
        context: &RequestContext<RoleServer>,
        access: &dyn MemoryAccess,
        proposal: &Proposal,
        message: String,
        form: ElicitationSchema,
    ) -> CallToolResponse {
        // A form the person answers in vain (this token may not confirm) is worse than
        // none: the Inbox decides.
        if !access.may_confirm() || !offers_forms(context) {
            return pending(proposal).into();
        }
        let params = ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema: form };
        if forbids_server_requests(context) {
            let requests = InputRequests::from([(FORM_KEY.to_owned(), InputRequest::Elicitation(ElicitRequest::new(params)))]);
            return InputRequiredResult::new(Some(requests), Some(format!("proposal:{}", proposal.id))).into();
        }
        let answer = match context.peer.create_elicitation_with_timeout(params, Some(ELICITATION_TIMEOUT)).await {
            Ok(answer) => Some(answer),
            Err(e) => {
                tracing::warn!(error = %e, "elicitation failed; the proposal waits in the Inbox");
                None
            }
        };
        match proposal.action {
            ProposalAction::Delete => answer_to_delete(access, proposal, answer).await,
            _ => answer_to_save(access, proposal, answer).await,
        }
        .into()
    }
}

/// The proposal a retry's `requestState` names, when it is this caller's, still
/// pending, and the one this call made; otherwise the answer to give instead.
async fn retried_proposal(
    access: &dyn MemoryAccess,
    state: &str,
    action: ProposalAction,
    same_call: impl Fn(&Proposal) -> bool,
) -> Result<Proposal, CallToolResult> {
    let unknown = || {
        bounded::failure(
            "invalid_request",
            "this requestState is not one this server gave for this call; call the tool again without it",
        )
    };
    let id = state.strip_prefix("proposal:").ok_or_else(unknown)?;
    let proposal = match access.proposal(id).await {
        Ok(proposal) => proposal,
        Err(e) if e.code == ErrorCode::ProposalNotFound => return Err(unknown()),
        Err(e) => return Err(failure(&e, "propose_memory")),
    };
    if proposal.action != action || !same_call(&proposal) {
        return Err(unknown());
    }
    match proposal.status {
        ProposalStatus::Pending => Ok(proposal),
        // Decided in the Inbox meanwhile: report how, change nothing.
        ProposalStatus::Accepted if action == ProposalAction::Delete => Err(bounded::answer(&json!({"status": "deleted"}))),
        ProposalStatus::Accepted => {
            let memory = match proposal.memory_id.as_deref() {
                Some(id) => access.memory(id).await.ok(),
                None => None,
            };
            Err(bounded::answer(&json!({"status": "saved", "memory": memory.map(|m| shaped(&[m])[0].clone())})))
        }
        ProposalStatus::Rejected => Err(bounded::answer(&json!({"status": "declined"}))),
        _ => Err(bounded::failure("proposal_not_pending", "the proposal expired; propose it again if it is still wanted")),
    }
}

/// The person's answer in a retry; `None` when the client could not ask after all.
fn form_answer(responses: Option<InputResponses>) -> Option<ElicitResult> {
    let answer = responses?.remove(FORM_KEY)?;
    serde_json::from_value(answer).ok()
}

/// Saves what the person accepted (edited or not); nothing on decline or cancel; the
/// Inbox decides when there was no answer.
async fn answer_to_save(access: &dyn MemoryAccess, proposal: &Proposal, answer: Option<ElicitResult>) -> CallToolResult {
    let Some(answer) = answer else { return pending(proposal) };
    match answer.action {
        ElicitationAction::Accept => {
            let content = answer.content.as_ref().and_then(|c| c["content"].as_str()).map(str::to_owned);
            let tags = answer.content.as_ref().and_then(|c| c["tags"].as_str()).map(parse_tags);
            // "Save as new", or the id of an alike memory the person chose to reword instead.
            let edit_instead = answer.content.as_ref().and_then(|c| c[SAVE_AS].as_str()).filter(|choice| *choice != SAVE_AS_NEW);
            let edit_instead = edit_instead.filter(|id| proposal.similar.iter().any(|s| s.id == *id)).map(str::to_owned);
            let status = if edit_instead.is_some() { "edited" } else { "saved" };
            let edits = AcceptProposalRequest {
                content,
                tags,
                contexts: None,
                confirmed_via: Some(ConfirmedVia::Elicitation),
                edit_instead,
            };
            match access.accept(&proposal.id, edits).await {
                Ok(accepted) => match accepted.memory {
                    Some(memory) => {
                        bounded::answer(&json!({"status": status, "memory": shaped(&[memory])[0], "similar": hints(&accepted.similar)}))
                    }
                    None => pending(proposal),
                },
                // This token may not confirm: the person decides in the Inbox instead.
                Err(e) if e.code == ErrorCode::AgentTokenCannotConfirm => pending(proposal),
                Err(e) => failure(&e, "propose_memory"),
            }
        }
        // Decline, cancel, and whatever a later protocol adds: nothing is saved.
        _ => declined(access, proposal).await,
    }
}

/// Deletes when the person accepted with the box left checked; nothing otherwise.
async fn answer_to_delete(access: &dyn MemoryAccess, proposal: &Proposal, answer: Option<ElicitResult>) -> CallToolResult {
    let Some(answer) = answer else { return pending(proposal) };
    let confirmed = answer.content.as_ref().is_none_or(|c| c["delete"] != json!(false));
    match answer.action {
        ElicitationAction::Accept if confirmed => {
            let edits = AcceptProposalRequest { confirmed_via: Some(ConfirmedVia::Elicitation), ..Default::default() };
            match access.accept(&proposal.id, edits).await {
                Ok(_) => bounded::answer(&json!({"status": "deleted"})),
                Err(e) if e.code == ErrorCode::AgentTokenCannotConfirm => pending(proposal),
                Err(e) => failure(&e, "delete_memory"),
            }
        }
        _ => declined(access, proposal).await,
    }
}

/// The person said no in the client: the proposal is rejected (a token that may not
/// reject leaves it to expire) and nothing is saved.
async fn declined(access: &dyn MemoryAccess, proposal: &Proposal) -> CallToolResult {
    if let Err(e) = access.reject(&proposal.id).await {
        tracing::debug!(code = e.code.as_str(), "could not mark the declined proposal rejected");
    }
    bounded::answer(&json!({"status": "declined"}))
}

/// The client asked to be sent elicitation forms (at initialize, or, from 2026-07-28,
/// in each request's capabilities).
fn offers_forms(context: &RequestContext<RoleServer>) -> bool {
    context.peer.supported_elicitation_modes().contains(&ElicitationMode::Form)
        || context.client_capabilities().is_some_and(|c| c.elicitation.is_some())
}

/// 2026-07-28 and later forbid server-to-client requests: forms travel in
/// `input_required` answers instead.
fn forbids_server_requests(context: &RequestContext<RoleServer>) -> bool {
    context.protocol_version().is_some_and(|v| v.as_str() >= "2026-07-28")
}

/// The MCP client's name (`claude-code`, `codex-mcp-client`, …), from initialize or,
/// on stateless protocols, from the request itself.
fn client_name(context: &RequestContext<RoleServer>) -> Option<String> {
    let name = context.client_info()?.name.trim().to_owned();
    (!name.is_empty()).then(|| prefix(&name, 128).0.to_owned())
}

fn who(proposal: &Proposal) -> String {
    proposal.proposed_by.clone().unwrap_or_else(|| "Your agent".into())
}

fn sentence(draft: &str) -> StringSchema {
    StringSchema::new().title("Memory").description("The sentence to remember; edit it if you like.").with_default(draft)
}

fn tag_list(tags: Option<&[String]>) -> StringSchema {
    StringSchema::new().title("Tags").description("Comma-separated.").with_default(tags.unwrap_or_default().join(", "))
}

fn parse_tags(text: &str) -> Vec<String> {
    text.split(',').map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned).collect()
}

/// Duplicate hints as an agent sees them: each sentence cut to 200 characters, so three
/// long memories never push an answer past the output budget.
fn hints(similar: &[memory_bank_contract::wire::SimilarMemory]) -> serde_json::Value {
    let shown: Vec<serde_json::Value> = similar
        .iter()
        .map(|alike| {
            let (content, cut) = prefix(&alike.content, 200);
            json!({"id": alike.id, "content": content, "truncated": cut})
        })
        .collect();
    json!(shown)
}

/// The form field offering to reword an alike memory instead of saving a new one.
const SAVE_AS: &str = "saveAs";
const SAVE_AS_NEW: &str = "new";

/// "Save as a new memory" or "Change “…” instead", when the person has alike memories.
fn save_as(proposal: &Proposal) -> Option<EnumSchema> {
    if proposal.action != ProposalAction::Save || proposal.similar.is_empty() {
        return None;
    }
    let mut values = vec![SAVE_AS_NEW.to_owned()];
    let mut titles = vec!["Save as a new memory".to_owned()];
    for alike in &proposal.similar {
        let (shown, _) = prefix(&alike.content, 120);
        values.push(alike.id.clone());
        titles.push(format!("Change “{shown}” to this instead"));
    }
    let builder = EnumSchemaBuilder::new(values).title("Save as").enum_titles(titles).ok()?;
    Some(builder.with_default(SAVE_AS_NEW).ok()?.build())
}

fn save_question(proposal: &Proposal) -> String {
    let mut message = if proposal.action == ProposalAction::Edit {
        format!("{} wants to change one of your memories to this. Save the change?", who(proposal))
    } else {
        format!("{} wants Memory Bank to remember this. Save it?", who(proposal))
    };
    if !proposal.similar.is_empty() {
        message.push_str("\n\nYou already have:");
        for alike in &proposal.similar {
            let (shown, _) = prefix(&alike.content, 300);
            message.push_str(&format!("\n• “{shown}”"));
        }
    }
    for context in &proposal.contexts {
        let (snippet, _) = prefix(&context.snippet, 300);
        message.push_str(&format!("\n\nIt cites: “{snippet}”"));
        if let Some(citation) = &context.citation {
            let ids: Vec<&str> =
                [citation.conversation_id.as_deref(), citation.message_id.as_deref()].into_iter().flatten().collect();
            message.push_str(&format!(" ({})", ids.join(", message ")));
        }
    }
    message
}

fn pending(proposal: &Proposal) -> CallToolResult {
    let what = match proposal.action {
        ProposalAction::Delete => "delete it",
        ProposalAction::Edit => "accept the change",
        _ => "save it",
    };
    bounded::answer(&json!({
        "status": "pending",
        "proposalId": proposal.id,
        "similar": hints(&proposal.similar),
        "message": format!(
            "Waiting for the person to confirm it in Memory Bank (the Inbox). Nothing is changed until they {what}; \
             tell them it is waiting, and check later with proposal_status."
        ),
    }))
}
