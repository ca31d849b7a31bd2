// Settings → Agents: every agent, Install and Remove with the exact diff shown and
// confirmed first (a stale diff is never written), a missing CLI, the empty panel's way
// there, and Copy prompt's instructions for an agent with the tools, in both languages.
import { screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { AGENT_PROMPTS, agentPrompt } from "../src/memory/agentPrompt";
import { installFakeBackend } from "./fakeBackend";
import { agentsOverview, CLI_PATH } from "./fakeInbox";
import { renderApp, settle, tick, useFakeClock } from "./render";

beforeEach(() => useFakeClock());

async function openSettings(options: Parameters<typeof installFakeBackend>[0] = {}) {
  const backend = installFakeBackend(options);
  const app = renderApp();
  await settle();
  await app.user.click(screen.getByRole("button", { name: "Account settings" }));
  await settle();
  return { app, backend };
}

const section = () => screen.getByRole("region", { name: "Agents" });
const row = (name: string) => within(section()).getByText(name, { selector: ".agent-name" }).closest("li") as HTMLElement;

describe("Settings → Agents", () => {
  it("lists every agent: found or not, installed or not, and their settings file", async () => {
    await openSettings({
      agents: agentsOverview({
        "claude-code": { detected: true, installed: true, entryMatches: true },
        codex: { detected: true, installed: true, entryMatches: false },
        gemini: { problem: "/home/me/.gemini/settings.json line 2 column 1: expected a value" },
      }),
    });
    const names = within(section()).getAllByRole("listitem").map((li) => li.querySelector(".agent-name")?.textContent);
    expect(names).toEqual(["Claude Code", "Codex CLI", "opencode", "Gemini CLI", "Claude Desktop", "Cursor", "VS Code", "Windsurf", "Zed", "goose"]);
    expect(row("VS Code").textContent).toContain("/home/me/.config/Code/User/mcp.json");
    expect(section().textContent).toContain(`Agents will run: ${CLI_PATH} mcp`);
    expect(row("Claude Code").textContent).toContain("Installed · Found on this computer");
    expect(row("Claude Code").textContent).toContain("/home/me/.claude.json");
    expect(within(row("Claude Code")).queryByRole("button", { name: "Install in Claude Code" })).toBeNull();
    expect(within(row("Claude Code")).getByRole("button", { name: "Remove from Claude Code" })).not.toBeNull();
    expect(row("Codex CLI").textContent).toContain("Installed with a different command; Install updates it");
    expect(within(row("Codex CLI")).getByRole("button", { name: "Install in Codex CLI" })).not.toBeNull();
    expect(row("opencode").textContent).toContain("Not installed · Not found on this computer");
    expect(row("Gemini CLI").textContent).toContain("expected a value");
    // Gemini CLI starts servers only in trusted folders: the row says so, and how.
    expect(row("Gemini CLI").textContent).toContain("Gemini CLI starts Memory Bank only in folders you trust");
    expect(row("Gemini CLI").textContent).toContain("~/.gemini/trustedFolders.json");
    expect(row("Codex CLI").querySelector(".agent-notice")).toBeNull();
  });

  it("Install shows the exact change first and writes only that", async () => {
    const { app, backend } = await openSettings();
    await app.user.click(within(row("Codex CLI")).getByRole("button", { name: "Install in Codex CLI" }));
    await settle();
    const dialog = screen.getByRole("dialog", { name: "Install Memory Bank in Codex CLI?" });
    expect(dialog.textContent).toContain("This exact change will be made to /home/me/.codex/config.toml.");
    const diff = within(dialog).getByRole("region", { name: "The change" });
    expect(diff.textContent).toContain(`+      "command": "${CLI_PATH}",`);
    expect(diff.querySelectorAll(".diff-add").length).toBeGreaterThan(0);
    expect(backend.callsOf("plan_agent_change")).toEqual([{ agent: "codex", action: "install" }]);
    expect(backend.callsOf("apply_agent_change")).toEqual([]);
    await app.user.click(within(dialog).getByRole("button", { name: "Install" }));
    await settle();
    expect(backend.callsOf("apply_agent_change")).toEqual([{ agent: "codex", action: "install", diff: diff.textContent }]);
    await tick(50);
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(within(section()).getByText("Installed in Codex CLI. Restart Codex CLI to use Memory Bank's tools.")).not.toBeNull();
    expect(row("Codex CLI").textContent).toContain("Installed ·");
    expect(within(row("Codex CLI")).getByRole("button", { name: "Remove from Codex CLI" })).not.toBeNull();
  });

  it("a file that changed after the diff was shown is not written; the new diff is shown to confirm again", async () => {
    const { app, backend } = await openSettings();
    await app.user.click(within(row("Claude Code")).getByRole("button", { name: "Install in Claude Code" }));
    await settle();
    const dialog = screen.getByRole("dialog");
    expect(dialog.textContent).toContain("Quit Claude Code first");
    const shown = within(dialog).getByRole("region", { name: "The change" }).textContent;
    backend.agentFileVersion = 2; // Claude Code rewrote its file meanwhile
    await app.user.click(within(dialog).getByRole("button", { name: "Install" }));
    await settle();
    expect(within(dialog).getByRole("alert").textContent).toBe(
      "The file changed since you looked. Here is the new change; check it and confirm again.",
    );
    const fresh = within(dialog).getByRole("region", { name: "The change" }).textContent;
    expect(fresh).not.toBe(shown);
    expect(fresh).toContain('"version": 2');
    expect(backend.agents.agents[0].installed).toBe(false);
    await app.user.click(within(dialog).getByRole("button", { name: "Install" }));
    await settle();
    expect(backend.callsOf("apply_agent_change").map((args) => args.diff)).toEqual([shown, fresh]);
    expect(backend.agents.agents[0].installed).toBe(true);
  });

  it("Remove shows what goes and can be cancelled", async () => {
    const { app, backend } = await openSettings({ agents: agentsOverview({ gemini: { installed: true, entryMatches: true } }) });
    await app.user.click(within(row("Gemini CLI")).getByRole("button", { name: "Remove from Gemini CLI" }));
    await settle();
    const dialog = screen.getByRole("dialog", { name: "Remove Memory Bank from Gemini CLI?" });
    expect(within(dialog).getByRole("region", { name: "The change" }).querySelectorAll(".diff-del").length).toBe(4);
    await app.user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await tick(50);
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(backend.callsOf("apply_agent_change")).toEqual([]);
    await app.user.click(within(row("Gemini CLI")).getByRole("button", { name: "Remove from Gemini CLI" }));
    await settle();
    await app.user.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Remove" }));
    await settle();
    expect(within(section()).getByText("Removed from Gemini CLI.")).not.toBeNull();
    expect(backend.agents.agents[3].installed).toBe(false);
  });

  it("says when the memory-bank program cannot be found, and Install waits for it", async () => {
    await openSettings({ agents: agentsOverview({}, null) });
    expect(section().textContent).toContain("The memory-bank command-line program was not found");
    const install = within(row("opencode")).getByRole("button", { name: "Install in opencode" }) as HTMLButtonElement;
    expect(install.disabled).toBe(true);
  });

  it("recall is off by default; turning it on shows every installed agent's change first and writes only those", async () => {
    const { app, backend } = await openSettings({
      agents: agentsOverview({
        "claude-code": { detected: true, installed: true, entryMatches: true },
        codex: { detected: true, installed: true, entryMatches: true },
      }),
    });
    const toggle = within(section()).getByRole("checkbox", { name: "Let agents look up relevant memories by themselves" });
    expect((toggle as HTMLInputElement).checked).toBe(false);
    expect(section().textContent).toContain("Off, agents search your memories only when you ask.");
    // Codex's need to trust the hook is said only once recall is on.
    expect(section().textContent).not.toContain("run /hooks");
    await app.user.click(toggle);
    await settle();
    const dialog = screen.getByRole("dialog", { name: "Let agents look up memories by themselves?" });
    expect(backend.callsOf("plan_recall_change")).toEqual([{ on: true }]);
    const claude = within(dialog).getByRole("region", { name: "The change to Claude Code" });
    expect(claude.textContent).toContain('"args": ["mcp", "--recall"]');
    expect(within(dialog).getByRole("region", { name: "The change to Codex CLI" })).not.toBeNull();
    expect(dialog.textContent).toContain("Quit Claude Code first");
    expect(backend.callsOf("apply_recall_change")).toEqual([]);
    expect((toggle as HTMLInputElement).checked).toBe(false);

    // A file rewritten meanwhile: nothing is written, the new changes are shown.
    backend.agentFileVersion = 2;
    await app.user.click(within(dialog).getByRole("button", { name: "Turn on" }));
    await settle();
    expect(within(dialog).getByRole("alert").textContent).toContain("The file changed since you looked");
    expect(backend.agents.recall).toBe(false);
    await app.user.click(within(dialog).getByRole("button", { name: "Turn on" }));
    await settle();
    const sent = backend.callsOf("apply_recall_change").at(-1) as { on: boolean; reviewed: { agent: string; diff: string }[] };
    expect(sent.on).toBe(true);
    expect(sent.reviewed.map((r) => r.agent)).toEqual(["claude-code", "codex"]);
    expect(sent.reviewed[0].diff).toContain('"version": 2');
    await tick(50);
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(within(section()).getByText("Agents may now look up relevant memories by themselves. Restart them to use it.")).not.toBeNull();
    expect((within(section()).getByRole("checkbox", { name: "Let agents look up relevant memories by themselves" }) as HTMLInputElement).checked).toBe(true);
    expect(row("Claude Code").textContent).toContain("Installed · Looks up memories by itself");
    expect(row("Codex CLI").textContent).toContain("run /hooks and trust memory-bank's recall hook");
  });

  it("turning recall off can be cancelled, and with nothing installed it only keeps the setting", async () => {
    const { app, backend } = await openSettings();
    const toggle = () => within(section()).getByRole("checkbox", { name: "Let agents look up relevant memories by themselves" });
    await app.user.click(toggle());
    await settle();
    let dialog = screen.getByRole("dialog");
    expect(dialog.textContent).toContain("Nothing to change in any agent's settings now.");
    await app.user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await tick(50);
    expect(backend.callsOf("apply_recall_change")).toEqual([]);
    expect((toggle() as HTMLInputElement).checked).toBe(false);
    await app.user.click(toggle());
    await settle();
    dialog = screen.getByRole("dialog");
    await app.user.click(within(dialog).getByRole("button", { name: "Turn on" }));
    await settle();
    expect(backend.callsOf("apply_recall_change")).toEqual([{ on: true, reviewed: [] }]);
    await tick(50);
    expect((toggle() as HTMLInputElement).checked).toBe(true);
  });

  it("shows recall's texts in Chinese", async () => {
    installFakeBackend({ state: { prefs: { language: "zh-CN" } } });
    const app = renderApp();
    await settle();
    await app.user.click(screen.getByRole("button", { name: "账户设置" }));
    await settle();
    const agents = screen.getByRole("region", { name: "智能体" });
    expect(within(agents).getByRole("checkbox", { name: "允许智能体自行查找相关记忆" })).not.toBeNull();
    expect(agents.textContent).toContain("关闭时，智能体只在你要求时才搜索你的记忆。");
  });

  it("the empty memory panel points to Install first, and opens the Agents section", async () => {
    const backend = installFakeBackend({ memories: [] });
    const app = renderApp();
    await settle();
    expect(screen.getByText(/install Memory Bank in your agent first \(Account settings → Agents → Install\)/)).not.toBeNull();
    await app.user.click(screen.getByRole("button", { name: "Set up your agents" }));
    await settle();
    expect(document.activeElement).toBe(screen.getByRole("heading", { name: "Agents" }));
    expect(backend.callsOf("agent_statuses")).toEqual([{}]);
  });
});

describe("Copy prompt", () => {
  const RULES = [
    "search_memories",
    "propose_memory",
    "proposal_status",
    "delete_memory",
    "list_sessions",
    "search_sessions",
    "read_transcript",
    "maxCharsPerMessage",
    '"saved"',
    '"pending"',
    '"accepted"',
    '"deleted"',
  ];

  it("tells an agent with the tools how to use them, the same rules in English and Chinese", () => {
    for (const prompt of Object.values(AGENT_PROMPTS)) for (const rule of RULES) expect(prompt).toContain(rule);
    expect(AGENT_PROMPTS.en).toMatch(/only when the user asks you to recall/);
    expect(AGENT_PROMPTS.en).toMatch(/Never say a memory is saved unless the status says "saved"/);
    expect(AGENT_PROMPTS.en).toMatch(/Never store secrets/);
    expect(AGENT_PROMPTS["zh-CN"]).toMatch(/绝不保存机密/);
    expect(agentPrompt("zh-TW")).toBe(AGENT_PROMPTS["zh-CN"]);
    expect(agentPrompt("fr")).toBe(AGENT_PROMPTS.en);
  });

  it("copies the Chinese prompt in the Chinese UI", async () => {
    installFakeBackend({ state: { prefs: { language: "zh-CN" } } });
    const writeText = vi.fn(() => Promise.resolve());
    Object.assign(navigator.clipboard, { writeText });
    const app = renderApp();
    await settle();
    await app.user.click(screen.getByRole("button", { name: "复制提示词" }));
    await settle();
    expect(writeText).toHaveBeenCalledWith(AGENT_PROMPTS["zh-CN"]);
  });
});
