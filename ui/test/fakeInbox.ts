// The Inbox and Settings → Agents half of the fake backend. Like Rust: proposals are
// listed newest first, accept merges the person's edits and refuses what looks secret
// (`looks_like_secret`), a decided proposal answers `proposal_not_pending`, and every
// change emits `inbox-changed`. Agents: plan returns a diff, apply writes only when it is
// handed the diff the current plan would make (else `agent_config_changed`).
import { emit } from "@tauri-apps/api/event";
import type {
  Agent,
  AgentAction,
  AgentPlan,
  AgentsOverview,
  AgentStatus,
  IpcError,
  Memory,
  Proposal,
  ProposalEdits,
  ProposalListResponse,
  RecallPlan,
  ReviewedDiff,
} from "../src/ipc";
import { findSecrets } from "../src/sessions/secrets";

export function proposal(n: number, extra: Partial<Proposal> = {}): Proposal {
  // Newest first: proposal 1 is the newest.
  const created = new Date(Date.UTC(2026, 0, 2) - n * 60_000).toISOString();
  return {
    id: `prop_${String(n).padStart(4, "0")}`,
    action: "save",
    status: "pending",
    content: `Proposal number ${n}`,
    tags: null,
    contexts: [],
    memoryId: null,
    proposedBy: "claude-code",
    orgId: "org_a",
    scope: "user",
    createdAt: created,
    expiresAt: new Date(Date.parse(created) + 7 * 86_400_000).toISOString(),
    decidedAt: null,
    similar: [],
    ...extra,
  };
}

const NAMES: Record<Agent, string> = {
  "claude-code": "Claude Code",
  codex: "Codex CLI",
  opencode: "opencode",
  gemini: "Gemini CLI",
  "claude-desktop": "Claude Desktop",
  cursor: "Cursor",
  vscode: "VS Code",
  windsurf: "Windsurf",
  zed: "Zed",
  goose: "goose",
};

const PATHS: Record<Agent, string> = {
  "claude-code": "/home/me/.claude.json",
  codex: "/home/me/.codex/config.toml",
  opencode: "/home/me/.config/opencode/opencode.json",
  gemini: "/home/me/.gemini/settings.json",
  "claude-desktop": "/home/me/.config/Claude/claude_desktop_config.json",
  cursor: "/home/me/.cursor/mcp.json",
  vscode: "/home/me/.config/Code/User/mcp.json",
  windsurf: "/home/me/.codeium/windsurf/mcp_config.json",
  zed: "/home/me/.config/zed/settings.json",
  goose: "/home/me/.config/goose/config.yaml",
};

export const CLI_PATH = "/usr/local/bin/memory-bank";

/** The agents with a hook that adds context (Rust's Agent::has_recall_hook). */
const WITH_HOOKS: Agent[] = ["claude-code", "codex", "gemini"];

export function agentStatus(agent: Agent, extra: Partial<AgentStatus> = {}): AgentStatus {
  const status: AgentStatus = {
    agent,
    displayName: NAMES[agent],
    configPath: PATHS[agent],
    detected: false,
    installed: false,
    entryMatches: false,
    problem: null,
    // As Rust's Agent::notice: only Gemini CLI needs the folder trusted.
    notice: agent === "gemini" ? "trust-the-folder" : null,
    recall: false,
    recallHook: WITH_HOOKS.includes(agent) ? false : null,
    // As Rust's Agent::recall_notice: only Codex needs its hooks trusted.
    recallNotice: agent === "codex" ? "trust-the-hook" : null,
    upToDate: false,
    ...extra,
  };
  return { ...status, upToDate: extra.upToDate ?? (status.installed && status.entryMatches) };
}

export function agentsOverview(extra: Partial<Record<Agent, Partial<AgentStatus>>> = {}, cliPath: string | null = CLI_PATH): AgentsOverview {
  const agents = (Object.keys(NAMES) as Agent[]).map((agent) => agentStatus(agent, extra[agent]));
  return {
    cli: cliPath
      ? { path: cliPath, problem: null }
      : { path: null, problem: "The memory-bank command-line program was not found next to Memory Bank or on your PATH." },
    recall: false,
    agents,
  };
}

export interface InboxData {
  proposals: Proposal[];
  agents: AgentsOverview;
  /** Bumped to pretend the agent rewrote its file: plans made before no longer apply. */
  agentFileVersion: number;
}

interface Backend extends InboxData {
  memories: Memory[];
}

const gone = (id: string): IpcError => ({ code: "proposal_not_found", message: `proposal not found (404): ${id}` });

/** The args Install writes: with --recall when recall is on. */
const args = (recall: boolean) => (recall ? `["mcp", "--recall"]` : `["mcp"]`);

function plan(backend: Backend, agent: Agent, action: AgentAction, recall = backend.agents.recall): AgentPlan {
  const status = backend.agents.agents.find((a) => a.agent === agent)!;
  const entry = [`+    "memory-bank": {`, `+      "command": "${backend.agents.cli.path}",`, `+      "args": ${args(recall)}`, `+    }`];
  const changed = action === "install" ? !status.installed || !status.upToDate || status.recall !== recall : status.installed;
  const version = `  "version": ${backend.agentFileVersion},`;
  const lines = action === "install" ? entry : entry.map((line) => `-${line.slice(1)}`);
  const diff = changed
    ? [`--- ${status.configPath}`, `+++ ${status.configPath}`, "@@ -1,3 +1,7 @@", " {", version, ...lines, " }", ""].join("\n")
    : "";
  const change = action === "install" ? (changed ? (status.installed ? "update" : "add") : "already-installed") : changed ? "remove" : "not-installed";
  const parts: AgentPlan["parts"] = [{ part: "server", configPath: status.configPath, change }];
  const hooked = WITH_HOOKS.includes(agent) && (action === "install" ? recall : status.recallHook === true);
  if (hooked) parts.push({ part: "recall-hook", configPath: status.configPath.replace(/[^/]+$/, "settings.json"), change });
  return { agent, action, configPath: status.configPath, change, parts, changed, diff };
}

