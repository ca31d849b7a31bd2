//! Settings → Agents through the desktop core, on config files in a temporary home: the
//! statuses, the diff shown before a change, applying exactly that diff (and refusing a
//! stale one), removing back to the original bytes, a malformed file left untouched, and
//! a missing `memory-bank` binary.

use std::path::{Path, PathBuf};
use std::time::Duration;

use memory_bank_contract::ErrorCode;
use memory_bank_agent_install::{Agent, AgentEnv, Change};
use memory_bank_desktop::agents::AgentAction;
use memory_bank_desktop::prefs::MemoryPrefs;
use memory_bank_desktop::deletes::DeleteTiming;
use memory_bank_desktop::{Core, CoreConfig};

#[path = "support/mod.rs"]
mod support;
use support::NoKeyring;


/// A core whose agents live in `home`, registering `cli` (`None`: look it up as the app
/// does, which finds nothing here). The account is a server that does not exist: agent
/// settings need no account.
async fn core(home: &Path, cli: Option<PathBuf>) -> Core {
    let config = CoreConfig {
        data_dir: home.join("app-data"),
        env_server: Some(("http://127.0.0.1:9".into(), "mbk_unused".into())),
        env_org: None,
        delete_timing: DeleteTiming { delay: Duration::from_secs(3600), ..Default::default() },
        agent_env: Some(AgentEnv::new(home)),
        cli_binary: cli,
        db_key: memory_bank_db_key::KeySource::None,
    };
    Core::start(config, Box::new(MemoryPrefs::default()), Box::new(NoKeyring), |_| {}).await
}

const CODEX: &str = "# my settings\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"other\"\n";

#[tokio::test(flavor = "multi_thread")]
async fn install_shows_the_diff_applies_exactly_it_and_remove_restores_the_file() {
    let home = tempfile::tempdir().unwrap();
    let cli = home.path().join("bin/memory-bank");
    let core = core(home.path(), Some(cli.clone())).await;

    let overview = core.agent_statuses().await.unwrap();
    assert_eq!(overview.cli.path.as_deref(), Some(cli.as_path()));
    assert_eq!(overview.cli.problem, None);
    let names: Vec<Agent> = overview.agents.iter().map(|a| a.agent).collect();
    assert_eq!(names, Agent::ALL);
    assert!(overview.agents.iter().all(|a| !a.detected && !a.installed), "{overview:?}");
    assert_eq!(overview.agents[1].config_path, home.path().join(".codex/config.toml"));

    let config = home.path().join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, CODEX).unwrap();
    let codex = &core.agent_statuses().await.unwrap().agents[1];
    assert!(codex.detected && !codex.installed, "{codex:?}");

    let plan = core.plan_agent_change(Agent::Codex, AgentAction::Install).await.unwrap();
    assert_eq!((plan.change, plan.changed), (Change::Add, true));
    assert_eq!(plan.config_path, config);
    assert!(plan.diff.contains("+[mcp_servers.memory-bank]"), "{}", plan.diff);
    assert!(plan.diff.contains(&format!("+command = \"{}\"", cli.display())), "{}", plan.diff);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), CODEX, "planning writes nothing");

    let stale = core.apply_agent_change(Agent::Codex, AgentAction::Install, "a diff nobody saw").await.unwrap_err();
    assert_eq!(stale.code, ErrorCode::AgentConfigChanged);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), CODEX, "only the reviewed change is written");

    let applied = core.apply_agent_change(Agent::Codex, AgentAction::Install, &plan.diff).await.unwrap();
    assert!(applied.written);
    assert_eq!(std::fs::read_to_string(applied.backup.unwrap()).unwrap(), CODEX);
    let codex = &applied.overview.agents[1];
    assert!(codex.installed && codex.entry_matches, "{codex:?}");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.starts_with("# my settings\n") && text.contains("[mcp_servers.other]"), "{text}");

    let again = core.plan_agent_change(Agent::Codex, AgentAction::Install).await.unwrap();
    assert_eq!((again.change, again.changed, again.diff.as_str()), (Change::AlreadyInstalled, false, ""));

    let remove = core.plan_agent_change(Agent::Codex, AgentAction::Remove).await.unwrap();
    assert_eq!(remove.change, Change::Remove);
    assert!(remove.diff.contains("-[mcp_servers.memory-bank]"), "{}", remove.diff);
    let removed = core.apply_agent_change(Agent::Codex, AgentAction::Remove, &remove.diff).await.unwrap();
    assert!(removed.written && !removed.overview.agents[1].installed);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), CODEX, "the original bytes");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_absent_file_is_created_and_a_malformed_one_is_reported_and_left_alone() {
    let home = tempfile::tempdir().unwrap();
    let core = core(home.path(), Some(home.path().join("bin/memory-bank"))).await;

    let gemini = core.plan_agent_change(Agent::Gemini, AgentAction::Install).await.unwrap();
    assert_eq!(gemini.change, Change::Create);
    assert!(gemini.diff.contains("--- /dev/null"), "{}", gemini.diff);
    core.apply_agent_change(Agent::Gemini, AgentAction::Install, &gemini.diff).await.unwrap();
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.path().join(".gemini/settings.json")).unwrap()).unwrap();
    assert_eq!(written["mcpServers"]["memory-bank"]["args"], serde_json::json!(["mcp"]));
    assert!(!written.to_string().contains("mbk_"), "no token is ever written");

    let claude = home.path().join(".claude.json");
    std::fs::write(&claude, "{\"mcpServers\": {,}").unwrap();
    let status = &core.agent_statuses().await.unwrap().agents[0];
    assert!(status.detected && !status.installed);
    assert!(status.problem.as_deref().unwrap().contains(".claude.json"), "{status:?}");
    let refused = core.plan_agent_change(Agent::ClaudeCode, AgentAction::Install).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::AgentConfig);
    assert!(refused.message.contains("was not changed"), "{}", refused.message);
    assert_eq!(std::fs::read_to_string(&claude).unwrap(), "{\"mcpServers\": {,}");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_the_memory_bank_binary_agents_are_listed_install_explains_and_remove_works() {
    let home = tempfile::tempdir().unwrap();
    let core = core(home.path(), None).await;
    let overview = core.agent_statuses().await.unwrap();
    assert_eq!(overview.cli.path, None);
    assert!(overview.cli.problem.as_deref().unwrap().contains("not found"), "{:?}", overview.cli);
    assert_eq!(overview.agents.len(), Agent::ALL.len());
    let missing = core.plan_agent_change(Agent::Opencode, AgentAction::Install).await.unwrap_err();
    assert_eq!(missing.code, ErrorCode::CliNotFound);
    let remove = core.plan_agent_change(Agent::Opencode, AgentAction::Remove).await.unwrap();
    assert_eq!((remove.change, remove.changed), (Change::NotInstalled, false));
}

