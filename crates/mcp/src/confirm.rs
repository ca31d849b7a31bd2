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
//!   only a handle (`proposal:<id>:<tag>`): the proposal itself stays in the bank,
//!   owner-scoped, so a retry is honoured only for a pending proposal of this caller
//!   whose action and wording match the call being retried, and a retry that lands on
//!   another replica or after a restart still works. The tag is a digest of the proposal
//!   and the caller's binding (their token and org), so only the token that was shown
//!   the form can answer it.
//!
//! Either way the form is open for the server's confirm timeout (ten minutes unless
//! `--confirm-timeout` says otherwise): an answer later than that saves nothing, and the
//! proposal waits in the Inbox. What the person writes in the form passes the same gate
//! as every save (a secret typed there is refused, and the proposal still waits).

use memory_bank_access::MemoryAccess;
use memory_bank_contract::wire::{AcceptProposalRequest, ConfirmedVia, Proposal, ProposalAction, ProposalStatus, ProposeRequest, Scope};
use memory_bank_contract::ErrorCode;
use rmcp::model::{
    CallToolResponse, CallToolResult, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    EnumSchema, EnumSchemaBuilder,
    InputRequest, InputRequests, InputRequiredResult, InputResponses, PrimitiveSchemaDefinition, StringSchema,
};
use rmcp::service::{ElicitationMode, RequestContext};
use rmcp::RoleServer;
use serde_json::json;
use sha2::{Digest, Sha256};
use std::time::Duration;

