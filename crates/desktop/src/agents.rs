//! Settings → Agents: register (or remove) the `memory-bank mcp` stdio server in Claude
//! Code, Codex CLI, opencode and Gemini CLI, through the same code as
//! `memory-bank mcp install` (`memory-bank-agent-install`).
//!
//! The person always sees the exact change first: [`Core::plan_agent_change`] returns the
//! diff, and [`Core::apply_agent_change`] plans again and writes only if the new plan is
//! still that diff (an agent may rewrite its file in between: Claude Code does while it
//! runs), so nothing is written that was not shown.

use std::path::{Path, PathBuf};

use memory_bank_contract::ErrorCode;
use memory_bank_agent_install::{self as install, Plan, ServerSpec};
pub use memory_bank_agent_install::{Agent, AgentEnv, AgentStatus, Change, Part};
use serde::{Deserialize, Serialize};

use crate::{Core, DesktopError};

/// The CLI binary's file name on this platform.
const CLI_NAME: &str = "memory-bank";

/// Install or remove.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum AgentAction {
    /// Register the `memory-bank` server.
    Install,
    /// Remove our entry (nothing else).
    Remove,
}

/// Where the `memory-bank` binary is, as the agents will run it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CliBinary {
    /// Its absolute path; `None` when it cannot be found.
    pub path: Option<PathBuf>,
    /// Why it cannot be found, worded for the person.
    pub problem: Option<String>,
}

/// The agents and the binary they would run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AgentsOverview {
    /// The `memory-bank` binary registered on Install.
    pub cli: CliBinary,
    /// "Let agents look up relevant memories by themselves": what Install registers.
    pub recall: bool,
    /// Every agent, in [`Agent::ALL`] order, against what Install would register now.
    pub agents: Vec<AgentStatus>,
}

/// One file a planned change writes, and what it does there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PlannedPart {
    /// The server entry or the recall hook.
    pub part: Part,
    /// The file.
    pub config_path: PathBuf,
    /// What changes there.
    pub change: Change,
}

/// A planned change, as the person reviews it. The file's other contents are not sent
/// to the UI, only the diff (which has a few lines of context around our entry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AgentPlan {
    /// The agent.
    pub agent: Agent,
    /// Install or remove.
    pub action: AgentAction,
    /// The config file that would be written.
    pub config_path: PathBuf,
    /// What the change does to the server entry (`create`, `add`, `update`, `remove`,
    /// `already-installed`, `not-installed`).
    pub change: Change,
    /// Every part that changes (the server entry, the recall hook), in the order written.
    pub parts: Vec<PlannedPart>,
    /// Whether anything would be written.
    pub changed: bool,
    /// The unified diff of every file written, one after the other (empty when nothing changes).
    pub diff: String,
}

/// What turning recall on or off would change: every agent our server is installed in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RecallPlan {
    /// On or off.
    pub on: bool,
    /// One reviewed change per installed agent (those with nothing to change included).
    pub agents: Vec<AgentPlan>,
}

/// An agent and the diff the person reviewed for it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ReviewedDiff {
    /// The agent.
    pub agent: Agent,
    /// The diff shown for it.
    pub diff: String,
}

/// What an applied change did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AgentApplied {
    /// Whether the file was written.
    pub written: bool,
    /// The copy of the previous file, when there was one (the first file written).
    pub backup: Option<PathBuf>,
    /// The agents as they are now.
    pub overview: AgentsOverview,
}

