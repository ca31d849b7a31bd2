//! Synthetic JSON Lines sessions of Qwen Code and GitHub Copilot CLI.
//!
//! Qwen Code 0.24: `~/.qwen/projects/<sanitized cwd>/chats/<uuid>.jsonl`, records chained by
//! `parentUuid`: prompts, a `ui_telemetry` system record before each model reply, replies
//! with thought parts, text and `functionCall` parts, `tool_result` records holding the
//! output twice (`functionResponse` and `toolCallResult.resultDisplay`), `custom_title`
//! records; an `agent` tool call now and then, whose sub-agent transcript goes to
//! `subagents/<sessionId>/agent-<id>.jsonl` (not read: it belongs to the tool call).
//!
//! Copilot CLI 1.0: `~/.copilot/session-state/<uuid>/events.jsonl` plus `workspace.yaml`:
//! `session.start`, per prompt `user.message` and `system.message`, per model call
//! `assistant.turn_start`, `session.usage_record`, `assistant.reasoning`,
//! `assistant.message` (tool requests, `reasoningText`), `tool.execution_start` /
//! `_complete` (output capped at 20 KB, as the CLI spills bigger output to a file),
//! `assistant.turn_end`; a `task` sub-agent's events marked with `agentId`;
//! `session.shutdown` at the end.

use std::path::Path;

use rand::Rng;

use super::claude::{title, Out};
use super::mix::Totals;
use super::text::{iso, Gen};

/// The record fields Qwen Code writes on every line.
struct Chain<'a> {
    id: &'a str,
    cwd: &'a str,
    parent: Option<String>,
    ts: i64,
}

impl Chain<'_> {
    /// Starts a record of `kind` in `line` (left open for its own fields); returns its uuid.
    fn open(&mut self, g: &mut Gen, line: &mut String, kind: &str, provenance: &str) -> String {
        let uuid = g.uuid();
        self.ts += g.rng.random_range(50..6_000);
        let parent = self.parent.as_deref().map_or("null".to_string(), |p| format!("\"{p}\""));
        line.clear();
        line.push_str(&format!(
            "{{\"uuid\":\"{uuid}\",\"parentUuid\":{parent},\"sessionId\":\"{}\",\"timestamp\":\"{}\",\"type\":\"{kind}\",\"provenance\":\"{provenance}\",\"cwd\":\"{}\",\"version\":\"0.24.4\",\"gitBranch\":\"main\"",
            self.id, iso(self.ts), self.cwd
        ));
        self.parent = Some(uuid.clone());
        uuid
    }
}

