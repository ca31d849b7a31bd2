//! `ui_messages.json`: the rows the extension showed, each `{ts, type: "say"|"ask",
//! say|ask: <kind>, text, images?, partial?}` (Cline `ClineMessage` in
//! `src/shared/ExtensionMessage.ts`; Roo Code `clineMessageSchema` in
//! `packages/types/src/message.ts`). A row being streamed is rewritten in place with the
//! same `ts` (`partial: true` until done); what it held when read is what the person saw.
//!
//! Messages:
//!
//! - the person: the task, the first row (Cline `say: task`; Roo Code `say: text`),
//!   and `say: user_feedback` (an answer typed to a question, feedback on a result or on
//!   a rejected tool, a message sent when resuming). An answer picked from the offered
//!   options is not a row of its own in Cline: it is the `selected` field of the question
//!   (`ask: followup` or `plan_mode_respond`), read as the person's message after it.
//! - the agent: `say: text`, `say: completion_result` (the `attempt_completion` result;
//!   Cline 4.x also has `plan_completion_result`), the question of `ask:
//!   followup` (JSON `{question, options|suggest}`, plain text in old versions) and the
//!   answer of Cline's `ask: plan_mode_respond` / `act_mode_respond` (JSON `{response}`).
//!
//! Images (data URLs in `images`) are not text. Not messages: reasoning, API request rows,
//! errors and notices, command output, tool results (`mcp_server_response`,
//! `subtask_result`, …), checkpoints and the `resume_task` / `resume_completed_task`
//! prompts shown when a task is reopened.
//!
//! Tool calls: `say|ask: tool` (JSON `{tool: <kind>, path, content|diff, …}`), `command`
//! (`execute_command`), `browser_action_launch` / `browser_action`, `use_mcp_server` (the
//! MCP tool's name), Cline's `new_task`, `condense`, `summarize_task`, `report_bug` and
//! `use_subagents`, plus `attempt_completion` before a result and `ask_followup_question`
//! before a question. A tool kind is named by the tool that writes it when only one does
//! (`readFile` → `read_file`), else by the kind itself in snake case (Cline's
//! `editedExistingFile` comes from `write_to_file` and `replace_in_file` alike).
//!
//! The id to cite, and the merge key, is the row's `ts` (ms, which both extensions use as
//! the row's id; a repeated one gets `-2`, `-3`…); an answer picked from options is
//! `<ts>-answer`. A row's time is its `ts`; the task was created at the earliest and was
//! last active at the latest, not counting the prompts to resume it (as the extensions'
//! own history does).

use std::collections::HashMap;

use serde::Deserialize;

use crate::events::{Event, Merge};
use crate::jsonl::parse_line_as;
use crate::model::Role;
use crate::sources::lenient::Scalar;

/// One row; other fields (`images`, `checkpoint`, …) are skipped without being built.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct UiMessage {
    ts: Scalar,
    #[serde(rename = "type")]
    ty: Scalar,
    say: Scalar,
    ask: Scalar,
    text: Scalar,
}

/// The JSON some rows hold in `text`, as far as it is needed (a tool row's file content
/// is skipped).
#[derive(Deserialize, Default)]
#[serde(default)]
struct RowJson {
    /// A tool row's kind.
    tool: Scalar,
    /// `use_mcp_server`: the tool's name, and whether it reads a resource instead.
    #[serde(rename = "toolName")]
    tool_name: Scalar,
    #[serde(rename = "type")]
    ty: Scalar,
    /// `followup`.
    question: Scalar,
    /// `plan_mode_respond` / `act_mode_respond`.
    response: Scalar,
    /// The option the person picked (Cline).
    selected: Scalar,
}

/// A task's transcript.
#[derive(Default)]
pub(super) struct Transcript {
    /// Messages and tool calls, in order.
    pub(super) events: Vec<Event>,
    /// How many messages.
    pub(super) messages: usize,
    pub(super) created: Option<i64>,
    pub(super) updated: Option<i64>,
}

impl Transcript {
    /// Reads the rows of one `ui_messages.json`.
    pub(super) fn read(rows: impl IntoIterator<Item = UiMessage>) -> Transcript {
        let mut t = Transcript::default();
        let mut seen: HashMap<String, u32> = HashMap::new();
        for (position, row) in rows.into_iter().enumerate() {
            let ts = row.ts.time();
            let base = match ts {
                Some(ts) => ts.to_string(),
                None => format!("row{position}"),
            };
            let n = seen.entry(base.clone()).or_default();
            *n += 1;
            let id = if *n == 1 { base } else { format!("{base}-{n}") };
            let kind = match row.ty.as_str() {
                Some("say") => Kind::Say(row.say.as_str().unwrap_or_default().to_owned()),
                Some("ask") => Kind::Ask(row.ask.as_str().unwrap_or_default().to_owned()),
                _ => continue,
            };
            if let Some(ts) = ts {
                t.created = Some(t.created.map_or(ts, |c| c.min(ts)));
                if !matches!(&kind, Kind::Ask(k) if k == "resume_task" || k == "resume_completed_task") {
                    t.updated = Some(t.updated.map_or(ts, |u| u.max(ts)));
                }
            }
            let text = row.text.string().unwrap_or_default();
            t.row(position == 0, &kind, &id, text, ts);
        }
        t
    }

