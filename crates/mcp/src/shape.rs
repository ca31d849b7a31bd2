//! How memories and failures look to agents: the HTTP API's field names, long texts cut
//! to fit the output budget, and errors that say what to do next. Shared by the memory
//! tools, the confirmation flow and the meta face.

use memory_bank_access::AccessError;
use memory_bank_contract::wire::Memory;
use memory_bank_contract::ErrorCode;
use rmcp::model::CallToolResult;
use serde_json::{json, Value};

use crate::bounded::{self, prefix};

/// Characters of each memory's content and snippets before the budget cuts further.
const CONTENT_CHARS: usize = 2000;

/// A memory as the tools show it: the HTTP API's field names, long texts cut.
pub(crate) fn shaped(memories: &[Memory]) -> Vec<Value> {
    memories
        .iter()
        .map(|m| {
            let (content, cut) = prefix(&m.content, CONTENT_CHARS);
            let contexts: Vec<Value> = m
                .contexts
                .iter()
                .map(|c| {
                    let (snippet, snippet_cut) = prefix(&c.snippet, 300);
                    json!({"snippet": snippet, "citation": c.citation, "origin": c.origin, "truncated": snippet_cut})
                })
                .collect();
            let mut shown = json!({"id": m.id, "content": content, "tags": m.tags, "scope": m.scope, "createdAt": m.created_at, "contexts": contexts});
            if let Some(via) = m.confirmed_via {
                shown["confirmedVia"] = json!(via);
            }
            if let Some(client) = &m.proposed_by {
                shown["proposedBy"] = json!(client);
            }
            if let Some(author) = &m.saved_by {
                shown["savedBy"] = json!(author);
            }
            if cut {
                shown["truncated"] = json!(true);
            }
            shown
        })
        .collect()
}

/// An access error as an `isError` answer that says what to do next.
pub(crate) fn failure(err: &AccessError, tool: &str) -> CallToolResult {
    let next = match err.code {
        ErrorCode::MemoryNotFound => "; call search_memories or list_memories to find the id",
        ErrorCode::ProposalNotFound => "; pass the proposalId that propose_memory or delete_memory returned",
        ErrorCode::LooksLikeSecret => "; leave the secret out and propose again",
        ErrorCode::InvalidRequest => "; fix the arguments and call again",
        ErrorCode::ServiceUnavailable => "; the memory bank cannot be reached right now, try again shortly",
        ErrorCode::Unauthorized => "; the token is not accepted: ask the person to check MEMORY_BANK_TOKEN",
        _ => "",
    };
    tracing::debug!(tool, code = err.code.as_str(), "tool failed");
    bounded::failure(err.code.as_str(), &format!("{}{next}", err.message))
}
