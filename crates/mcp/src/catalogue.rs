//! The meta face's catalogue: the capabilities `search_capabilities` finds and
//! `execute_capability` runs, with the seed design's names and scoring.
//!
//! The memory capabilities come from the service's own OpenAPI document (their
//! operation ids, summaries, parameters and body schemas), so the catalogue cannot
//! drift from the HTTP API; the session actions, which have no HTTP route (sessions
//! live on the person's machine), are described here in the same shape.

use serde::Serialize;
use serde_json::Value;
use utoipa::OpenApi as _;

/// The service operations an agent may discover. Accepting and rejecting proposals
/// are deliberately absent: those are the person's.
const MEMORY_OPERATIONS: [&str; 5] = ["postMemory", "getMemorySearch", "getMemory", "deleteMemoryById", "getProposalsById"];

/// One capability, as `search_capabilities` returns it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Capability {
    /// The exact name `execute_capability` takes (`postMemory`).
    pub name: String,
    /// `GET`, `POST`, `DELETE`.
    pub method: String,
    /// The route, with `{param}` placeholders.
    pub path: String,
    /// What it does, and the body's shape when it has one.
    pub summary: String,
    /// Names of the `{param}`s in `path`.
    pub path_params: Vec<String>,
    /// Names of the query parameters.
    pub query_params: Vec<String>,
    /// Whether it takes a JSON body.
    pub has_body: bool,
    /// The body's JSON schema.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body_schema: Option<Value>,
    /// The query parameters' schema (an object of their schemas).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query_schema: Option<Value>,
    /// Whether it only reads.
    pub read_only: bool,
}

/// A capability and how well it matched a query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Match {
    /// The capability.
    #[serde(flatten)]
    pub capability: Capability,
    /// Higher is better.
    pub score: u32,
}

/// Every capability: the memory operations from the OpenAPI document, then (on a
/// server that has them) the session actions.
pub fn catalogue(with_sessions: bool) -> Vec<Capability> {
    let doc = serde_json::to_value(memory_bank_server::ApiDoc::openapi()).unwrap_or(Value::Null);
    let mut found = Vec::new();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            let Some(name) = op["operationId"].as_str().filter(|id| MEMORY_OPERATIONS.contains(id)) else { continue };
            found.push(from_operation(&doc, name, method, path, op));
        }
    }
    found.sort_by_key(|c| MEMORY_OPERATIONS.iter().position(|n| *n == c.name));
    if with_sessions {
        found.extend(session_capabilities());
    }
    found
}

fn from_operation(doc: &Value, name: &str, method: &str, path: &str, op: &Value) -> Capability {
    let params = op["parameters"].as_array().cloned().unwrap_or_default();
    let named = |place: &str| -> Vec<(String, Value)> {
        params
            .iter()
            .filter(|p| p["in"] == place)
            .filter_map(|p| Some((p["name"].as_str()?.to_owned(), p["schema"].clone())))
            .collect()
    };
    let query = named("query");
    let body_schema = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
        .map(|schema| doc["components"]["schemas"][schema].clone());
    Capability {
        name: name.to_owned(),
        method: method.to_ascii_uppercase(),
        path: path.to_owned(),
        summary: op["summary"].as_str().unwrap_or_default().to_owned(),
        path_params: named("path").into_iter().map(|(n, _)| n).collect(),
        query_params: query.iter().map(|(n, _)| n.clone()).collect(),
        has_body: body_schema.is_some(),
        body_schema,
        query_schema: (!query.is_empty()).then(|| Value::Object(query.into_iter().collect())),
        read_only: method.eq_ignore_ascii_case("get"),
    }
}

fn session_capabilities() -> Vec<Capability> {
    let session = |name: &str, path: &str, summary: &str, query: &[&str]| Capability {
        name: name.to_owned(),
        method: "GET".into(),
        path: path.to_owned(),
        summary: summary.to_owned(),
        path_params: if path.contains("{sessionId}") { vec!["sessionId".into()] } else { vec![] },
        query_params: query.iter().map(|q| (*q).to_owned()).collect(),
        has_body: false,
        body_schema: None,
        query_schema: None,
        read_only: true,
    };
    vec![
        session(
            "getSessions",
            "/sessions",
            "List the agent sessions on this machine (Claude Code, Codex, opencode, Gemini CLI), newest first, paged.",
            &["limit", "cursor", "query", "source", "workspace"],
        ),
        session("getSessionsBySessionId", "/sessions/{sessionId}", "One session's details with its first and last messages.", &[]),
        session(
            "getSessionsBySessionIdMessages",
            "/sessions/{sessionId}/messages",
            "Read a session's transcript: the last count messages before an index, each cut at maxCharsPerMessage.",
            &["count", "before", "maxCharsPerMessage"],
        ),
        session("getSessionsBySessionIdLatest", "/sessions/{sessionId}/latest", "The last message of a session.", &[]),
        session(
            "getSessionsSearch",
            "/sessions/search",
            "Search the messages of past sessions for text (case-insensitive substring), newest first.",
            &["query", "limit", "source", "workspace", "cursor"],
        ),
    ]
}

