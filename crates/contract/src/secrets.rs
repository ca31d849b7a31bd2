//! Text that looks like a secret, which must never become a memory: agents read
//! memories as plain text. The one detector behind every door that stores text (the
//! desktop app's save, proposals from agents). The save dialog highlights the same
//! patterns (`ui/src/sessions/secrets.ts`) and blocks Save; this is the guard for when
//! the UI is bypassed.

use std::sync::LazyLock;

use regex::Regex;

use crate::validate::{ValidProposal, ValidSave};
use crate::wire::SaveMemoryRequest;

struct Pattern {
    kind: &'static str,
    regex: Regex,
    accept: fn(&regex::Captures) -> bool,
}

fn always(_: &regex::Captures) -> bool {
    true
}

/// OpenAI keys contain digits (plain words like `sk-something-long` do not); an
/// Anthropic key is reported as that, not twice.
fn openai_key(c: &regex::Captures) -> bool {
    !c[0].starts_with("sk-ant-") && c[0].bytes().any(|b| b.is_ascii_digit())
}

/// A value, not a word, a placeholder or a variable reference.
fn looks_like_value(c: &regex::Captures) -> bool {
    let value = &c[1];
    let lower = value.to_ascii_lowercase();
    if value.starts_with(['$', '%', '{', '<', '[', '(', '*'])
        || ["process.env", "os.environ", "env."]
            .iter()
            .any(|p| lower.starts_with(p))
        || value.chars().all(|ch| ch.eq_ignore_ascii_case(&'x'))
    {
        return false;
    }
    value.chars().any(|ch| !ch.is_ascii_alphabetic()) || value.len() >= 16
}

static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    let p = |kind, re: &str, accept: fn(&regex::Captures) -> bool| Pattern {
        kind,
        regex: Regex::new(re).expect("secret pattern compiles"),
        accept,
    };
    vec![
        p(
            "private key",
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----",
            always,
        ),
        p("Anthropic API key", r"\bsk-ant-[A-Za-z0-9_-]{20,}", always),
        p(
            "OpenAI API key",
            r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
            openai_key,
        ),
        p(
            "Stripe key",
            r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}",
            always,
        ),
        p(
            "GitHub token",
            r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})",
            always,
        ),
        p("Slack token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}", always),
        p("AWS access key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", always),
        p("Google API key", r"\bAIza[0-9A-Za-z_-]{35}", always),
        p("Memory Bank token", r"\bmbk_[A-Za-z0-9_-]{20,}", always),
        p(
            "JSON Web Token",
            r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
            always,
        ),
        p(
            "password in a URL",
            r"(?i)\b[a-z][a-z0-9+.-]*://[^\s:@/]+:[^\s@/]+@[^\s/]+",
            always,
        ),
        p(
            "bearer token",
            r"\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*",
            always,
        ),
        p(
            "password or key assignment",
            r#"(?i)\b(?:password|passwd|pwd|secret|client[_-]?secret|api[_-]?key|access[_-]?token|auth[_-]?token|token)["']?\s*[:=]\s*["']?([^\s"'`,;<>]{6,})"#,
            looks_like_value,
        ),
    ]
});

/// What kinds of secret `text` seems to contain (e.g. "GitHub token"), each named once.
pub fn find_secrets(text: &str) -> Vec<&'static str> {
    let mut kinds = Vec::new();
    for pattern in PATTERNS.iter() {
        if pattern
            .regex
            .captures_iter(text)
            .any(|c| (pattern.accept)(&c))
            && !kinds.contains(&pattern.kind)
        {
            kinds.push(pattern.kind);
        }
    }
    kinds
}

/// One field of a save request that looks like it holds a secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretFinding {
    /// JSON path of the field, e.g. `contexts[0].messageId`.
    pub path: String,
    /// What it looks like, e.g. "GitHub token".
    pub kind: &'static str,
}

/// What looks secret in a proposal: a save's stored fields (a delete holds no text).
pub fn find_secrets_in_proposal(proposal: &ValidProposal) -> Vec<SecretFinding> {
    match proposal {
        ValidProposal::Save { save, .. } => find_secrets_in_valid_save(save),
        ValidProposal::Delete { .. } => Vec::new(),
        ValidProposal::Edit { edit, .. } => crate::edit::find_secrets_in_edit(edit),
    }
}

/// The findings as error details: the field, and what it looks like.
pub fn as_details(found: &[SecretFinding]) -> Vec<crate::FieldError> {
    found
        .iter()
        .map(|f| crate::FieldError::new(&f.path, format!("looks like a {}; remove it: memories are plain text", f.kind)))
        .collect()
}

/// The findings in one line: "GitHub token in contexts[0].snippet, …".
pub fn describe(found: &[SecretFinding]) -> String {
    found.iter().map(|f| format!("{} in {}", f.kind, f.path)).collect::<Vec<_>>().join(", ")
}