/// `cwd` as Qwen Code names its project folder.
pub fn qwen_project(cwd: &str) -> String {
    cwd.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

/// One Qwen Code session of about `target` bytes in `project` (its `chats` folder made).
pub fn qwen(g: &mut Gen, project: &Path, id: &str, cwd: &str, start: i64, target: u64) -> std::io::Result<Totals> {
    let chats = project.join("chats");
    std::fs::create_dir_all(&chats)?;
    let mut w = Out::create(&chats.join(format!("{id}.jsonl")))?;
    let mut c = Chain { id, cwd, parent: None, ts: start };
    let mut line = String::with_capacity(1 << 16);
    let mut t = Totals { sessions: 1, ..Totals::default() };
    let mut turn = 0;
    while w.bytes < target {
        turn += 1;
        c.ts += g.rng.random_range(5_000..120_000);
        c.open(g, &mut line, "user", "real_user");
        line.push_str(",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"");
        let n = g.prompt_words();
        g.prose(n, &mut line);
        line.push_str("\"}]}}");
        w.emit(&mut line)?;
        t.messages += 1;
        let rounds = g.rounds(3.0);
        for round in 0..=rounds {
            let last = round == rounds;
            c.open(g, &mut line, "system", "system");
            line.push_str(&format!(",\"subtype\":\"ui_telemetry\",\"systemPayload\":{{\"uiEvent\":{{\"event.name\":\"qwen-code.api_response\",\"event.timestamp\":\"{}\",\"response_id\":\"chatcmpl-{}\",\"model\":\"qwen3-coder-plus\",\"status_code\":200,\"duration_ms\":{},\"input_token_count\":41234,\"output_token_count\":412,\"cached_content_token_count\":38000,\"thoughts_token_count\":120,\"total_token_count\":41646,\"prompt_id\":\"{id}########{turn}\",\"auth_type\":\"openai\"}}}}}}", iso(c.ts), g.base62(24), g.rng.random_range(300..9000)));
            w.emit(&mut line)?;
            c.open(g, &mut line, "assistant", "assistant_output");
            line.push_str(",\"model\":\"qwen3-coder-plus\",\"message\":{\"role\":\"model\",\"parts\":[");
            let mut sep = "";
            if g.rng.random_ratio(1, 2) {
                line.push_str("{\"text\":\"");
                let n = g.rng.random_range(15..150);
                g.prose(n, &mut line);
                line.push_str("\",\"thought\":true}");
                sep = ",";
            }
            if last || g.rng.random_ratio(2, 5) {
                line.push_str(sep);
                line.push_str("{\"text\":\"");
                let n = if last { g.answer_words() } else { g.rng.random_range(6..40) };
                g.prose(n, &mut line);
                line.push_str("\"}");
                t.messages += 1;
                sep = ",";
            }
            let agent = !last && g.rng.random_ratio(1, 25);
            let call = format!("call_{}", g.base62(24));
            if !last {
                line.push_str(sep);
                if agent {
                    line.push_str(&format!("{{\"functionCall\":{{\"id\":\"{call}\",\"name\":\"agent\",\"args\":{{\"description\":\"Explore the code\",\"prompt\":\"Find where the parser handles errors\",\"subagent_type\":\"general-purpose\"}}}}}}"));
                } else {
                    line.push_str(&format!("{{\"functionCall\":{{\"id\":\"{call}\",\"name\":\"run_shell_command\",\"args\":{{\"command\":\"npm test -- --runInBand\",\"description\":\"Run the tests\"}}}}}}"));
                }
            }
            line.push_str("]},\"usageMetadata\":{\"promptTokenCount\":41234,\"candidatesTokenCount\":412,\"thoughtsTokenCount\":120,\"totalTokenCount\":41646,\"cachedContentTokenCount\":38000}}");
            w.emit(&mut line)?;
            if last {
                break;
            }
            let mut output = String::new();
            let n = g.out_len(2500.0, 1.3, 300_000);
            g.output(n, &mut output);
            if agent {
                t.unread += qwen_subagent(g, project, id, cwd, c.ts, &output)?;
            }
            c.open(g, &mut line, "tool_result", "tool_result");
            let name = if agent { "agent" } else { "run_shell_command" };
            line.push_str(&format!(",\"message\":{{\"role\":\"user\",\"parts\":[{{\"functionResponse\":{{\"id\":\"{call}\",\"name\":\"{name}\",\"response\":{{\"output\":\"{output}\"}}}}}}]}},\"toolCallResult\":{{\"callId\":\"{call}\",\"status\":\"success\",\"resultDisplay\":\"{output}\",\"executionStatus\":\"success\"}}}}"));
            w.emit(&mut line)?;
        }
        if turn == 2 || g.rng.random_ratio(1, 60) {
            c.open(g, &mut line, "system", "system");
            line.push_str(&format!(",\"subtype\":\"custom_title\",\"systemPayload\":{{\"customTitle\":\"{}\",\"titleSource\":\"auto\"}}}}", title(g)));
            w.emit(&mut line)?;
        }
    }
    use std::io::Write as _;
    w.w.flush()?;
    t.bytes = w.bytes + t.unread;
    Ok(t)
}

/// A sub-agent's transcript (prompt, report), as Qwen Code writes it beside the sessions;
/// returns its bytes.
fn qwen_subagent(g: &mut Gen, project: &Path, id: &str, cwd: &str, ts: i64, report: &str) -> std::io::Result<u64> {
    let dir = project.join("subagents").join(id);
    std::fs::create_dir_all(&dir)?;
    let agent = g.uuid();
    let mut w = Out::create(&dir.join(format!("agent-{}.jsonl", &agent[..8])))?;
    let mut c = Chain { id, cwd, parent: None, ts };
    let mut line = String::new();
    c.open(g, &mut line, "user", "subagent");
    line.push_str(",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"Find where the parser handles errors\"}]}}");
    w.emit(&mut line)?;
    c.open(g, &mut line, "assistant", "subagent");
    line.push_str(&format!(",\"message\":{{\"role\":\"model\",\"parts\":[{{\"text\":\"{report}\"}}]}}}}"));
    w.emit(&mut line)?;
    use std::io::Write as _;
    w.w.flush()?;
    Ok(w.bytes)
}

/// Copilot CLI's events, each `{type, data, id, timestamp, parentId[, agentId]}`.
struct Events {
    w: Out,
    line: String,
    parent: Option<String>,
    ts: i64,
}

impl Events {
    fn emit(&mut self, g: &mut Gen, kind: &str, data: &str, agent: Option<&str>) -> std::io::Result<()> {
        let id = g.uuid();
        self.ts += g.rng.random_range(5..3_000);
        let parent = self.parent.as_deref().map_or("null".to_string(), |p| format!("\"{p}\""));
        let agent = agent.map_or(String::new(), |a| format!(",\"agentId\":\"{a}\""));
        self.line.clear();
        self.line.push_str(&format!("{{\"type\":\"{kind}\",\"data\":{data}{agent},\"id\":\"{id}\",\"timestamp\":\"{}\",\"parentId\":{parent}}}", iso(self.ts)));
        self.parent = Some(id);
        self.w.emit(&mut self.line)
    }
}

/// One Copilot CLI session folder of about `target` bytes.
pub fn copilot(g: &mut Gen, dir: &Path, id: &str, cwd: &str, start: i64, target: u64) -> std::io::Result<Totals> {
    std::fs::create_dir_all(dir)?;
    let mut e = Events { w: Out::create(&dir.join("events.jsonl"))?, line: String::with_capacity(1 << 16), parent: None, ts: start };
    let mut t = Totals { sessions: 1, ..Totals::default() };
    e.emit(g, "session.start", &format!("{{\"sessionId\":\"{id}\",\"version\":1,\"producer\":\"copilot-agent\",\"copilotVersion\":\"1.0.102\",\"startTime\":\"{}\",\"selectedModel\":\"claude-sonnet-4.5\",\"contextTier\":null,\"context\":{{\"cwd\":\"{cwd}\",\"gitRoot\":\"{cwd}\",\"branch\":\"main\"}},\"alreadyInUse\":false,\"remoteSteerable\":false}}", iso(start)), None)?;
    let usage = "{\"usage\":{\"model\":\"claude-sonnet-4.5\",\"inputTokens\":31200,\"outputTokens\":410,\"cacheReadTokens\":28800,\"cacheWriteTokens\":0,\"cost\":1.0,\"duration\":4210,\"timeToFirstTokenMs\":812.4,\"initiator\":\"user\",\"interactionType\":\"conversation-agent\",\"isByok\":false,\"modelProvider\":\"anthropic\",\"maxPromptTokens\":128000,\"transport\":\"http\",\"requestBodyBytes\":147959,\"apiEndpoint\":\"/chat/completions\",\"availableToolCount\":17,\"toolTokenCount\":5748,\"numToolCalls\":1,\"toolCounts\":{\"bash\":1},\"finishReason\":\"tool_calls\",\"contentFilterTriggered\":false}}";
    let mut first_prompt = None;
    let mut turn = 0;
    while e.w.bytes < target {
        turn += 1;
        e.ts += g.rng.random_range(5_000..120_000);
        let interaction = g.uuid();
        let mut prompt = String::new();
        let n = g.prompt_words();
        g.prose(n, &mut prompt);
        first_prompt.get_or_insert_with(|| prompt.clone());
        let data = format!("{{\"content\":\"{prompt}\",\"transformedContent\":\"<current_datetime>{}</current_datetime>\\n\\n{prompt}\",\"messageId\":\"{}\",\"supportedNativeDocumentMimeTypes\":[],\"delivery\":\"idle\",\"interactionId\":\"{interaction}\",\"turnId\":\"{turn}\"}}", iso(e.ts), g.uuid());
        e.emit(g, "user.message", &data, None)?;
        t.messages += 1;
        e.emit(g, "system.message", &format!("{{\"role\":\"system\",\"content\":\"You are the GitHub Copilot CLI, a terminal assistant built by GitHub. You help with software engineering tasks in the current folder: read and change files, run commands, explain code. Be concise; prefer small, verifiable changes; run the project's tests after you change code. …\",\"metadata\":{{\"variables\":{{\"gitCommitTrailer\":{{\"sessionId\":null,\"clientName\":\"github/cli\",\"coauthorEnabled\":true}}}}}},\"interactionId\":\"{interaction}\"}}"), None)?;
        let rounds = g.rounds(3.0);
        for round in 0..=rounds {
            let last = round == rounds;
            e.emit(g, "assistant.turn_start", &format!("{{\"turnId\":\"{round}\",\"interactionId\":\"{interaction}\"}}"), None)?;
            e.emit(g, "session.usage_record", usage, None)?;
            let mut reasoning = String::new();
            if g.rng.random_ratio(1, 2) {
                let n = g.rng.random_range(15..150);
                g.prose(n, &mut reasoning);
                let data = format!("{{\"reasoningId\":\"{}\",\"content\":\"{reasoning}\"}}", g.uuid());
                e.emit(g, "assistant.reasoning", &data, None)?;
            }
            let mut content = String::new();
            if last || g.rng.random_ratio(2, 5) {
                let n = if last { g.answer_words() } else { g.rng.random_range(6..40) };
                g.prose(n, &mut content);
                t.messages += 1;
            }
            let call = format!("toolu_{}", g.base62(24));
            let task = !last && g.rng.random_ratio(1, 25);
            let (tool, args) = if task {
                ("task", "{\"agent_type\":\"explore\",\"description\":\"Explore the code\",\"prompt\":\"Find the error handling\"}".to_string())
            } else {
                ("bash", "{\"command\":\"cargo test -p parser\",\"description\":\"Run the parser tests\"}".to_string())
            };
            let requests = if last { String::new() } else {
                format!("{{\"toolCallId\":\"{call}\",\"name\":\"{tool}\",\"arguments\":{args},\"type\":\"function\",\"intentionSummary\":\"Run the tests\",\"toolTitle\":\"Running command\"}}")
            };
            let reasoning_text = if reasoning.is_empty() { String::new() } else { format!(",\"reasoningText\":\"{reasoning}\"") };
            let data = format!("{{\"messageId\":\"{}\",\"model\":\"claude-sonnet-4.5\",\"content\":\"{content}\",\"toolRequests\":[{requests}],\"interactionId\":\"{interaction}\",\"turnId\":\"{round}\",\"rte\":false,\"apiCallId\":\"msg_{}\"{reasoning_text}}}", g.uuid(), g.base62(20));
            e.emit(g, "assistant.message", &data, None)?;
            if !last {
                e.emit(g, "tool.execution_start", &format!("{{\"toolCallId\":\"{call}\",\"toolName\":\"{tool}\",\"arguments\":{args},\"turnId\":\"{round}\",\"model\":\"claude-sonnet-4.5\",\"toolTitle\":\"Running command\"}}"), None)?;
                let mut output = String::new();
                let n = g.out_len(2500.0, 1.3, 20_000);
                g.output(n, &mut output);
                if task {
                    let agent = g.uuid();
                    let a = Some(agent.as_str());
                    e.emit(g, "subagent.started", &format!("{{\"toolCallId\":\"{call}\",\"agentName\":\"explore\",\"agentDisplayName\":\"Explore Agent\",\"model\":\"claude-haiku-4.5\",\"agentType\":\"explore\",\"executionMode\":\"sync\"}}"), a)?;
                    let data = format!("{{\"content\":\"Find the error handling\",\"source\":\"agent-{id}\",\"messageId\":\"{}\",\"delivery\":\"idle\"}}", g.uuid());
                    e.emit(g, "user.message", &data, a)?;
                    let data = format!("{{\"messageId\":\"{}\",\"content\":\"{output}\",\"toolRequests\":[],\"parentToolCallId\":\"{call}\"}}", g.uuid());
                    e.emit(g, "assistant.message", &data, a)?;
                    e.emit(g, "subagent.completed", &format!("{{\"toolCallId\":\"{call}\",\"agentName\":\"explore\",\"totalToolCalls\":3,\"totalTokens\":12110,\"durationMs\":9120}}"), a)?;
                }
                e.emit(g, "tool.execution_complete", &format!("{{\"toolCallId\":\"{call}\",\"model\":\"claude-sonnet-4.5\",\"interactionId\":\"{interaction}\",\"turnId\":\"{round}\",\"rte\":false,\"shellExecution\":{{\"exitCode\":0}},\"success\":true,\"result\":{{\"content\":\"{output}\",\"detailedContent\":\"{output}\"}},\"toolTelemetry\":{{\"properties\":{{\"executionMode\":\"sync\",\"detached\":\"false\"}},\"metrics\":{{\"commandTimeout\":30000.0,\"context_token_limit\":128000.0,\"large_output_threshold_bytes\":20480.0}}}}}}"), None)?;
            }
            e.emit(g, "assistant.turn_end", &format!("{{\"turnId\":\"{round}\"}}"), None)?;
        }
    }
    e.emit(g, "session.shutdown", "{\"shutdownType\":\"routine\",\"totalPremiumRequests\":12,\"totalApiDurationMs\":182210,\"codeChanges\":{\"linesAdded\":120,\"linesRemoved\":31,\"filesModified\":[\"src/parser.rs\",\"src/lib.rs\"]},\"modelMetrics\":{\"claude-sonnet-4.5\":{\"requests\":{\"count\":12,\"cost\":12},\"usage\":{\"inputTokens\":412000,\"outputTokens\":5120,\"cacheReadTokens\":380000,\"cacheWriteTokens\":0}}}}", None)?;
    use std::io::Write as _;
    e.w.w.flush()?;
    // Interactive sessions get a generated name; prompt mode names them by the prompt.
    let name = if g.rng.random_ratio(1, 3) { first_prompt.unwrap_or_default() } else { title(g) };
    let name = super::text::unescape(&name).replace('\n', " ");
    let yaml = format!(
        "id: {id}\ncwd: {cwd}\ngit_root: {cwd}\nbranch: main\nclient_name: github/cli\nname: {}\nuser_named: false\nsummary_count: 0\nfork_count: 0\ncreated_at: {}\nupdated_at: {}\n",
        serde_json::to_string(&name).unwrap_or_default(), iso(start), iso(e.ts)
    );
    std::fs::write(dir.join("workspace.yaml"), &yaml)?;
    t.bytes = e.w.bytes + yaml.len() as u64;
    Ok(t)
}