    fn row(&mut self, first: bool, kind: &Kind, id: &str, text: String, ts: Option<i64>) {
        match kind {
            Kind::Say(k) => match k.as_str() {
                "task" | "user_feedback" => self.message(id, Role::User, &text, ts),
                // Roo Code's task is the first row, a `text` one.
                "text" if first => self.message(id, Role::User, &text, ts),
                "text" | "plan_completion_result" => self.message(id, Role::Assistant, &text, ts),
                "completion_result" => {
                    self.tool(id, "attempt_completion");
                    self.message(id, Role::Assistant, &text, ts);
                }
                "tool" | "command" | "browser_action_launch" | "browser_action" | "use_mcp_server"
                | "use_subagents" | "load_mcp_documentation" => self.tool_row(id, k, &text),
                _ => {} // reasoning, API requests, errors, notices, tool results
            },
            Kind::Ask(k) => match k.as_str() {
                "followup" => {
                    self.tool(id, "ask_followup_question");
                    let json = row_json(&text);
                    let question = match &json {
                        Some(json) => json.question.as_str().unwrap_or_default(),
                        None => &text, // a plain question (old versions)
                    };
                    self.message(id, Role::Assistant, question, ts);
                    self.answer(id, json, ts);
                }
                "plan_mode_respond" | "act_mode_respond" => {
                    let json = row_json(&text);
                    let response = json.as_ref().and_then(|j| j.response.as_str()).unwrap_or_default();
                    self.message(id, Role::Assistant, response, ts);
                    self.answer(id, json, ts);
                }
                "tool" | "command" | "browser_action_launch" | "use_mcp_server" | "new_task" | "condense"
                | "summarize_task" | "report_bug" | "use_subagents" => self.tool_row(id, k, &text),
                // completion_result (empty: the result is the row before), resume
                // prompts, failures, command output.
                _ => {}
            },
        }
    }

    fn message(&mut self, id: &str, role: Role, text: &str, ts: Option<i64>) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        self.messages += 1;
        self.events.push(Event::message(id, id, role, text, ts, Merge::Replace));
    }

    /// The option the person picked, after the question.
    fn answer(&mut self, id: &str, json: Option<RowJson>, ts: Option<i64>) {
        if let Some(selected) = json.and_then(|j| j.selected.string()) {
            self.message(&format!("{id}-answer"), Role::User, &selected, ts);
        }
    }

    fn tool(&mut self, id: &str, name: &str) {
        self.events.push(Event::ToolCall { key: id.to_owned(), name: name.to_owned() });
    }

    fn tool_row(&mut self, id: &str, kind: &str, text: &str) {
        let name = match kind {
            "tool" => row_json(text).and_then(|j| j.tool.string()).map_or_else(|| "tool".to_owned(), |k| tool_name(&k)),
            "command" => "execute_command".to_owned(),
            "browser_action_launch" | "browser_action" => "browser_action".to_owned(),
            "use_mcp_server" => {
                let json = row_json(text);
                match json.as_ref().map(|j| (j.ty.as_str(), j.tool_name.as_str())) {
                    Some((Some("access_mcp_resource"), _)) => "access_mcp_resource".to_owned(),
                    Some((_, Some(name))) if !name.trim().is_empty() => name.trim().to_owned(),
                    _ => "use_mcp_tool".to_owned(),
                }
            }
            other => other.to_owned(),
        };
        self.tool(id, &name);
    }
}

enum Kind {
    Say(String),
    Ask(String),
}

/// The JSON object in a row's text, if it is one.
fn row_json(text: &str) -> Option<RowJson> {
    text.trim_start().starts_with('{').then(|| parse_line_as::<RowJson>(text.as_bytes())).flatten()
}

/// The tool behind a tool row's kind.
fn tool_name(kind: &str) -> String {
    let name = match kind {
        "readFile" => "read_file",
        "listFilesTopLevel" | "listFilesRecursive" => "list_files",
        "listCodeDefinitionNames" => "list_code_definition_names",
        "searchFiles" => "search_files",
        "codebaseSearch" => "codebase_search",
        "newFileCreated" => "write_to_file",
        "insertContent" => "insert_content",
        "searchAndReplace" => "search_and_replace",
        "fetchInstructions" => "fetch_instructions",
        "webFetch" => "web_fetch",
        "webSearch" => "web_search",
        "switchMode" => "switch_mode",
        "newTask" => "new_task",
        "updateTodoList" => "update_todo_list",
        "runSlashCommand" => "run_slash_command",
        "generateImage" => "generate_image",
        "readCommandOutput" => "read_command_output",
        "summarizeTask" => "summarize_task",
        "useSkill" => "use_skill",
        other => return snake_case(other),
    };
    name.to_owned()
}

/// `editedExistingFile` → `edited_existing_file`.
fn snake_case(kind: &str) -> String {
    let mut out = String::with_capacity(kind.len() + 4);
    for c in kind.trim().chars() {
        if c.is_ascii_uppercase() {
            if !out.is_empty() {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    if out.is_empty() { "tool".to_owned() } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_kinds_are_named_after_their_tool() {
        assert_eq!(tool_name("readFile"), "read_file");
        assert_eq!(tool_name("newFileCreated"), "write_to_file");
        assert_eq!(tool_name("editedExistingFile"), "edited_existing_file");
        assert_eq!(tool_name("appliedDiff"), "applied_diff");
        assert_eq!(tool_name(""), "tool");
    }
}