use crate::bounded::{self, prefix};
use crate::shape::{failure, shaped};
use crate::MemoryBankMcp;

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
            let asked = Asked { binding: self.binding(context), timeout: self.confirm_timeout };
            return match retried_proposal(access.as_ref(), &state, &asked, action, same_call).await {
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
            let asked = Asked { binding: self.binding(context), timeout: self.confirm_timeout };
            return match retried_proposal(access.as_ref(), &state, &asked, ProposalAction::Delete, same_call).await {
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
        // none: the Inbox decides. A team proposal is decided in the org Inbox by the
        // org's admins and owners, never in the proposer's client.
        if proposal.scope == Scope::Org || !access.may_confirm() || !offers_forms(context) {
            return pending(proposal).into();
        }
        let params = ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema: form };
        if forbids_server_requests(context) {
            let requests = InputRequests::from([(FORM_KEY.to_owned(), InputRequest::Elicitation(ElicitRequest::new(params)))]);
            let state = request_state(&proposal.id, &self.binding(context));
            return InputRequiredResult::new(Some(requests), Some(state)).into();
        }
        let answer = match context.peer.create_elicitation_with_timeout(params, Some(self.confirm_timeout)).await {
            Ok(answer) => Some(answer),
            Err(e) => {
                tracing::info!(error = %e, "the confirmation form got no answer; the proposal waits in the Inbox");
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

/// Whom a form was put to, and for how long: what a retry must match.
pub(crate) struct Asked {
    /// The caller's binding ([`crate::Caller::binding`]; empty on stdio).
    pub(crate) binding: String,
    /// How long the form is open.
    pub(crate) timeout: Duration,
}

/// The `requestState` of the form for `proposal_id` put to `binding`.
fn request_state(proposal_id: &str, binding: &str) -> String {
    format!("proposal:{proposal_id}:{}", state_tag(proposal_id, binding))
}

fn state_tag(proposal_id: &str, binding: &str) -> String {
    let digest = Sha256::new().chain_update(b"mcp-form\0").chain_update(proposal_id).chain_update(b"\0").chain_update(binding).finalize();
    digest.iter().take(12).map(|b| format!("{b:02x}")).collect()
}

/// The proposal a retry's `requestState` names, when it was put to this caller, is
/// still pending and within the confirm timeout, and is the one this call made;
/// otherwise the answer to give instead.
async fn retried_proposal(
    access: &dyn MemoryAccess,
    state: &str,
    asked: &Asked,
    action: ProposalAction,
    same_call: impl Fn(&Proposal) -> bool,
) -> Result<Proposal, CallToolResult> {
    let unknown = || {
        bounded::failure(
            "invalid_request",
            "this requestState is not one this server gave for this call; call the tool again without it",
        )
    };
    let (id, tag) = state.strip_prefix("proposal:").and_then(|rest| rest.split_once(':')).ok_or_else(unknown)?;
    if tag != state_tag(id, &asked.binding) {
        return Err(unknown());
    }
    let proposal = match access.proposal(id).await {
        Ok(proposal) => proposal,
        Err(e) if e.code == ErrorCode::ProposalNotFound => return Err(unknown()),
        Err(e) => return Err(failure(&e, "propose_memory")),
    };
    if proposal.action != action || !same_call(&proposal) {
        return Err(unknown());
    }
    match proposal.status {
        ProposalStatus::Pending if open_too_long(&proposal, asked.timeout) => Err(pending_because(
            &proposal,
            "The confirmation form was open too long and was given up; nothing was saved.",
        )),
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

/// Whether the form for `proposal` (put when it was made) is past `timeout`.
fn open_too_long(proposal: &Proposal, timeout: Duration) -> bool {
    let age_ms = memory_bank_contract::Timestamp::now().unix_ms() - proposal.created_at.unix_ms();
    age_ms > i64::try_from(timeout.as_millis()).unwrap_or(i64::MAX)
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
                // The form showed the agent's words, not a changed memory: a change made
                // meanwhile is for the Inbox, which shows both.
                memory_now: None,
            };
            match access.accept(&proposal.id, edits).await {
                Ok(accepted) => match accepted.memory {
                    Some(memory) => {
                        bounded::answer(&json!({"status": status, "memory": shaped(&[memory])[0], "similar": hints(&accepted.similar)}))
                    }
                    None => pending(proposal),
                },
                Err(e) => not_accepted(proposal, &e, "propose_memory"),
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
                Err(e) => not_accepted(proposal, &e, "delete_memory"),
            }
        }
        _ => declined(access, proposal).await,
    }
}

/// Why what the person accepted in the form was not applied, as the agent relays it;
/// the proposal stays pending in the Inbox for every reason but a fault.
fn not_accepted(proposal: &Proposal, err: &memory_bank_access::AccessError, tool: &str) -> CallToolResult {
    match err.code {
        // This token may not confirm: the person decides in the Inbox instead.
        ErrorCode::AgentTokenCannotConfirm => pending(proposal),
        ErrorCode::MemoryChanged => pending_because(
            proposal,
            "The memory changed while the person was asked; nothing was changed. Memory Bank's Inbox shows both versions.",
        ),
        ErrorCode::LooksLikeSecret | ErrorCode::InvalidRequest => {
            let refused = failure(err, tool);
            let reason = format!(
                "What the person wrote in the form was refused ({}); nothing was saved. The proposal waits in Memory Bank's \
                 Inbox: tell the person, and never put a secret in a memory.",
                err.message
            );
            let mut answer = pending_because(proposal, &reason);
            answer.is_error = refused.is_error;
            answer
        }
        _ => failure(err, tool),
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
    // What the client says it is, shown as its claim: one line, no control characters.
    let name: String = context.client_info()?.name.chars().filter(|c| !c.is_control()).collect();
    let name = name.trim();
    (!name.is_empty()).then(|| prefix(name, 128).0.to_owned())
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
    pending_because(proposal, "")
}

/// A pending answer that first says why the form did not decide it.
fn pending_because(proposal: &Proposal, why: &str) -> CallToolResult {
    let what = match proposal.action {
        ProposalAction::Delete => "delete it",
        ProposalAction::Edit => "accept the change",
        _ => "save it",
    };
    if proposal.scope == Scope::Org {
        return bounded::answer(&json!({
            "status": "pending",
            "proposalId": proposal.id,
            "message": format!(
                "{why}{}It is proposed to the team's bank: it waits in the org Inbox for an admin or owner of the org. \
                 Nothing is changed until one of them chooses to {what}; tell the person, and check later with proposal_status.",
                if why.is_empty() { "" } else { " " }
            ),
        }));
    }
    bounded::answer(&json!({
        "status": "pending",
        "proposalId": proposal.id,
        "similar": hints(&proposal.similar),
        "message": format!(
            "{why}{}Waiting for the person to confirm it in Memory Bank (the Inbox). Nothing is changed until they {what}; \
             tell them it is waiting, and check later with proposal_status.",
            if why.is_empty() { "" } else { " " }
        ),
    }))
}
