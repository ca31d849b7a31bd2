//! Synthetic Codex rollouts (envelope era: session_meta with long instructions, injected
//! context, every message twice as `response_item` and `event_msg`, reasoning, shell calls
//! with large outputs, token counts) and Gemini CLI JSONL sessions (metadata line, the same
//! message id appended several times as thoughts and tool results arrive, `$set` updates,
//! the odd `$rewindTo` and info notice).

use std::path::Path;

use rand::Rng;

use super::claude::{title, Out};
use super::text::{iso, Gen};
use super::Written;

/// One Codex rollout of about `target` bytes. Appends its thread name(s) to `index`.
pub fn codex(g: &mut Gen, file: &Path, index: &mut String, id: &str, cwd: &str, start: i64, target: u64) -> std::io::Result<Written> {
    let mut w = Out::create(file)?;
    let mut line = String::with_capacity(1 << 16);
    let mut ts = start;
    let mut messages = 0u64;
    let mut next = |g: &mut Gen, line: &mut String, ty: &str| {
        ts += g.rng.random_range(300..15_000);
        line.clear();
        line.push_str(&format!("{{\"timestamp\":\"{}\",\"type\":\"{ty}\",\"payload\":", iso(ts)));
        ts
    };
    next(g, &mut line, "session_meta");
    line.push_str(&format!("{{\"id\":\"{id}\",\"timestamp\":\"{}\",\"cwd\":\"{cwd}\",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.63.0\",\"source\":\"cli\",\"model_provider\":\"openai\",\"base_instructions\":{{\"text\":\"", iso(start)));
    let n = g.rng.random_range(8_000..24_000);
    g.output(n, &mut line);
    line.push_str("\"},\"git\":{\"commit_hash\":\"4b0ea68d7af9a6031a7ffda7ad66e0cb83315750\",\"branch\":\"main\",\"repository_url\":\"git@github.com:dev/app.git\"}}}");
    w.emit(&mut line)?;
    for (role, text) in [
        ("developer", "<permissions instructions>Filesystem sandboxing defines which files can be read or written. The sandbox mode is workspace-write.</permissions instructions>".to_string()),
        ("user", format!("# AGENTS.md instructions for {cwd}\\n\\n<INSTRUCTIONS>\\nRun cargo fmt and the tests before you finish. Keep files short.\\n</INSTRUCTIONS>")),
        ("user", format!("<environment_context>\\n  <cwd>{cwd}</cwd>\\n  <approval_policy>on-request</approval_policy>\\n  <shell>bash</shell>\\n</environment_context>")),
    ] {
        next(g, &mut line, "response_item");
        line.push_str(&format!("{{\"type\":\"message\",\"role\":\"{role}\",\"content\":[{{\"type\":\"input_text\",\"text\":\"{text}\"}}]}}}}"));
        w.emit(&mut line)?;
    }
    let mut turn = 0;
    while w.bytes < target {
        turn += 1;
        next(g, &mut line, "turn_context");
        line.push_str(&format!("{{\"cwd\":\"{cwd}\",\"approval_policy\":\"on-request\",\"sandbox_policy\":{{\"type\":\"workspace-write\",\"network_access\":false}},\"model\":\"gpt-5-codex\",\"effort\":\"medium\",\"summary\":\"auto\"}}}}"));
        w.emit(&mut line)?;
        let mut prompt = String::new();
        let n = 6 + (g.rng.random::<f64>().powi(3) * 200.0) as usize;
        g.prose(n, &mut prompt);
        for (ty, body) in [
            ("response_item", format!("{{\"type\":\"message\",\"role\":\"user\",\"content\":[{{\"type\":\"input_text\",\"text\":\"{prompt}\"}}]}}}}")),
            ("event_msg", format!("{{\"type\":\"user_message\",\"message\":\"{prompt}\",\"images\":[]}}}}")),
        ] {
            next(g, &mut line, ty);
            line.push_str(&body);
            w.emit(&mut line)?;
        }
        messages += 1;
        let rounds = (g.normal().abs() * 3.0) as usize;
        for _ in 0..rounds {
            let mut summary = String::new();
            let n = g.rng.random_range(10..60);
            g.prose(n, &mut summary);
            next(g, &mut line, "response_item");
            line.push_str(&format!("{{\"type\":\"reasoning\",\"summary\":[{{\"type\":\"summary_text\",\"text\":\"**Planning** {summary}\"}}],\"content\":null,\"encrypted_content\":\"gAAAAA"));
            let n = g.rng.random_range(800..5000);
            g.blob(n, &mut line);
            line.push_str("\"}}");
            w.emit(&mut line)?;
            next(g, &mut line, "event_msg");
            line.push_str(&format!("{{\"type\":\"agent_reasoning\",\"text\":\"**Planning** {summary}\"}}}}"));
            w.emit(&mut line)?;
            let call = format!("call_{}", g.base62(24));
            next(g, &mut line, "response_item");
            line.push_str(&format!("{{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{{\\\"command\\\":[\\\"bash\\\",\\\"-lc\\\",\\\"rg -n parser src\\\"],\\\"workdir\\\":\\\"{cwd}\\\"}}\",\"call_id\":\"{call}\"}}}}"));
            w.emit(&mut line)?;
            next(g, &mut line, "response_item");
            line.push_str(&format!("{{\"type\":\"function_call_output\",\"call_id\":\"{call}\",\"output\":\"Exit code: 0\\nWall time: 0.4 seconds\\nOutput:\\n"));
            let n = g.out_len(3000.0, 1.3, 400_000);
            g.output(n, &mut line);
            line.push_str("\"}}");
            w.emit(&mut line)?;
            next(g, &mut line, "event_msg");
            line.push_str("{\"type\":\"token_count\",\"info\":{\"total_token_usage\":{\"input_tokens\":81234,\"cached_input_tokens\":70144,\"output_tokens\":2211,\"reasoning_output_tokens\":1408,\"total_tokens\":83445},\"last_token_usage\":{\"input_tokens\":9123,\"cached_input_tokens\":8960,\"output_tokens\":211,\"reasoning_output_tokens\":128,\"total_tokens\":9334},\"model_context_window\":272000},\"rate_limits\":{\"primary\":{\"used_percent\":12.0,\"window_minutes\":300,\"resets_in_seconds\":9120},\"secondary\":{\"used_percent\":31.0,\"window_minutes\":10080,\"resets_in_seconds\":302400}}}}");
            w.emit(&mut line)?;
        }
        let mut answer = String::new();
        let n = 20 + (g.rng.random::<f64>().powi(2) * 400.0) as usize;
        g.prose(n, &mut answer);
        for (ty, body) in [
            ("response_item", format!("{{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{{\"type\":\"output_text\",\"text\":\"{answer}\"}}]}}}}")),
            ("event_msg", format!("{{\"type\":\"agent_message\",\"message\":\"{answer}\"}}}}")),
        ] {
            next(g, &mut line, ty);
            line.push_str(&body);
            w.emit(&mut line)?;
        }
        messages += 1;
        if turn == 1 && g.rng.random_ratio(3, 5) || g.rng.random_ratio(1, 50) {
            index.push_str(&format!("{{\"id\":\"{id}\",\"thread_name\":\"{}\",\"updated_at\":\"{}\"}}\n", title(g), iso(start)));
        }
    }
    use std::io::Write as _;
    w.w.flush()?;
    Ok(Written { bytes: w.bytes, messages })
}

