//! Text that looks like a secret, which must never become a memory: agents read
//! memories as plain text. The one detector behind every door that stores text (the
//! desktop app's save, proposals from agents). The save dialog highlights the same
//! patterns (`ui/src/sessions/secrets.ts`) and blocks Save; this is the guard for when
//! the UI is bypassed. It is called from one place, [`crate::gate`], which every stored
//! text passes.

use std::sync::LazyLock;

use regex::Regex;


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

/// A value, not a word, a number, a placeholder or a variable reference.
fn looks_like_value(c: &regex::Captures) -> bool {
    let value = &c[1];
    let lower = value.to_ascii_lowercase();
    if value.starts_with(['$', '%', '{', '<', '[', '(', '*'])
        || ["process.env", "os.environ", "env."].iter().any(|p| lower.starts_with(p))
        || value.chars().all(|ch| ch.eq_ignore_ascii_case(&'x'))
        || value.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b'_')
    {
        return false;
    }
    value.chars().any(|ch| !ch.is_ascii_alphabetic()) || value.len() >= 16
}

/// `\b` that treats every non-ASCII character as a non-word one, so a key written
/// straight after Chinese or Japanese text (`鍵はAKIA…です`) still starts at a boundary.
const B: &str = r"(?-u:\b)";

static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    let p = |kind, re: &str, accept: fn(&regex::Captures) -> bool| Pattern {
        kind,
        regex: Regex::new(&re.replace(r"\b", B)).expect("secret pattern compiles"),
        accept,
    };
    vec![
        p("private key", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----", always),
        p("Anthropic API key", r"\bsk-ant-[A-Za-z0-9_-]{20,}", always),
        p("OpenAI API key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}", openai_key),
        p("Stripe key", r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}", always),
        p("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})", always),
        p("Slack token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}", always),
        p("AWS access key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", always),
        p("AWS secret key", r"(?i)\baws_?secret_?(?:access_?)?key\b[\x22']?\s*[:=]\s*[\x22']?[A-Za-z0-9/+]{40}\b", always),
        p("Google API key", r"\bAIza[0-9A-Za-z_-]{35}", always),
        p("Memory Bank token", r"\bmbk_[A-Za-z0-9_-]{20,}", always),
        p("JSON Web Token", r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", always),
        p("password in a URL", r"(?i)\b[a-z][a-z0-9+.-]*://[^\s:@/]+:[^\s@/]+@[^\s/]+", always),
        p("bearer token", r"\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*", always),
        // The name may be part of a longer one (`DB_PASSWORD`, `aws_secret_access_key`,
        // `github.token`): what makes it a secret is the word in it and a value after it.
        p(
            ASSIGNMENT,
            r#"(?i)\b[a-z0-9_.-]*(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|private[_-]?key|access[_-]?token|auth[_-]?token|token)[a-z0-9_-]*["']?\s*[:=]\s*["']?([^\s"'`,;<>]{6,})"#,
            looks_like_value,
        ),
    ]
});

/// Every pattern at once: most text matches none, and is then read once, not once a pattern.
static ANY: LazyLock<regex::RegexSet> =
    LazyLock::new(|| regex::RegexSet::new(PATTERNS.iter().map(|p| p.regex.as_str())).expect("secret patterns compile"));

/// What kinds of secret `text` seems to contain (e.g. "GitHub token"), each named once.
///
/// The patterns run over the text as a reader would see it, not as its bytes are:
/// compatibility forms folded (NFKC: fullwidth `ＡＫＩＡ…` is `AKIA…`), invisible format
/// characters removed (a zero-width space or soft hyphen inside a key), and once more with
/// line breaks and NULs removed, for a key broken over two lines. Word boundaries are
/// ASCII ones, so a key run together with Chinese or Japanese text is still a key.
pub fn find_secrets(text: &str) -> Vec<&'static str> {
    let mut kinds = Vec::new();
    for view in views(text) {
        if !ANY.is_match(&view) {
            continue;
        }
        for pattern in PATTERNS.iter() {
            if !kinds.contains(&pattern.kind) && pattern.regex.captures_iter(&view).any(|c| (pattern.accept)(&c)) {
                kinds.push(pattern.kind);
            }
        }
    }
    // `AWS_ACCESS_KEY_ID=AKIA…` is an AWS key: the generic name for it only when nothing
    // more specific was found.
    if kinds.len() > 1 {
        kinds.retain(|kind| *kind != ASSIGNMENT);
    }
    kinds
}

/// The generic kind, for a secret named by what it is assigned to.
const ASSIGNMENT: &str = "password or key assignment";

/// The forms of `text` the patterns are run over (see [`find_secrets`]); plain ASCII on
/// one line, most text, is checked as it is.
fn views(text: &str) -> Vec<std::borrow::Cow<'_, str>> {
    use std::borrow::Cow;
    use unicode_normalization::UnicodeNormalization;
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
    let read: Cow<'_, str> = if text.is_ascii() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfkc().filter(|c| c.general_category() != GeneralCategory::Format).collect())
    };
    let breaks = |c: char| matches!(c, '\n' | '\r' | '\0' | '\u{85}' | '\u{2028}' | '\u{2029}');
    if read.contains(breaks) {
        let joined: String = read.chars().filter(|&c| !breaks(c)).collect();
        vec![read, Cow::Owned(joined)]
    } else {
        vec![read]
    }
}

/// One field of a request that looks like it holds a secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretFinding {
    /// JSON path of the field, e.g. `contexts[0].messageId`.
    pub path: String,
    /// What it looks like, e.g. "GitHub token".
    pub kind: &'static str,
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn secrets_hidden_from_the_patterns_are_found() {
        let key = "AKIAQWERTYUIOPASDFGH";
        let fullwidth: String = key.chars().map(|c| char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap()).collect();
        for text in [
            format!("鍵は{key}です"),
            format!("密钥{key}。"),
            "AKIAQWERTY\u{200b}UIOPASDFGH".to_string(),
            "AKIAQWERTY\u{ad}UIOPASDFGH".to_string(),
            "AKIAQWERTY\u{2060}UIOPASDFGH".to_string(),
            "AKIAQWERTY\u{feff}UIOPASDFGH".to_string(),
            "AKIAQWERTY\0UIOPASDFGH".to_string(),
            "the key is AKIAQWERTY\nUIOPASDFGH, rotate it".to_string(),
            "the key is AKIAQWERTY\r\nUIOPASDFGH".to_string(),
            fullwidth,
        ] {
            assert_eq!(find_secrets(&text), vec!["AWS access key"], "{text:?}");
        }
        let split_token = format!("ghp_{}\n{}", "a1B2".repeat(5), "a1B2".repeat(5));
        assert_eq!(find_secrets(&split_token), vec!["GitHub token"]);
    }

    #[test]
    fn assignments_inside_longer_names_are_found() {
        let aws = find_secrets("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
        assert_eq!(aws, ["AWS secret key"]);
        assert_eq!(find_secrets("AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE"), ["AWS access key"]);
        for text in ["DB_PASSWORD=Tr0ub4dor&3", "export GITHUB_TOKEN=abc123def456", "client.secret: 9f8e7d6c5b4a"] {
            assert_eq!(find_secrets(text), vec!["password or key assignment"], "{text}");
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
            "set max_tokens: 100000 for long answers",
            "the token_count = 12345678 after the run",
            "DB_PASSWORD=${DB_PASSWORD}",
            "我们的部署在周二。Deploys happen on Tuesdays",
            "two lines\nof ordinary words",
        ] {
            assert!(
                find_secrets(text).is_empty(),
                "{text}: {:?}",
                find_secrets(text)
            );
        }
    }
}
