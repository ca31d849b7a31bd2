//! The server: one handler whose tool router is the sum of the routers of the backends it
//! was built with, so each door serves exactly the tools it can answer (the stdio server on
//! a person's machine has the session tools; a team server has no sessions to show).
//!
//! Each group of tools lives in a module of its own, as an `impl MemoryBankMcp` block with
//! `#[tool_router(router = <group>_tools, vis = "pub(crate)")]`, plus a `with_<group>`
//! builder here that stores its backend and adds its router (`ToolRouter` implements `+=`).
//!
//! Over `serve --metrics`, each tool call is counted by the tool's name as this router
//! knows it (`count_tool_call`): a name a client made up counts as
//! `unknown`, so no label holds what a client wrote.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolRequestParams, CallToolResponse, Implementation, ServerCapabilities, ServerConfig, Tool};
use rmcp::service::RequestContext;
use rmcp::{prompt_handler, tool_handler, ErrorData, RoleServer, ServerHandler, ServiceExt};

use memory_bank_access::MemoryAccess;

use crate::caller::MemoryBackend;
use crate::memory;
use crate::meta;
use crate::sessions::{self, Sessions};

/// The MCP server of Memory Bank. Cheap to clone (backends are shared), as streamable
/// HTTP's per-request handlers need.
#[derive(Clone)]
pub struct MemoryBankMcp {
    /// The session tools' library, when this server has them.
    pub(crate) sessions: Option<Arc<Sessions>>,
    /// The memory tools' bank, when this server has them.
    pub(crate) memory: Option<MemoryBackend>,
    /// The tools of every backend given.
    tool_router: ToolRouter<MemoryBankMcp>,
    /// The prompts (the memory prompts, with a memory backend).
    prompt_router: PromptRouter<MemoryBankMcp>,
    /// Whether the agent may search the person's memory by itself ([`Self::with_recall`]).
    recall: bool,
    /// What the server tells agents at initialize, one part per backend.
    instructions: Vec<&'static str>,
    /// How long the person has to answer a confirmation form before it is given up and
    /// the proposal waits in the Inbox.
    pub(crate) confirm_timeout: Duration,
}

/// The default [`MemoryBankMcp::with_confirm_timeout`]: ten minutes.
pub const DEFAULT_CONFIRM_TIMEOUT: Duration = Duration::from_secs(600);

impl Default for MemoryBankMcp {
    fn default() -> Self {
        MemoryBankMcp::new()
    }
}

impl MemoryBankMcp {
    /// A server with no tools yet; add backends with the `with_…` methods.
    pub fn new() -> MemoryBankMcp {
        MemoryBankMcp {
            sessions: None,
            memory: None,
            tool_router: ToolRouter::new(),
            prompt_router: PromptRouter::new(),
            recall: false,
            instructions: Vec::new(),
            confirm_timeout: DEFAULT_CONFIRM_TIMEOUT,
        }
    }

    /// How long a confirmation form stays open: the person's client is asked for that
    /// long (`elicitation/create`), and a 2026-07-28 client's answer counts only that
    /// long after the proposal was made. Past it the form is given up, nothing is saved,
    /// and the proposal waits in Memory Bank's Inbox.
    pub fn with_confirm_timeout(mut self, timeout: Duration) -> MemoryBankMcp {
        self.confirm_timeout = timeout;
        self
    }

    /// Adds the session tools over `sessions` (call [`Sessions::warm_up`] first for a
    /// long-running server, so the first call finds the index refreshed).
    pub fn with_sessions(mut self, sessions: Arc<Sessions>) -> MemoryBankMcp {
        self.sessions = Some(sessions);
        self.tool_router += Self::session_tools();
        self.instructions.push(sessions::INSTRUCTIONS);
        self
    }

    /// Adds the memory tools over one bank (the local file, or one service).
    pub fn with_memory(self, access: Arc<dyn MemoryAccess>) -> MemoryBankMcp {
        self.with_memory_backend(MemoryBackend::Fixed(access))
    }