/// One Gemini session of about `target` bytes.
pub fn gemini(g: &mut Gen, file: &Path, id: &str, start: i64, target: u64) -> std::io::Result<Written> {
    let mut w = Out::create(file)?;
    let mut line = String::with_capacity(1 << 16);
    let mut ts = start;
    let mut messages = 0u64;
    line.push_str(&format!("{{\"sessionId\":\"{id}\",\"projectHash\":\"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\",\"startTime\":\"{}\",\"lastUpdated\":\"{}\",\"kind\":\"main\"}}", iso(start), iso(start)));
    w.emit(&mut line)?;
    let rewind = g.rng.random_ratio(1, 50);
    let mut turn = 0;
    let mut last_user = None;
    while w.bytes < target {
        turn += 1;
        ts += g.rng.random_range(5_000..120_000);
        let uid = g.uuid();
        line.clear();
        line.push_str(&format!("{{\"id\":\"{uid}\",\"timestamp\":\"{}\",\"type\":\"user\",\"content\":[{{\"text\":\"", iso(ts)));
        let n = 6 + (g.rng.random::<f64>().powi(3) * 200.0) as usize;
        g.prose(n, &mut line);
        line.push_str("\"}]}");
        w.emit(&mut line)?;
        messages += 1;
        let rounds = (g.normal().abs() * 2.5) as usize;
        for round in 0..=rounds {
            let last = round == rounds;
            let gid = g.uuid();
            ts += g.rng.random_range(500..20_000);
            let mut thoughts = String::new();
            let n = g.rng.random_range(15..120);
            g.prose(n, &mut thoughts);
            let head = format!("{{\"id\":\"{gid}\",\"timestamp\":\"{}\",\"type\":\"gemini\",\"content\":\"", iso(ts));
            let tail = format!("\"thoughts\":[{{\"subject\":\"Planning the change\",\"description\":\"{thoughts}\",\"timestamp\":\"{}\"}}],\"model\":\"gemini-2.5-pro\"", iso(ts));
            // First the thoughts, then the same id again with the tool call or the text.
            line.clear();
            line.push_str(&head);
            line.push_str("\",");
            line.push_str(&tail);
            line.push('}');
            w.emit(&mut line)?;
            line.clear();
            line.push_str(&head);
            if last {
                let n = 20 + (g.rng.random::<f64>().powi(2) * 400.0) as usize;
                g.prose(n, &mut line);
                messages += 1;
            }
            line.push_str("\",");
            line.push_str(&tail);
            line.push_str(",\"tokens\":{\"input\":20311,\"output\":412,\"cached\":18000,\"thoughts\":233,\"tool\":0,\"total\":20956}");
            if !last {
                let call = format!("run_shell_command-{ts}-{}", &gid[..12]);
                line.push_str(&format!(",\"toolCalls\":[{{\"id\":\"{call}\",\"name\":\"run_shell_command\",\"args\":{{\"command\":\"npm test\"}},\"result\":[{{\"functionResponse\":{{\"id\":\"{call}\",\"name\":\"run_shell_command\",\"response\":{{\"output\":\""));
                let at = line.len();
                let n = g.out_len(2500.0, 1.3, 300_000);
                g.output(n, &mut line);
                let body = line[at..].to_string();
                line.push_str(&format!("\"}}}}}}],\"status\":\"success\",\"timestamp\":\"{}\",\"displayName\":\"Shell\",\"resultDisplay\":\"", iso(ts)));
                line.push_str(&body);
                line.push_str("\"}]");
            }
            line.push('}');
            w.emit(&mut line)?;
        }
        if g.rng.random_ratio(1, 30) {
            line.clear();
            line.push_str(&format!("{{\"id\":\"{}\",\"timestamp\":\"{}\",\"type\":\"info\",\"content\":\"Request cancelled.\"}}", g.uuid(), iso(ts)));
            w.emit(&mut line)?;
        }
        line.clear();
        line.push_str(&format!("{{\"$set\":{{\"lastUpdated\":\"{}\"}}}}", iso(ts)));
        w.emit(&mut line)?;
        if turn == 2 {
            line.clear();
            line.push_str(&format!("{{\"$set\":{{\"summary\":\"{}\"}}}}", title(g)));
            w.emit(&mut line)?;
        }
        if rewind && turn == 3 {
            if let Some(uid) = &last_user {
                line.clear();
                line.push_str(&format!("{{\"$rewindTo\":\"{uid}\"}}"));
                w.emit(&mut line)?;
            }
        }
        last_user = Some(uid);
    }
    use std::io::Write as _;
    w.w.flush()?;
    Ok(Written { bytes: w.bytes, messages })
}
