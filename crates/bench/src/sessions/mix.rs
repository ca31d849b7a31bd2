//! The twelve readable sources besides the first four, written into the same home: each
//! with a share of the sessions and of the bytes (`MIX`), its sessions sized log-normally
//! like the others', spread over the same workspaces and months.
//!
//! Where they go (the readers' default folders in a Linux home, plus one folder added as
//! a root, `~/code`, for Aider's histories in projects):
//! Qwen Code `~/.qwen/projects`, Cursor `~/.config/Cursor/User`, Copilot CLI
//! `~/.copilot/session-state`, Amp `~/.local/share/amp/threads`, goose
//! `~/.local/share/goose/sessions/sessions.db`, Crush `~/code/<project>/.crush/crush.db`
//! listed in `~/.local/share/crush/projects.json`, Zed `~/.local/share/zed/threads`,
//! Aider `~/.aider.chat.history.md` and `~/code/<project>/.aider.chat.history.md`, Cline
//! and Roo Code `~/.config/Code/User/globalStorage/<extension>/tasks`, ChatGPT and
//! Claude.ai `~/.local/share/dev.memorybank.app/imports/<source>/`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use memory_bank_sessions::Source;
use rand::Rng;

use super::text::Gen;
use super::{sizes, start_time, Args, Format, History, WORKSPACES};

/// `(source, sessions per 10 000, weight of its bytes)`. A weight is the source's budget
/// in MB at the default `--others-mb` (they add up to 524). Sessions end on a whole turn
/// and the smallest get one turn at least, so each source comes out larger than its
/// budget, by how big its turns are (0–50 %): the weights are set so that Cursor is about
/// 5 % of the history, Cline, Copilot CLI and ChatGPT about 3 %, the others about 2 %.
pub const MIX: [(Source, usize, u64); 12] = [
    (Source::Cursor, 450, 67),
    (Source::Cline, 180, 53),
    (Source::CopilotCli, 250, 48),
    (Source::Chatgpt, 800, 49),
    (Source::RooCode, 120, 33),
    (Source::QwenCode, 150, 38),
    (Source::Amp, 120, 45),
    (Source::Goose, 150, 34),
    (Source::Crush, 120, 31),
    (Source::Zed, 120, 42),
    (Source::Aider, 140, 41),
    (Source::ClaudeAi, 400, 43),
];

/// One session to write.
pub struct Plan {
    pub cwd: String,
    pub start: i64,
    pub target: u64,
}

/// What a generator wrote.
#[derive(Debug, Default, Clone, Copy)]
pub struct Totals {
    /// Sessions the person started (listed).
    pub sessions: u64,
    /// Sub-agent sessions (indexed, hidden).
    pub hidden: u64,
    /// Bytes on disk.
    pub bytes: u64,
    /// Of which in files or rows the reader never reads.
    pub unread: u64,
    /// Messages with text.
    pub messages: u64,
}

impl std::ops::AddAssign for Totals {
    fn add_assign(&mut self, o: Totals) {
        self.sessions += o.sessions;
        self.hidden += o.hidden;
        self.bytes += o.bytes;
        self.unread += o.unread;
        self.messages += o.messages;
    }
}

/// The folder added as an extra root (Aider's histories in projects).
pub fn extra_roots(home: &Path) -> Vec<(Source, PathBuf)> {
    vec![(Source::Aider, home.join("code"))]
}

/// The project folder a workspace's files go to, under `~/code`.
fn project_dir(home: &Path, cwd: &str) -> PathBuf {
    let name: String = cwd.rsplit('/').next().unwrap_or("project").chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    home.join("code").join(name)
}

/// The index of the plan of median size (the session the latency probes change).
fn median(plans: &[Plan]) -> usize {
    let mut order: Vec<usize> = (0..plans.len()).collect();
    order.sort_by_key(|&i| plans[i].target);
    order[order.len() / 2]
}