/// Finds the `memory-bank` CLI binary that agents should run (`<binary> mcp`): never the
/// app's own executable, which has no `mcp` command.
///
/// Looked for, in order:
/// 1. next to the app's own executable: bundles install both binaries in one folder, and
///    in development `target/debug/memory-bank-app` sits beside `target/debug/memory-bank`;
/// 2. in each absolute folder of `PATH` (as found in `env`), e.g. after `cargo install`.
///
/// Only files are accepted (executable ones on Unix). An error says what to do.
pub fn find_cli_binary(app_exe: Option<&Path>, env: &AgentEnv) -> Result<PathBuf, String> {
    let file_name = format!("{CLI_NAME}{}", std::env::consts::EXE_SUFFIX);
    let beside = app_exe.and_then(Path::parent).map(|dir| dir.join(&file_name));
    let on_path = env.var("PATH").map(|p| std::env::split_paths(p).collect::<Vec<_>>()).unwrap_or_default();
    let candidates = beside.into_iter().chain(on_path.into_iter().filter(|d| d.is_absolute()).map(|d| d.join(&file_name)));
    for candidate in candidates {
        if is_executable(&candidate) {
            return Ok(candidate);
        }
    }
    let folder = app_exe.and_then(Path::parent).map(|d| d.display().to_string()).unwrap_or_else(|| "the app's folder".into());
    Err(format!(
        "The memory-bank command-line program was not found next to Memory Bank ({folder}) or on your PATH. \
         Install it (for example `cargo install --path crates/cli`, or your package's memory-bank binary) and reopen this page."
    ))
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else { return false };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// The environment and binary of one look, resolved in the calling thread.
struct Setup {
    env: AgentEnv,
    cli: Result<PathBuf, String>,
    /// Whether Install registers recall (the person's setting).
    recall: bool,
}

impl Setup {
    fn spec(&self) -> Result<ServerSpec, DesktopError> {
        let path = self.cli.as_ref().map_err(|problem| DesktopError::new(ErrorCode::CliNotFound, problem.clone()))?;
        ServerSpec::new(path).map(|spec| spec.with_recall(self.recall)).map_err(agent_error)
    }

    fn overview(&self) -> AgentsOverview {
        let real = self.spec().ok();
        // Without the binary the agents are still listed, against a placeholder spec that
        // no entry is taken to match.
        let spec = real.clone().or_else(|| ServerSpec::new(std::env::temp_dir().join(CLI_NAME)).ok().map(|s| s.with_recall(self.recall)));
        let agents = match &spec {
            Some(spec) => Agent::ALL
                .into_iter()
                .map(|agent| {
                    let mut status = install::status(agent, &self.env, spec);
                    status.entry_matches &= real.is_some();
                    status.up_to_date &= real.is_some();
                    status
                })
                .collect(),
            None => Vec::new(),
        };
        let cli = match &self.cli {
            Ok(path) => CliBinary { path: Some(path.clone()), problem: None },
            Err(problem) => CliBinary { path: None, problem: Some(problem.clone()) },
        };
        AgentsOverview { cli, recall: self.recall, agents }
    }

    /// Every change of `action` on `agent`, in the order to apply them.
    fn plan(&self, agent: Agent, action: AgentAction) -> Result<Vec<Plan>, DesktopError> {
        match action {
            AgentAction::Install => install::plan_install_all(agent, &self.env, &self.spec()?),
            AgentAction::Remove => install::plan_remove_all(agent, &self.env),
        }
        .map_err(agent_error)
    }

    /// Plans `action` again and applies it, if it is still exactly the reviewed diff:
    /// whether anything was written, and the first backup kept.
    fn apply_reviewed(&self, agent: Agent, action: AgentAction, reviewed_diff: &str) -> Result<(bool, Option<PathBuf>), DesktopError> {
        let plans = self.plan(agent, action)?;
        let review = reviewed(&plans, action)?;
        if review.diff != reviewed_diff {
            return Err(DesktopError::new(
                ErrorCode::AgentConfigChanged,
                format!(
                    "{} changed since you reviewed the change (is {} running and rewriting it?). Review the new change and confirm again.",
                    review.config_path.display(),
                    agent.display_name()
                ),
            ));
        }
        let mut written = false;
        let mut backup = None;
        for plan in &plans {
            let applied = install::apply(plan).map_err(agent_error)?;
            written |= applied.written;
            backup = backup.or(applied.backup);
        }
        tracing::info!(agent = agent.name(), ?action, written, "agent config changed");
        Ok((written, backup))
    }
}

fn agent_error(err: install::Error) -> DesktopError {
    let code = match &err {
        install::Error::ChangedSincePlan { .. } => ErrorCode::AgentConfigChanged,
        install::Error::UnknownAgent(_) => ErrorCode::InvalidRequest,
        _ => ErrorCode::AgentConfig,
    };
    DesktopError::new(code, err.to_string())
}

/// The plans of one agent as the person reviews them: one diff after the other.
fn reviewed(plans: &[Plan], action: AgentAction) -> Result<AgentPlan, DesktopError> {
    let server = plans
        .iter()
        .find(|p| p.part == Part::Server)
        .ok_or_else(|| DesktopError::new(ErrorCode::Internal, "the plan has no server entry"))?;
    Ok(AgentPlan {
        agent: server.agent,
        action,
        config_path: server.path.clone(),
        change: server.change,
        parts: plans.iter().map(|p| PlannedPart { part: p.part, config_path: p.path.clone(), change: p.change }).collect(),
        changed: plans.iter().any(|p| p.changed),
        diff: plans.iter().map(|p| p.diff.as_str()).collect(),
    })
}

impl Core {
    fn agent_setup(&self) -> Result<Setup, DesktopError> {
        let config = self.config();
        let env = match &config.agent_env {
            Some(env) => env.clone(),
            None => AgentEnv::from_process().map_err(agent_error)?,
        };
        let cli = match &config.cli_binary {
            Some(path) => Ok(path.clone()),
            None => find_cli_binary(std::env::current_exe().ok().as_deref(), &env),
        };
        Ok(Setup { env, cli, recall: self.prefs().agent_recall })
    }

    /// The agents on this machine (detected, installed, config file, problems) and
    /// the `memory-bank` binary Install would register.
    pub async fn agent_statuses(&self) -> Result<AgentsOverview, DesktopError> {
        let setup = self.agent_setup()?;
        blocking(move || Ok(setup.overview())).await
    }

    /// The exact change Install or Remove would make to `agent`'s config file; nothing
    /// is written.
    pub async fn plan_agent_change(&self, agent: Agent, action: AgentAction) -> Result<AgentPlan, DesktopError> {
        let setup = self.agent_setup()?;
        blocking(move || reviewed(&setup.plan(agent, action)?, action)).await
    }

    /// Plans the change again and writes it, but only if it is still exactly
    /// `reviewed_diff`, the diff the person confirmed (else `agent_config_changed`, and
    /// the UI shows the new diff). The file is replaced atomically, with a backup.
    pub async fn apply_agent_change(
        &self,
        agent: Agent,
        action: AgentAction,
        reviewed_diff: &str,
    ) -> Result<AgentApplied, DesktopError> {
        let setup = self.agent_setup()?;
        let reviewed_diff = reviewed_diff.to_owned();
        blocking(move || {
            let (written, backup) = setup.apply_reviewed(agent, action, &reviewed_diff)?;
            Ok(AgentApplied { written, backup, overview: setup.overview() })
        })
        .await
    }

    /// What turning "Let agents look up relevant memories by themselves" on or off would
    /// change in every agent our server is installed in; nothing is written.
    pub async fn plan_recall_change(&self, on: bool) -> Result<RecallPlan, DesktopError> {
        let mut setup = self.agent_setup()?;
        setup.recall = on;
        blocking(move || {
            let mut agents = Vec::new();
            for status in setup.overview().agents.into_iter().filter(|s| s.installed) {
                agents.push(reviewed(&setup.plan(status.agent, AgentAction::Install)?, AgentAction::Install)?);
            }
            Ok(RecallPlan { on, agents })
        })
        .await
    }

    /// Turns recall on or off: writes each installed agent's change, but only if it is
    /// still the diff the person reviewed (else `agent_config_changed`, and nothing of
    /// that agent is written), then keeps the setting for later installs. Agents whose
    /// change went through keep it even when a later one is refused.
    pub async fn apply_recall_change(&self, on: bool, reviewed: Vec<ReviewedDiff>) -> Result<AgentApplied, DesktopError> {
        let mut setup = self.agent_setup()?;
        setup.recall = on;
        let outcome = blocking(move || {
            let planned: Vec<Agent> = setup.overview().agents.into_iter().filter(|s| s.installed).map(|s| s.agent).collect();
            let mut written = false;
            for agent in planned {
                let diff = reviewed.iter().find(|r| r.agent == agent).map(|r| r.diff.as_str()).ok_or_else(|| {
                    DesktopError::new(
                        ErrorCode::AgentConfigChanged,
                        format!("{} was installed since you reviewed the change. Review it again.", agent.display_name()),
                    )
                })?;
                written |= setup.apply_reviewed(agent, AgentAction::Install, diff)?.0;
            }
            Ok((written, setup))
        })
        .await?;
        let (written, mut setup) = outcome;
        self.update_prefs(|p| p.agent_recall = on);
        setup.recall = on;
        Ok(AgentApplied { written, backup: None, overview: setup.overview() })
    }
}

async fn blocking<T: Send + 'static>(work: impl FnOnce() -> Result<T, DesktopError> + Send + 'static) -> Result<T, DesktopError> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(DesktopError::new(ErrorCode::Internal, format!("the agent settings task failed: {e}"))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binary_is_found_beside_the_app_first_then_on_path() {
        let dir = tempfile::tempdir().unwrap();
        let app_dir = dir.path().join("app");
        let bin_dir = dir.path().join("bin");
        std::fs::create_dir_all(&app_dir).unwrap();
        std::fs::create_dir_all(&bin_dir).unwrap();
        let app = app_dir.join("memory-bank-app");
        let env = AgentEnv::new(dir.path()).with_var("PATH", format!("relative:{}", bin_dir.display()));
        let missing = find_cli_binary(Some(&app), &env).unwrap_err();
        assert!(missing.contains("not found"), "{missing}");
        let on_path = write_exe(&bin_dir.join(format!("memory-bank{}", std::env::consts::EXE_SUFFIX)));
        assert_eq!(find_cli_binary(Some(&app), &env).unwrap(), on_path);
        let beside = write_exe(&app_dir.join(format!("memory-bank{}", std::env::consts::EXE_SUFFIX)));
        assert_eq!(find_cli_binary(Some(&app), &env).unwrap(), beside);
    }

    fn write_exe(path: &Path) -> PathBuf {
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        path.to_path_buf()
    }
}
