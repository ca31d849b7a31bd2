//! Synthetic Aider chat histories: `.aider.chat.history.md`, one Markdown file per folder
//! Aider ran in, every run appended as a session (`# aider chat started at <local time>`,
//! Aider's start-up output as `> …  ` lines, prompts as `#### …  ` lines, `/add`
//! commands, replies in Markdown with code fences, SEARCH/REPLACE edit blocks and at times
//! a `<thinking-content-…>` block, token reports, `Applied edit` and `Commit` lines), with
//! the input history `.aider.input.history` beside it (`# <local time>` / `+<line>`).

use std::io::Write as _;
use std::path::Path;

use chrono::{Local, TimeZone};
use rand::Rng;

use super::mix::{Plan, Totals};
use super::text::Gen;

fn local(ms: i64, format: &str) -> String {
    Local.timestamp_millis_opt(ms).single().map(|t| t.format(format).to_string()).unwrap_or_default()
}

/// Appends one session per plan (in start order) to the history in `dir`; returns what
/// was written (the input history counted as unread: only its times are looked up).
pub fn write(g: &mut Gen, dir: &Path, plans: &[&Plan]) -> std::io::Result<Totals> {
    std::fs::create_dir_all(dir)?;
    let mut md = String::new();
    let mut inputs = String::new();
    let mut t = Totals::default();
    for plan in plans {
        let mut ts = plan.start;
        md.push_str(&format!("\n# aider chat started at {}\n\n", local(ts, "%Y-%m-%d %H:%M:%S")));
        md.push_str("> /home/dev/.local/bin/aider --model sonnet  \n> Aider v0.86.2  \n> Main model: anthropic/claude-sonnet-4-20250514 with diff edit format, infinite output  \n");
        md.push_str(&format!("> Weak model: anthropic/claude-3-5-haiku-20241022  \n> Git repo: .git with {} files  \n> Repo-map: using 4096 tokens, auto refresh  \n", g.rng.random_range(20..900)));
        let start = md.len();
        let typed = |ts: i64, text: &str, inputs: &mut String| {
            inputs.push_str(&format!("\n# {}\n", local(ts, "%Y-%m-%d %H:%M:%S%.6f")));
            for line in text.lines() {
                inputs.push('+');
                inputs.push_str(line);
                inputs.push('\n');
            }
        };
        while ((md.len() - start) as u64) < plan.target {
            ts += g.rng.random_range(5_000..120_000);
            let file = format!("src/{}.py", ["cli", "parser", "models", "views", "utils"][g.rng.random_range(0..5)]);
            if g.rng.random_ratio(1, 4) {
                let add = format!("/add {file}");
                md.push_str(&format!("\n#### {add}  \n> Added {file} to the chat  \n"));
                typed(ts, &add, &mut inputs);
                ts += 2_000;
            }
            let words = g.prompt_words();
            let prompt = g.text(words);
            md.push('\n');
            for line in prompt.lines().filter(|l| !l.trim().is_empty()) {
                md.push_str(&format!("#### {}  \n", line.trim_end()));
            }
            typed(ts, &prompt, &mut inputs);
            t.messages += 1;
            // The reply, once complete.
            md.push('\n');
            if g.rng.random_ratio(1, 5) {
                let tag = format!("thinking-content-{}", g.base62(32).to_lowercase());
                let words = g.rng.random_range(30..300);
                md.push_str(&format!("<{tag}>\n\n{}\n\n</{tag}>\n\n", g.text(words)));
            }
            let words = g.answer_words();
            md.push_str(g.text(words).trim());
            md.push_str("\n\n");
            let edit = g.rng.random_ratio(1, 2);
            if edit {
                let len = g.out_len(800.0, 1.0, 20_000);
                let (old, new) = (g.code(len), g.code(len));
                md.push_str(&format!("{file}\n```python\n<<<<<<< SEARCH\n{}\n=======\n{}\n>>>>>>> REPLACE\n```\n\n", old.trim_end(), new.trim_end()));
            } else if g.rng.random_ratio(1, 2) {
                let len = g.out_len(1500.0, 1.2, 40_000);
                md.push_str(&format!("```\n{}\n```\n\n", g.code(len).trim_end()));
            }
            t.messages += 1;
            md.push_str(&format!("> Tokens: {}k sent, {} received. Cost: $0.0{} message, $0.{} session.  \n", g.rng.random_range(2..40), g.rng.random_range(40..2000), g.rng.random_range(1..9), g.rng.random_range(1..99)));
            if edit {
                md.push_str(&format!("> Applied edit to {file}  \n> Commit {} feat: {}  \n", g.base62(7).to_lowercase(), super::claude::title(g)));
            }
        }
        t.sessions += 1;
    }
    let history = dir.join(".aider.chat.history.md");
    std::fs::OpenOptions::new().create(true).append(true).open(&history)?.write_all(md.as_bytes())?;
    std::fs::OpenOptions::new().create(true).append(true).open(dir.join(".aider.input.history"))?.write_all(inputs.as_bytes())?;
    t.bytes = (md.len() + inputs.len()) as u64;
    t.unread = inputs.len() as u64;
    Ok(t)
}