/// [`find_secrets_in_save`] for a save that passed validation.
pub fn find_secrets_in_valid_save(save: &ValidSave) -> Vec<SecretFinding> {
    let mut fields: Vec<(String, &str)> = vec![("content".into(), save.content.as_str())];
    for (i, tag) in save.tags.iter().flatten().enumerate() {
        fields.push((format!("tags[{i}]"), tag));
    }
    for (i, context) in save.contexts.iter().enumerate() {
        fields.push((format!("contexts[{i}].snippet"), &context.snippet));
        let citation = context.citation.as_ref();
        if let Some(id) = citation.and_then(|c| c.conversation_id.as_deref()) {
            fields.push((format!("contexts[{i}].conversationId"), id));
        }
        if let Some(id) = citation.and_then(|c| c.message_id.as_deref()) {
            fields.push((format!("contexts[{i}].messageId"), id));
        }
    }
    findings(fields)
}

pub(crate) fn findings(fields: Vec<(String, &str)>) -> Vec<SecretFinding> {
    fields
        .into_iter()
        .flat_map(|(path, text)| find_secrets(text).into_iter().map(move |kind| SecretFinding { path: path.clone(), kind }))
        .collect()
}

/// Every stored field of a save request that looks like a secret: the content, each
/// tag, and each context's snippet and citation ids.
pub fn find_secrets_in_save(request: &SaveMemoryRequest) -> Vec<SecretFinding> {
    let mut fields: Vec<(String, &str)> = vec![("content".into(), request.content.as_str())];
    for (i, tag) in request.tags.iter().flatten().enumerate() {
        fields.push((format!("tags[{i}]"), tag));
    }
    for (i, context) in request.contexts.iter().flatten().enumerate() {
        fields.push((format!("contexts[{i}].snippet"), &context.snippet));
        if let Some(id) = &context.conversation_id {
            fields.push((format!("contexts[{i}].conversationId"), id));
        }
        if let Some(id) = &context.message_id {
            fields.push((format!("contexts[{i}].messageId"), id));
        }
    }
    findings(fields)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::ContextInput;

    #[test]
    fn every_stored_field_is_checked() {
        let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
        let request = SaveMemoryRequest {
            content: "plain words".into(),
            tags: Some(vec!["ok".into(), token.into()]),
            contexts: Some(vec![ContextInput {
                snippet: "fine".into(),
                conversation_id: Some(format!("sess-{token}")),
                message_id: Some("AKIAIOSFODNN7EXAMPLE".into()),
                origin: None,
            }]),
            confirmed_via: None,
        };
        let found: Vec<(String, &str)> = find_secrets_in_save(&request)
            .into_iter()
            .map(|f| (f.path, f.kind))
            .collect();
        assert_eq!(
            found,
            [
                ("tags[1]".to_owned(), "GitHub token"),
                ("contexts[0].conversationId".to_owned(), "GitHub token"),
                ("contexts[0].messageId".to_owned(), "AWS access key"),
            ]
        );
        let clean = SaveMemoryRequest {
            content: "Ada prefers tea".into(),
            ..Default::default()
        };
        assert!(find_secrets_in_save(&clean).is_empty());
    }

    #[test]
    fn secrets_are_found() {
        let cases = [
            (
                "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
                "Anthropic API key",
            ),
            ("OPENAI=sk-proj-abc123def456ghi789jkl012", "OpenAI API key"),
            ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "GitHub token"),
            ("xoxb-1234567890-abcdefghij", "Slack token"),
            ("AKIAIOSFODNN7EXAMPLE", "AWS access key"),
            ("AIzaSyA1234567890abcdefghijklmnopqrstuv", "Google API key"),
            ("mbk_0123456789abcdefghijklmnop", "Memory Bank token"),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
                "JSON Web Token",
            ),
            ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn", "private key"),
            (
                "postgres://admin:hunter22@db.internal:5432/app",
                "password in a URL",
            ),
            ("Authorization: Bearer abcdefghijklmnop0123", "bearer token"),
            ("password=Tr0ub4dor&3", "password or key assignment"),
        ];
        for (text, kind) in cases {
            assert_eq!(find_secrets(text), vec![kind], "{text}");
        }
    }

    #[test]
    fn ordinary_text_is_not_a_secret() {
        for text in [
            "We use Postgres 17 for the client database.",
            "See https://example.com/docs/a:b@c for details",
            "ask the team about the sk-ant naming scheme",
            "the password: required field must be filled",
            "password=${DB_PASSWORD}",
            "token: xxxxxxxx",
            "我喜欢喝绿茶",
            // Near misses that look random but are not secrets.
            "fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b",
            "session 6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
            "the logo is iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB.png",
            "see aGVsbG8gd29ybGQgdGhpcyBpcyBub3Q=.jpg in the wiki",
        ] {
            assert!(
                find_secrets(text).is_empty(),
                "{text}: {:?}",
                find_secrets(text)
            );
        }
    }
}
