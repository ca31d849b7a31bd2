//! The gate: the one check every stored text passes, whichever door it came through.
//!
//! A sentence, tag, snippet, citation id or client name reaches a store only inside a
//! `Valid…` value ([`crate::validate::ValidSave`], [`crate::edit::ValidEdit`],
//! [`crate::validate::ValidProposal`], [`crate::transfer::ValidImport`]). Those types are
//! `#[non_exhaustive]`, so no crate but this one can build them, and inside this crate
//! they are built only from a [`Gate`] that admitted every text field: trimmed, within its
//! length, free of control characters, and not looking like a secret. So save, edit,
//! propose, accept (with the person's edits, or as an edit of another memory), the answer
//! to a confirmation form, restoring a revision and import all pass the same checks, and a
//! new write path cannot skip them: it has no other way to make what a store accepts.

use crate::limits::{MAX_TAGS, MAX_TAG_CHARS};
use crate::secrets::{self, SecretFinding};
use crate::FieldError;

/// Why text was refused before anything was stored.
#[derive(Debug, Clone, PartialEq)]
pub enum Refused {
    /// Limits, shapes and characters: one detail per problem (a 400).
    Invalid(Vec<FieldError>),
    /// A field looks like it holds a secret (a 422); nothing was stored.
    LooksLikeSecret(Vec<SecretFinding>),
}

impl Refused {
    /// One line for people: every problem, or every secret and where it is.
    pub fn describe(&self) -> String {
        match self {
            Refused::Invalid(details) => details.iter().map(|d| d.message.as_str()).collect::<Vec<_>>().join("; "),
            Refused::LooksLikeSecret(found) => {
                format!("this looks like a secret ({}); remove it: memories are plain text", secrets::describe(found))
            }
        }
    }

    /// The details an error body carries: the fields and what is wrong with each.
    pub fn details(&self) -> Vec<FieldError> {
        match self {
            Refused::Invalid(details) => details.clone(),
            Refused::LooksLikeSecret(found) => secrets::as_details(found),
        }
    }
}

/// Which characters a field may hold besides printable text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// A sentence or an excerpt (content, snippets): newlines and tabs are part of it
    /// (`\r\n` is kept as `\n`).
    Prose,
    /// A tag, an id or a name: one line, no tabs.
    Line,
}

/// Collects the text fields of one request, checking each as it is added, then runs the
/// secret check over all of them in [`Gate::admit`].
#[derive(Debug, Default)]
pub struct Gate {
    errors: Vec<FieldError>,
    stored: Vec<(String, String)>,
}

impl Gate {
    /// A gate with nothing checked yet.
    pub fn new() -> Gate {
        Gate::default()
    }

    /// Checks one stored field: trimmed, 1..=`max` characters, and no control characters
    /// but those `layout` allows. Returns the value as it will be stored.
    pub fn text(&mut self, path: &str, value: &str, max: usize, layout: Layout) -> String {
        let trimmed = within(&mut self.errors, path, value, max);
        let stored = match layout {
            Layout::Prose if trimmed.contains('\r') => trimmed.replace("\r\n", "\n"),
            _ => trimmed,
        };
        if let Some(bad) = stored.chars().find(|&c| is_refused_control(c, layout)) {
            let allowed = match layout {
                Layout::Prose => "; newlines and tabs are fine",
                Layout::Line => "; it must be one line of text",
            };
            self.errors.push(FieldError::new(
                path,
                format!("{path} contains the control character {} ({}){allowed}: remove it", code_point(bad), name(bad)),
            ));
        }
        self.stored.push((path.to_owned(), stored.clone()));
        stored
    }

    /// Checks a list of tags: at most [`MAX_TAGS`], each one line of 1..=[`MAX_TAG_CHARS`]
    /// characters. Past the count the elements are not checked: one detail says "too
    /// many", instead of one per element of a huge list.
    pub fn tags(&mut self, path: &str, tags: &[String]) -> Vec<String> {
        if tags.len() > MAX_TAGS {
            self.error(FieldError::new(path, format!("at most {MAX_TAGS} tags are allowed, got {}", tags.len())));
            return Vec::new();
        }
        tags.iter().enumerate().map(|(i, tag)| self.text(&format!("{path}[{i}]"), tag, MAX_TAG_CHARS, Layout::Line)).collect()
    }

    /// Records a problem found outside [`Gate::text`] (a count, a shape, a timestamp).
    pub fn error(&mut self, error: FieldError) {
        self.errors.push(error);
    }