/** The agent's status once `action` is applied with recall `recall`. */
function applied(status: AgentStatus, action: AgentAction, recall: boolean): AgentStatus {
  const installed = action === "install";
  return {
    ...status,
    installed,
    entryMatches: installed,
    upToDate: installed,
    recall: installed && recall,
    recallHook: status.recallHook === null ? null : installed && recall,
  };
}

export function inboxHandlers(backend: Backend): Record<string, (args: Record<string, unknown>) => unknown> {
  const changed = () => emit("inbox-changed", { pending: backend.proposals.length });
  const take = (id: unknown) => {
    const found = backend.proposals.find((p) => p.id === id);
    if (!found) throw gone(String(id));
    if (found.status !== "pending")
      throw { code: "proposal_not_pending", message: `the proposal cannot change (409): it is ${found.status} already` };
    return found;
  };
  return {
    list_proposals: () => ({ proposals: backend.proposals, nextCursor: null }) satisfies ProposalListResponse,
    accept_proposal: async (args) => {
      const found = take(args.id);
      const edits = (args.edits ?? {}) as ProposalEdits;
      let memory: Memory | undefined;
      if (found.action === "save" && edits.editInstead) {
        // Accepted as a new wording of a memory the person already has.
        const index = backend.memories.findIndex((m) => m.id === edits.editInstead);
        if (index < 0) throw { code: "memory_not_found", message: "memory not found" };
        memory = { ...backend.memories[index], content: edits.content ?? found.content, updatedAt: "2026-01-03T00:00:00Z" };
        backend.memories[index] = memory;
      } else if (found.action === "save") {
        const content = edits.content ?? found.content;
        const tags = edits.tags ?? found.tags;
        const secrets = [content, ...(tags ?? [])].flatMap((text) => findSecrets(text));
        if (secrets.length > 0)
          throw { code: "looks_like_secret", message: `This looks like a secret (${secrets[0].kind} in content).` };
        memory = {
          id: `mem_from_${found.id}`,
          content,
          tags,
          source: "chat",
          scope: "user",
          orgId: found.orgId,
          createdAt: new Date(Date.UTC(2026, 0, 3)).toISOString(),
          updatedAt: new Date(Date.UTC(2026, 0, 3)).toISOString(),
          contexts: found.contexts.map((c, i) => ({ id: `ctx_${i}`, ...c, createdAt: "2026-01-03T00:00:00Z" })),
          confirmedVia: "app",
          ...(found.proposedBy ? { proposedBy: found.proposedBy } : {}),
        };
        backend.memories = [memory, ...backend.memories];
      } else {
        backend.memories = backend.memories.filter((m) => m.id !== found.memoryId);
      }
      backend.proposals = backend.proposals.filter((p) => p.id !== found.id);
      await changed();
      return { proposal: { ...found, status: "accepted", decidedAt: "2026-01-03T00:00:00Z" }, ...(memory ? { memory } : {}) };
    },
    reject_proposal: async (args) => {
      const found = take(args.id);
      backend.proposals = backend.proposals.filter((p) => p.id !== found.id);
      await changed();
      return { proposal: { ...found, status: "rejected", decidedAt: "2026-01-03T00:00:00Z" } };
    },
    agent_statuses: () => backend.agents,
    plan_agent_change: (args) => plan(backend, args.agent as Agent, args.action as AgentAction),
    apply_agent_change: (args) => {
      const agent = args.agent as Agent;
      const action = args.action as AgentAction;
      const now = plan(backend, agent, action);
      if (now.diff !== args.diff)
        throw { code: "agent_config_changed", message: `${now.configPath} changed since you reviewed the change` };
      backend.agents = {
        ...backend.agents,
        agents: backend.agents.agents.map((a) => (a.agent === agent ? applied(a, action, backend.agents.recall) : a)),
      };
      return { written: now.changed, backup: now.changed ? `${now.configPath}.memory-bank.bak` : null, overview: backend.agents };
    },
    plan_recall_change: (args) => {
      const on = args.on as boolean;
      const agents = backend.agents.agents.filter((a) => a.installed).map((a) => plan(backend, a.agent, "install", on));
      return { on, agents } satisfies RecallPlan;
    },
    apply_recall_change: (args) => {
      const on = args.on as boolean;
      const reviewed = args.reviewed as ReviewedDiff[];
      let written = false;
      for (const status of backend.agents.agents.filter((a) => a.installed)) {
        const now = plan(backend, status.agent, "install", on);
        if (reviewed.find((r) => r.agent === status.agent)?.diff !== now.diff)
          throw { code: "agent_config_changed", message: `${now.configPath} changed since you reviewed the change` };
        written ||= now.changed;
        backend.agents = {
          ...backend.agents,
          agents: backend.agents.agents.map((a) => (a.agent === status.agent ? applied(a, "install", on) : a)),
        };
      }
      backend.agents = { ...backend.agents, recall: on };
      return { written, backup: null, overview: backend.agents };
    },
  };
}

/** What an agent does through `memory-bank mcp`: a proposal appears, Rust reports it. */
export async function propose(backend: Backend, made: Proposal) {
  backend.proposals = [made, ...backend.proposals];
  await emit("inbox-changed", { pending: backend.proposals.length });
}
