//! Hard input limits. Lengths count Unicode scalar values (`char`s) of the trimmed value.

/// Longest memory content, in characters.
pub const MAX_CONTENT_CHARS: usize = 8000;
/// Most tags on one memory.
pub const MAX_TAGS: usize = 32;
/// Longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 64;
/// Most contexts (provenance snippets) on one memory.
pub const MAX_CONTEXTS: usize = 16;
/// Longest context snippet, in characters.
pub const MAX_SNIPPET_CHARS: usize = 4000;
/// Longest `conversationId` / `messageId`, in characters.
pub const MAX_CITATION_ID_CHARS: usize = 128;
/// Longest search query, in characters.
pub const MAX_QUERY_CHARS: usize = 512;
/// Default and largest `limit` for search.
pub const DEFAULT_SEARCH_LIMIT: u32 = 20;
/// Largest `limit` for search.
pub const MAX_SEARCH_LIMIT: u32 = 50;
/// Default `limit` for list.
pub const DEFAULT_LIST_LIMIT: u32 = 20;
/// Largest `limit` for list.
pub const MAX_LIST_LIMIT: u32 = 100;
/// How long a proposal waits for a person before it expires, in days.
pub const PROPOSAL_TTL_DAYS: i64 = 7;
/// Most proposals one person may have waiting at once: an agent cannot fill the Inbox
/// (or the database) faster than the person decides; the oldest expire after
/// [`PROPOSAL_TTL_DAYS`].
pub const MAX_PENDING_PROPOSALS: u32 = 200;
/// Largest request body the server reads, in bytes (larger bodies get 413).
pub const MAX_BODY_BYTES: usize = 256 * 1024;
/// The only `source` the server writes today; clients cannot choose it.
pub const SOURCE_CHAT: &str = "chat";