#[tokio::test(flavor = "multi_thread")]
async fn recall_on_shows_every_installed_agents_change_applies_exactly_them_and_off_takes_them_out() {
    use memory_bank_desktop::agents::ReviewedDiff;
    use memory_bank_agent_install::Part;
    let home = tempfile::tempdir().unwrap();
    let cli = home.path().join("bin/memory-bank");
    let core = core(home.path(), Some(cli.clone())).await;
    assert!(!core.agent_statuses().await.unwrap().recall, "off by default");

    // Nothing installed: turning it on changes no file and keeps the setting.
    let none = core.plan_recall_change(true).await.unwrap();
    assert!(none.agents.is_empty());
    let applied = core.apply_recall_change(true, Vec::new()).await.unwrap();
    assert!(!applied.written && applied.overview.recall);
    // Installs from now on carry recall: Claude Code gets the server with --recall and the hook.
    let claude = core.plan_agent_change(Agent::ClaudeCode, AgentAction::Install).await.unwrap();
    assert_eq!(claude.parts.iter().map(|p| p.part).collect::<Vec<_>>(), [Part::Server, Part::RecallHook]);
    assert!(claude.diff.contains("\"--recall\"") && claude.diff.contains("recall --agent claude-code"), "{}", claude.diff);
    core.apply_agent_change(Agent::ClaudeCode, AgentAction::Install, &claude.diff).await.unwrap();
    let settings = home.path().join(".claude/settings.json");
    assert!(std::fs::read_to_string(&settings).unwrap().contains("recall --agent claude-code"));
    // Opencode has no hook: its server entry alone.
    let opencode = core.plan_agent_change(Agent::Opencode, AgentAction::Install).await.unwrap();
    assert_eq!(opencode.parts.len(), 1);
    core.apply_agent_change(Agent::Opencode, AgentAction::Install, &opencode.diff).await.unwrap();
    let overview = core.agent_statuses().await.unwrap();
    assert!(overview.agents.iter().filter(|a| a.installed).all(|a| a.up_to_date && a.recall), "{overview:?}");

    // Off: both installed agents change; the person sees both diffs first.
    let off = core.plan_recall_change(false).await.unwrap();
    let agents: Vec<Agent> = off.agents.iter().map(|a| a.agent).collect();
    assert_eq!(agents, [Agent::ClaudeCode, Agent::Opencode]);
    assert!(off.agents[0].diff.contains("\"--recall\""), "{}", off.agents[0].diff);
    assert!(off.agents[0].diff.contains("-            \"command\": \""), "the hook goes: {}", off.agents[0].diff);
    assert!(settings.exists(), "planning writes nothing");
    // A diff nobody saw is refused, and the setting stays.
    let refused = core
        .apply_recall_change(false, vec![ReviewedDiff { agent: Agent::ClaudeCode, diff: "stale".into() }])
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::AgentConfigChanged);
    assert!(core.agent_statuses().await.unwrap().recall);
    let reviewed = off.agents.iter().map(|a| ReviewedDiff { agent: a.agent, diff: a.diff.clone() }).collect();
    let applied = core.apply_recall_change(false, reviewed).await.unwrap();
    assert!(applied.written && !applied.overview.recall);
    assert!(!settings.exists(), "the hook file install created is gone again");
    let installed: Vec<_> = applied.overview.agents.iter().filter(|a| a.installed).collect();
    assert_eq!(installed.len(), 2);
    assert!(installed.iter().all(|a| a.up_to_date && !a.recall), "{installed:?}");
}