/// Writes every source of [`MIX`] into `home`, recording each in `h`.
pub fn generate(g: &mut Gen, args: &Args, home: &Path, h: &mut History) -> anyhow::Result<()> {
    let weights: u64 = MIX.iter().map(|m| m.2).sum();
    for (source, per_10k, weight) in MIX {
        let t0 = Instant::now();
        let n = (args.sessions * per_10k / 10_000).max(1);
        let budget = args.others_mb * 1_000_000 * weight / weights;
        let mut plans: Vec<Plan> = sizes(g, n, budget)
            .into_iter()
            .map(|target| Plan { cwd: WORKSPACES[g.rng.random_range(0..WORKSPACES.len())].to_string(), start: start_time(g), target })
            .collect();
        plans.sort_by_key(|p| p.start);
        let probe = median(&plans);
        let mut total = Totals::default();
        let mut probe_of = |id: &str, path: PathBuf, i: usize| {
            if i == probe {
                h.probes.push((source.as_str().to_string(), id.to_string(), path));
            }
        };
        match source {
            Source::QwenCode => {
                for (i, p) in plans.iter().enumerate() {
                    let id = g.uuid();
                    let project = home.join(".qwen/projects").join(super::jsonl_more::qwen_project(&p.cwd));
                    total += super::jsonl_more::qwen(g, &project, &id, &p.cwd, p.start, p.target)?;
                    probe_of(&id, project.join("chats").join(format!("{id}.jsonl")), i);
                }
            }
            Source::CopilotCli => {
                for (i, p) in plans.iter().enumerate() {
                    let id = g.uuid();
                    let dir = home.join(".copilot/session-state").join(&id);
                    total += super::jsonl_more::copilot(g, &dir, &id, &p.cwd, p.start, p.target)?;
                    probe_of(&id, dir.join("events.jsonl"), i);
                }
            }
            Source::Amp => {
                let dir = home.join(".local/share/amp/threads");
                std::fs::create_dir_all(&dir)?;
                for (i, p) in plans.iter().enumerate() {
                    let id = format!("T-{}", g.uuid());
                    let file = dir.join(format!("{id}.json"));
                    // Amp refuses thread files over 50 MB.
                    total += super::documents::amp(g, &file, &id, &p.cwd, p.start, p.target.min(45_000_000))?;
                    probe_of(&id, file, i);
                }
            }
            Source::Chatgpt | Source::ClaudeAi => {
                let dir = home.join(".local/share/dev.memorybank.app/imports").join(source.as_str());
                std::fs::create_dir_all(&dir)?;
                for (i, p) in plans.iter().enumerate() {
                    let id = g.uuid();
                    let file = dir.join(format!("{id}.json"));
                    total += if source == Source::Chatgpt {
                        super::documents::chatgpt(g, &file, &id, p.start, p.target)?
                    } else {
                        super::documents::claude_ai(g, &file, &id, p.start, p.target)?
                    };
                    probe_of(&id, file, i);
                }
            }
            Source::Cline | Source::RooCode => {
                use super::cline::{history, task, Ext};
                let (ext, extension) = if source == Source::Cline { (Ext::Cline, "saoudrizwan.claude-dev") } else { (Ext::Roo, "rooveterinaryinc.roo-cline") };
                let storage = home.join(".config/Code/User/globalStorage").join(extension);
                let tasks_dir = storage.join("tasks");
                let mut tasks = Vec::new();
                for (i, p) in plans.iter().enumerate() {
                    let id = if ext == Ext::Cline { (p.start + i as i64).to_string() } else { g.uuid() };
                    let (t, written) = task(g, ext, &tasks_dir, &id, &p.cwd, p.start, p.target, None)?;
                    total += t;
                    probe_of(&id, tasks_dir.join(&id), i);
                    for _ in 0..written.subtasks {
                        let child = g.uuid();
                        let (t, sub) = task(g, ext, &tasks_dir, &child, &p.cwd, p.start + 60_000, 20_000, Some(&id))?;
                        total += t;
                        tasks.push(sub);
                    }
                    tasks.push(written);
                }
                let bytes = history(ext, &storage, &tasks)?;
                total.bytes += bytes;
                total.unread += if ext == Ext::Roo { bytes } else { 0 };
            }
            Source::Cursor => {
                total = super::cursor::write(g, &home.join(".config/Cursor/User"), &plans)?;
                h.probes.push((source.as_str().to_string(), String::new(), home.join(".config/Cursor/User/globalStorage/state.vscdb")));
            }
            Source::Goose => {
                let db = home.join(".local/share/goose/sessions/sessions.db");
                total = super::sqlite_more::goose(g, &db, &plans)?;
                h.probes.push((source.as_str().to_string(), String::new(), db));
            }
            Source::Zed => {
                let db = home.join(".local/share/zed/threads/threads.db");
                total = super::zed::write(g, &db, &plans)?;
                h.probes.push((source.as_str().to_string(), String::new(), db));
            }
            Source::Crush => {
                let mut projects = Vec::new();
                for ws in WORKSPACES {
                    let mine: Vec<Plan> = plans.iter().filter(|p| p.cwd == *ws).map(|p| Plan { cwd: p.cwd.clone(), start: p.start, target: p.target }).collect();
                    if mine.is_empty() {
                        continue;
                    }
                    let data = project_dir(home, ws).join(".crush");
                    total += super::sqlite_more::crush(g, &data.join("crush.db"), &mine)?;
                    projects.push(serde_json::json!({"path": ws, "data_dir": data, "last_accessed": super::text::iso(mine[mine.len() - 1].start)}));
                }
                let global = home.join(".local/share/crush");
                std::fs::create_dir_all(&global)?;
                let list = serde_json::to_string_pretty(&serde_json::json!({"projects": projects}))?;
                std::fs::write(global.join("projects.json"), &list)?;
                total.bytes += list.len() as u64;
            }
            Source::Aider => {
                // A fifth in the home folder's history, the rest in their projects'.
                let (home_plans, project_plans): (Vec<&Plan>, Vec<&Plan>) = plans.iter().partition(|_| g.rng.random_ratio(1, 5));
                total += super::aider::write(g, home, &home_plans)?;
                for ws in WORKSPACES {
                    let mine: Vec<&Plan> = project_plans.iter().copied().filter(|p| p.cwd == *ws).collect();
                    if !mine.is_empty() {
                        total += super::aider::write(g, &project_dir(home, ws), &mine)?;
                    }
                }
            }
            _ => unreachable!("not in the mix"),
        }
        eprintln!("{}: {} MB in {} sessions (+{} sub-agents) in {:.1} s", source.as_str(), total.bytes / 1_000_000, total.sessions, total.hidden, t0.elapsed().as_secs_f64());
        h.formats.push(Format { name: source.as_str().to_string(), ..Format::from(total) });
    }
    Ok(())
}