    /// Records several problems at once.
    pub fn errors(&mut self, errors: impl IntoIterator<Item = FieldError>) {
        self.errors.extend(errors);
    }

    /// Whether a problem was recorded so far.
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// The verdict: every problem at once when there is one, else every field that looks
    /// like a secret, else admitted.
    pub fn admit(self) -> Result<(), Refused> {
        if !self.errors.is_empty() {
            return Err(Refused::Invalid(crate::cap_details(self.errors)));
        }
        let found: Vec<SecretFinding> = self
            .stored
            .iter()
            .flat_map(|(path, text)| secrets::find_secrets(text).into_iter().map(move |kind| SecretFinding { path: path.clone(), kind }))
            .collect();
        if found.is_empty() {
            Ok(())
        } else {
            Err(Refused::LooksLikeSecret(found))
        }
    }
}

/// Trims `value` and records an error unless it has 1..=`max` characters: the length rule
/// alone, for what is read but never stored (a search query).
pub(crate) fn within(errors: &mut Vec<FieldError>, path: &str, value: &str, max: usize) -> String {
    let trimmed = value.trim();
    let chars = trimmed.chars().count();
    if chars == 0 {
        let what = if value.is_empty() { "is empty" } else { "is only whitespace" };
        errors.push(FieldError::new(path, format!("{path} {what}; it needs 1 to {max} characters")));
    } else if chars > max {
        errors.push(FieldError::new(path, format!("{path} has {chars} characters; the limit is {max}")));
    }
    trimmed.to_owned()
}

/// C0 and C1 controls and DEL: they can hide text from the person reading it (a NUL ends
/// it for some readers, a lone `\r` or an escape sequence rewrites a terminal line).
fn is_refused_control(c: char, layout: Layout) -> bool {
    c.is_control() && !(layout == Layout::Prose && (c == '\n' || c == '\t'))
}

fn code_point(c: char) -> String {
    format!("U+{:04X}", c as u32)
}

fn name(c: char) -> &'static str {
    match c {
        '\0' => "NUL",
        '\r' => "carriage return",
        '\n' => "newline",
        '\t' => "tab",
        '\u{1b}' => "escape",
        '\u{7f}' => "delete",
        _ => "a control character",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(value: &str, layout: Layout) -> Result<String, Refused> {
        let mut gate = Gate::new();
        let stored = gate.text("content", value, 100, layout);
        gate.admit().map(|()| stored)
    }

    #[test]
    fn prose_keeps_newlines_and_tabs_and_lines_keep_neither() {
        assert_eq!(one(" two\nlines\tand a tab ", Layout::Prose).unwrap(), "two\nlines\tand a tab");
        assert_eq!(one("windows\r\nline end", Layout::Prose).unwrap(), "windows\nline end");
        for value in ["two\nlines", "a\ttab"] {
            let refused = one(value, Layout::Line).unwrap_err();
            assert!(matches!(&refused, Refused::Invalid(d) if d[0].message.contains("one line")), "{refused:?}");
        }
    }

    #[test]
    fn nul_and_other_controls_are_refused_with_their_code_point() {
        for (value, shown) in [("a\0b", "U+0000 (NUL)"), ("a\rb", "U+000D"), ("a\u{1b}[2Jb", "U+001B"), ("a\u{85}b", "U+0085"), ("a\u{7f}", "U+007F")] {
            let refused = one(value, Layout::Prose).unwrap_err();
            let Refused::Invalid(details) = &refused else { panic!("{value:?}: {refused:?}") };
            assert_eq!(details[0].path, "content");
            assert!(details[0].message.contains(shown), "{value:?}: {}", details[0].message);
        }
    }

    #[test]
    fn limits_come_before_secrets_and_secrets_name_their_field() {
        let mut gate = Gate::new();
        gate.text("content", "fine", 100, Layout::Prose);
        gate.text("tags[0]", &format!("ghp_{}", "a1B2".repeat(9)), 64, Layout::Line);
        let Err(Refused::LooksLikeSecret(found)) = gate.admit() else { panic!("a token in a tag") };
        assert_eq!((found[0].path.as_str(), found[0].kind), ("tags[0]", "GitHub token"));
        let mut gate = Gate::new();
        gate.text("content", "", 100, Layout::Prose);
        gate.text("tags[0]", &format!("ghp_{}", "a1B2".repeat(9)), 64, Layout::Line);
        assert!(matches!(gate.admit(), Err(Refused::Invalid(_))));
    }
}
