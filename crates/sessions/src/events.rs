//! What a source parser emits while it reads a file, and the rules that fold those events
//! into sessions. Kept apart from the answer types (`model.rs`): events never leave the
//! crate, answers do.

use crate::model::Role;

/// How sure a parser is about a title; a higher rank replaces a lower one, and an equal
/// rank replaces an earlier one (the tools append renames).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TitleRank {
    /// Claude's old `summary` record.
    Summary = 2,
    /// A title the tool generated (Claude `ai-title`, opencode, Gemini `summary`).
    Generated = 3,
    /// A title the person chose (Claude `/rename`, Codex thread name).
    Custom = 4,
}

/// Session-level facts. Each field merges by its own rule, so parsers can emit them as
/// they meet them, line by line, and an incremental pass over appended bytes is correct.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetaEvent {
    /// The tool's session id; the first one seen wins.
    pub session_id: Option<String>,
    /// A title candidate (see [`TitleRank`]).
    pub title: Option<(TitleRank, String)>,
    /// The workspace; the first one seen wins.
    pub workspace: Option<String>,
    /// A creation time (ms since epoch); the earliest wins.
    pub created: Option<i64>,
    /// An activity time (ms since epoch); the latest wins.
    pub updated: Option<i64>,
    /// Marks a sub-agent or child session, which is not listed on its own.
    pub hidden: bool,
}

/// How a message event combines with an earlier one that has the same key (the rule itself
/// is [`MessageEvent::merge_into`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    /// Replace role, text and time; keep the position (Gemini appends the same id again).
    Replace,
    /// Append the text after a blank line (Claude writes one record per content block).
    Append,
}

/// A user or assistant message with text.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageEvent {
    /// Identifies the message within its session for merging (e.g. Claude's `message.id`).
    pub key: String,
    /// The id to cite.
    pub message_id: String,
    /// `user` or `assistant`.
    pub role: Role,
    /// Non-empty text.
    pub text: String,
    /// Ms since epoch.
    pub timestamp: Option<i64>,
    /// What to do when the key was seen before.
    pub merge: Merge,
}

/// What a parser learned from one line or one whole file.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Session-level facts.
    Meta(MetaEvent),
    /// A message (new, or merged into an earlier one with the same key).
    Message(MessageEvent),
    /// Delete the message with this key and every later one (Gemini `$rewindTo`).
    Rewind {
        /// The key of the first message to delete.
        key: String,
    },
    /// A tool call the agent made. It is not a message: it attaches after the latest
    /// message so far (before the first when there is none) and the app shows it
    /// collapsed there. A repeated key keeps its place and takes the new name.
    ToolCall {
        /// The tool's call id (or another key unique in the session).
        key: String,
        /// The tool's name as the tool shows it (`Read`, `shell`, `apply_patch`, …).
        name: String,
    },
    /// A Claude `summary` met after its leaf record, in a later pass than the leaf's (an
    /// append, or the next part of a big file): a summary title when the leaf is one of
    /// this session's messages.
    LeafSummary {
        /// The record id the summary names.
        leaf: String,
        /// The summary.
        title: String,
    },
    /// A title kept outside the session file (Codex `session_index.jsonl`); the latest wins.
    ExternalTitle {
        /// The session it names.
        session_id: String,
        /// The title; empty clears it.
        title: String,
    },
}

impl Event {
    /// Shorthand for a message event.
    pub fn message(
        key: impl Into<String>,
        message_id: impl Into<String>,
        role: Role,
        text: impl Into<String>,
        timestamp: Option<i64>,
        merge: Merge,
    ) -> Event {
        Event::Message(MessageEvent {
            key: key.into(),
            message_id: message_id.into(),
            role,
            text: text.into(),
            timestamp,
            merge,
        })
    }
}

impl MessageEvent {
    /// Folds this event into the earlier message with the same key: the one merge rule,
    /// applied by the index to rows (`index/apply.rs`) and by a read without an index to
    /// memory (`replay.rs`), so that both read a file the same way.
    pub fn merge_into(self, role: &mut Role, text: &mut String, timestamp: &mut Option<i64>) {
        match self.merge {
            Merge::Append => {
                text.push_str("\n\n");
                text.push_str(&self.text);
            }
            Merge::Replace => {
                *role = self.role;
                *text = self.text;
                *timestamp = self.timestamp.or(*timestamp);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(text: &str, role: Role, timestamp: Option<i64>, merge: Merge) -> MessageEvent {
        MessageEvent { key: "k".into(), message_id: "m".into(), role, text: text.into(), timestamp, merge }
    }

    #[test]
    fn append_joins_texts_and_replace_takes_the_new_message_keeping_a_known_time() {
        let (mut role, mut text, mut ts) = (Role::Assistant, "first".to_string(), Some(5));
        event("second", Role::User, Some(9), Merge::Append).merge_into(&mut role, &mut text, &mut ts);
        assert_eq!((role, text.as_str(), ts), (Role::Assistant, "first\n\nsecond", Some(5)));
        event("new", Role::User, None, Merge::Replace).merge_into(&mut role, &mut text, &mut ts);
        assert_eq!((role, text.as_str(), ts), (Role::User, "new", Some(5)));
        event("newer", Role::Assistant, Some(7), Merge::Replace).merge_into(&mut role, &mut text, &mut ts);
        assert_eq!((role, text.as_str(), ts), (Role::Assistant, "newer", Some(7)));
    }
}