    /// Adds the memory tools over the bank of whichever caller each HTTP request
    /// authenticated (see [`crate::http`]).
    pub fn with_caller_memory(self) -> MemoryBankMcp {
        self.with_memory_backend(MemoryBackend::PerCaller)
    }

    fn with_memory_backend(mut self, backend: MemoryBackend) -> MemoryBankMcp {
        self.memory = Some(backend);
        self.tool_router += Self::memory_tools();
        self.prompt_router += Self::memory_prompts();
        self.instructions.push(memory::INSTRUCTIONS);
        let recall = self.recall;
        self.with_recall(recall)
    }

    /// Recall on or off (off by default): on, the instructions and `search_memories`'
    /// description tell the agent to search the person's memory by itself whenever the
    /// task touches their preferences, projects or earlier decisions; off, only when the
    /// person asks. The person turns it on ("Let agents look up relevant memories by
    /// themselves", `mcp install --recall`). Call it before or after the backends.
    pub fn with_recall(mut self, on: bool) -> MemoryBankMcp {
        self.recall = on;
        let (from, to) = if on {
            (memory::INSTRUCTIONS, memory::INSTRUCTIONS_RECALL)
        } else {
            (memory::INSTRUCTIONS_RECALL, memory::INSTRUCTIONS)
        };
        for part in &mut self.instructions {
            if *part == from {
                *part = to;
            }
        }
        if let Some(route) = self.tool_router.map.get_mut("search_memories") {
            let description = if on { memory::SEARCH_DESCRIPTION_RECALL } else { memory::SEARCH_DESCRIPTION };
            route.attr.description = Some(description.into());
        }
        self
    }

    /// Turns this server into the meta face: exactly `search_capabilities` and
    /// `execute_capability`, over the backends added so far.
    pub fn meta_face(mut self) -> MemoryBankMcp {
        self.tool_router = Self::meta_tools();
        self.prompt_router = PromptRouter::new();
        self.instructions = vec![meta::INSTRUCTIONS];
        self
    }

    /// The tools this server offers, sorted by name (as `tools/list` answers).
    pub fn tools(&self) -> Vec<Tool> {
        self.tool_router.list_all()
    }

    /// The prompts this server offers (as `prompts/list` answers).
    pub fn prompts(&self) -> Vec<rmcp::model::Prompt> {
        self.prompt_router.list_all()
    }
}

#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for MemoryBankMcp {
    // Written out instead of left to `tool_handler` only to count the call first; the
    // call itself is what the macro would do.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.count_tool_call(&request.name, &context);
        self.tool_router.call(ToolCallContext::new(self, request, context)).await
    }

    fn get_info(&self) -> ServerConfig {
        let mut instructions =
            String::from("Memory Bank: a plaintext memory for AI agents that people can read, search, cite and delete.");
        for part in &self.instructions {
            instructions.push_str("\n\n");
            instructions.push_str(part);
        }
        let capabilities = if self.prompt_router.map.is_empty() {
            ServerCapabilities::builder().enable_tools().build()
        } else {
            ServerCapabilities::builder().enable_tools().enable_prompts().build()
        };
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("memory-bank", env!("CARGO_PKG_VERSION")).with_title("Memory Bank"))
            .with_instructions(instructions)
    }
}

impl MemoryBankMcp {
    /// Counts a tool call in `serve`'s metrics, when the HTTP request that carried it
    /// was counted by them (`serve --metrics`; never on stdio). Under this server's own
    /// name for the tool, from its router: a name a client made up is `unknown`, so
    /// the label holds nothing a client wrote.
    fn count_tool_call(&self, name: &str, context: &RequestContext<RoleServer>) {
        let Some(metrics) = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| memory_bank_server::Metrics::of(&parts.extensions))
        else {
            return;
        };
        let tool = self.tool_router.map.get_key_value(name).map_or(Cow::Borrowed("unknown"), |(known, _)| known.clone());
        metrics.tool_call(tool);
    }
}

/// Serves `server` over stdin/stdout until the client closes stdin. Nothing else may write
/// to stdout meanwhile (logs go to stderr).
pub async fn serve_stdio(server: MemoryBankMcp) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let running = server.serve(crate::stdio::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
