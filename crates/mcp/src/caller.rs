//! Whose bank a tool call acts on: the server's own (stdio: the person who started it),
//! or over HTTP the caller whose bearer token the request authenticated, with the
//! binding that ties what they were asked (a confirmation form) to them.

use std::sync::Arc;

use memory_bank_access::MemoryAccess;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::RoleServer;

use crate::bounded;
use crate::MemoryBankMcp;

/// Where the memory tools find their bank.
#[derive(Clone)]
pub enum MemoryBackend {
    /// One bank for every request (`memory-bank mcp`: the local bank or one service).
    Fixed(Arc<dyn MemoryAccess>),
    /// The bank of the caller each HTTP request authenticated (`serve`'s `/mcp`).
    PerCaller,
}

/// The caller a request authenticated, as the tools read it.
#[derive(Clone)]
pub struct Caller {
    /// Their bank, in their org.
    pub access: Arc<dyn MemoryAccess>,
    /// Who asked: a digest of their token and org. A confirmation form is answered only
    /// under the same one (a session, a multi-round-trip retry).
    pub binding: String,
}

impl MemoryBankMcp {
    /// The bank this request acts on: the server's own, or (over HTTP) the one of the
    /// caller its bearer token authenticated.
    pub(crate) fn access(&self, context: &RequestContext<RoleServer>) -> Result<Arc<dyn MemoryAccess>, CallToolResult> {
        let unavailable = || bounded::failure("unavailable", "This server has no memory bank.");
        match self.memory.as_ref().ok_or_else(unavailable)? {
            MemoryBackend::Fixed(access) => Ok(Arc::clone(access)),
            MemoryBackend::PerCaller => context
                .extensions
                .get::<axum::http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<Caller>())
                .map(|caller| Arc::clone(&caller.access))
                .ok_or_else(|| bounded::failure("unauthorized", "Send Authorization: Bearer <token>.")),
        }
    }

    /// The binding of this request's caller ([`Caller::binding`]); the server's own
    /// person on stdio.
    pub(crate) fn binding(&self, context: &RequestContext<RoleServer>) -> String {
        context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Caller>())
            .map(|caller| caller.binding.clone())
            .unwrap_or_default()
    }
}