/// Lower-case runs of letters and digits; a camelCase name also splits at each capital.
fn tokens(text: &str, split_camel: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for ch in text.chars() {
        if !ch.is_alphanumeric() {
            previous_lower = false;
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            continue;
        }
        if split_camel && ch.is_uppercase() && previous_lower && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        previous_lower = ch.is_lowercase() || ch.is_ascii_digit();
        current.extend(ch.to_lowercase());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Words that say nothing about which action is meant: a query token among them scores
/// nothing, so "zzqx nothing like this" finds nothing rather than every summary with
/// "this" in it.
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did",
    "do", "does", "for", "from", "he", "her", "here", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just",
    "like", "may", "me", "might", "must", "my", "need", "no", "none", "not", "nothing", "of", "on", "or", "our",
    "please", "she", "should", "so", "some", "than", "that", "the", "their", "them", "then", "there", "these", "they",
    "this", "those", "to", "us", "want", "was", "we", "were", "what", "when", "where", "which", "who", "why", "will",
    "with", "would", "you", "your",
];

/// Shortest query token that scores as the start of a name token ("mem"): one or two
/// letters start too many.
const MIN_PREFIX: usize = 3;

/// The seed design's score: per query token, +5 when it is a token of the name, +3
/// when a name token starts with it, +2 when it is a summary token, +1 when it is a
/// path token. Stop words score nothing, and a prefix counts from [`MIN_PREFIX`] letters.
pub fn score(query: &str, capability: &Capability) -> u32 {
    let name = tokens(&capability.name, true);
    let summary = tokens(&capability.summary, false);
    let path = tokens(&capability.path, true);
    tokens(query, false)
        .iter()
        .filter(|token| !STOP_WORDS.contains(&token.as_str()))
        .map(|token| {
            let in_name = if name.contains(token) {
                5
            } else if token.chars().count() >= MIN_PREFIX && name.iter().any(|n| n.starts_with(token.as_str())) {
                3
            } else {
                0
            };
            in_name + if summary.contains(token) { 2 } else { 0 } + if path.contains(token) { 1 } else { 0 }
        })
        .sum()
}

/// The best `limit` matches for `query`, best first, then by name; no zero scores.
/// `read_only` keeps only capabilities that do (or do not) only read.
pub fn search(query: &str, limit: usize, read_only: Option<bool>, with_sessions: bool) -> Vec<Match> {
    let mut matches: Vec<Match> = catalogue(with_sessions)
        .into_iter()
        .filter(|c| read_only.is_none_or(|r| c.read_only == r))
        .map(|capability| Match { score: score(query, &capability), capability })
        .filter(|m| m.score > 0)
        .collect();
    matches.sort_by(|a, b| b.score.cmp(&a.score).then_with(|| a.capability.name.cmp(&b.capability.name)));
    matches.truncate(limit);
    matches
}

/// The capability with exactly this name.
pub fn find(name: &str, with_sessions: bool) -> Option<Capability> {
    catalogue(with_sessions).into_iter().find(|c| c.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memory_operations_come_from_the_openapi_document() {
        let all = catalogue(true);
        assert!(catalogue(false).iter().all(|c| !c.path.starts_with("/sessions")));
        let names: Vec<&str> = all.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(&names[..5], MEMORY_OPERATIONS);
        let post = &all[0];
        assert_eq!((post.method.as_str(), post.path.as_str(), post.has_body, post.read_only), ("POST", "/v1/memory", true, false));
        assert!(post.body_schema.as_ref().unwrap()["properties"]["content"].is_object());
        let search = find("getMemorySearch", true).unwrap();
        assert_eq!(search.query_params, ["q", "limit", "wordsOnly", "scope"]);
        assert_eq!(find("deleteMemoryById", true).unwrap().path_params, ["id"]);
        assert!(find("postProposalsByIdAccept", true).is_none(), "agents cannot find the person's decisions");
        assert!(all.iter().all(|c| c.name.len() <= 49));
    }

    #[test]
    fn scoring_follows_the_seed_rules() {
        assert_eq!(tokens("getMemorySearch", true), ["get", "memory", "search"]);
        let post = find("postMemory", true).unwrap();
        // "memory": a name token (+5), a summary token (+2), a path token (+1).
        assert_eq!(score("memory", &post), 8);
        // "mem": a prefix of a name token only.
        assert_eq!(score("mem", &post), 3);
        assert_eq!(score("zebra", &post), 0);
        // "a" is a stop word, "me" too short to be a prefix of "memory".
        assert_eq!(score("a", &post), 0);
        assert_eq!(score("me", &post), 0);
    }

    #[test]
    fn the_eval_finds_save_and_search() {
        let save = search("save a memory to the memory bank", 5, None, true);
        let top = save.iter().find(|m| m.capability.name.to_lowercase().contains("memory") && m.capability.name.contains("post"));
        assert!(top.is_some_and(|m| m.capability.has_body), "{save:?}");
        let recall = search("search memory", 5, None, true);
        assert_eq!(recall[0].capability.name, "getMemorySearch");
        assert!(search("qqqq", 5, None, true).is_empty());
        // Words that say nothing about an action match nothing.
        assert_eq!(search("zzqx nothing like this", 20, None, true), vec![]);
        assert_eq!(search("a the of to is my this", 20, None, true), vec![]);
        assert!(search("sessions", 20, Some(true), true).iter().all(|m| m.capability.read_only));
    }
}
