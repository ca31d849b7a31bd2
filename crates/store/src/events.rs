//! What the bank did, for a service's metrics (`serve --metrics`): which kind of thing
//! and how many, told to whoever [`Bank::with_events`](crate::Bank::with_events) names.
//!
//! Why here and not in the HTTP handlers: a memory is created by a save, by an accepted
//! proposal (in the app's Inbox, or in an agent's client through `/mcp`) and by an import,
//! and a search comes through the API or the MCP tools; counted where the bank does
//! it, every door is counted once and none is missed. Why an event with no fields for
//! people: [`BankEvent`] has no room for a user id, an org id or a word anyone wrote, so
//! nothing that listens to it can leak one.

/// One thing the bank did. Kinds and counts only, by construction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BankEvent {
    /// Memories were created.
    MemoriesCreated {
        /// How.
        via: CreatedVia,
        /// How many (an import creates many at once).
        count: u64,
    },
    /// A search ran (by words, or by words and meaning).
    Searched,
    /// An agent's proposal was stored, pending the person's decision.
    ProposalCreated,
    /// The person accepted a proposal (a save, an edit or a delete).
    ProposalAccepted,
    /// The person rejected a proposal.
    ProposalRejected,
    /// Memories were refused for the per-user cap (`quota_exceeded`): one for a save or
    /// an accept, one per import line past the cap.
    QuotaRefused {
        /// How many memories were refused.
        count: u64,
    },
}

/// How a memory came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CreatedVia {
    /// `POST /v1/memory` (the app, the CLI).
    Save,
    /// An accepted save proposal.
    Proposal,
    /// A line of an import file.
    Import,
}

impl CreatedVia {
    /// The name a metric label shows.
    pub fn as_str(self) -> &'static str {
        match self {
            CreatedVia::Save => "save",
            CreatedVia::Proposal => "proposal",
            CreatedVia::Import => "import",
        }
    }
}

/// Who is told about [`BankEvent`]s. Called on the request's own task, right after the
/// write or read it reports succeeded: keep it to an atomic increment or two.
pub trait BankEvents: Send + Sync + 'static {
    /// One event.
    fn record(&self, event: BankEvent);
}
