// The agents' own CLIs, from npm (package.json, pinned), accept what `memory-bank mcp
// install` writes and start our server (issue 30). Each test has a home of its own (HOME,
// XDG folders, CODEX_HOME), no login and no model call; each agent is asked with its own
// command:
//   Claude Code  `claude mcp list` / `claude mcp get memory-bank`
//   opencode     `opencode mcp list`
//   Gemini CLI   `gemini mcp list`, in a folder it trusts (and, untrusted, "Disabled")
//   Codex        its app-server (JSON-RPC on stdio): `mcpServerStatus/list`, and
//                `list_sessions` called through `mcpServer/tool/call`
// Run: npm ci --prefix tests/agents && npm --prefix tests/agents test
// Environment: MEMORY_BANK_BIN (target/debug/memory-bank).
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import readline from "node:readline";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const bin = path.resolve(process.env.MEMORY_BANK_BIN ?? path.join(root, "target/debug/memory-bank"));
const agentsBin = path.join(here, "node_modules/.bin");
const run = promisify(execFile);
// Colour codes and spinners off, so the agents' answers read as plain text.
const strip = (text) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");

/** A home of its own: every agent's config and our local bank live under it. */
function scratchHome(t) {
  const dir = mkdtempSync(path.join(tmpdir(), "memory-bank-agents-"));
  // Retries: an agent's child process may still be finishing a write when the test ends.
  t.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  const home = path.join(dir, "home");
  const work = path.join(dir, "work"); // the folder each agent is started in
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  const env = {
    PATH: `${agentsBin}:${process.env.PATH}`,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local/share"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_STATE_HOME: path.join(home, ".local/state"),
    CODEX_HOME: path.join(home, ".codex"),
    LANG: "C.UTF-8",
    NO_COLOR: "1",
    TERM: "dumb",
    // No update checks, no telemetry, no login prompts: nothing here needs the network.
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    GEMINI_CLI_DISABLE_AUTOUPDATER: "1",
  };
  return { dir, home, work, env };
}

/** One Claude Code session on disk, so list_sessions has something to list. */
function writeClaudeSession(home, cwd) {
  const sessionId = "5f1c2a9e-0b7d-4e31-9a44-0c2f6d1e8b70";
  const folder = path.join(home, ".claude", "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"));
  mkdirSync(folder, { recursive: true });
  const at = new Date(Date.now() - 60000).toISOString();
  const records = [
    { type: "user", uuid: "u1", sessionId, cwd, timestamp: at, message: { role: "user", content: "Where do the deploy scripts live?" } },
    { type: "assistant", uuid: "a1", parentUuid: "u1", sessionId, cwd, timestamp: at, message: { role: "assistant", model: "claude", content: [{ type: "text", text: "In scripts/deploy." }] } },
  ];
  writeFileSync(path.join(folder, `${sessionId}.jsonl`), records.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return sessionId;
}

async function sh(scratch, command, args, { timeout = 120000 } = {}) {
  const { stdout, stderr } = await run(command, args, { cwd: scratch.work, env: scratch.env, timeout, maxBuffer: 16 * 1024 * 1024 });
  return strip(stdout + stderr);
}

const install = (scratch, agent, ...flags) => sh(scratch, bin, ["mcp", "install", "--agent", agent, ...flags]);

test("Claude Code: `claude mcp list` and `get` show our entry connected", async (t) => {
  const s = scratchHome(t);
  await install(s, "claude-code");
  const list = await sh(s, "claude", ["mcp", "list"]);
  assert.match(list, new RegExp(`memory-bank: ${bin.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} mcp - ✔ Connected`), list);
  const get = await sh(s, "claude", ["mcp", "get", "memory-bank"]);
  assert.match(get, /Status: ✔ Connected/, get);
  assert.match(get, /Type: stdio/, get);
  assert.match(get, new RegExp(`Command: ${bin.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\\n`), get);
  assert.match(get, /Args: mcp\n/, get);
});

test("opencode: `opencode mcp list` shows our entry connected", async (t) => {
  const s = scratchHome(t);
  await install(s, "opencode");
  const list = await sh(s, "opencode", ["mcp", "list"]);
  assert.match(list, /✓ memory-bank\s+connected/, list);
});

test("Gemini CLI: `gemini mcp list` connects in a trusted folder, and says Disabled in an untrusted one", async (t) => {
  const s = scratchHome(t);
  await install(s, "gemini");
  const untrusted = await sh(s, "gemini", ["mcp", "list"]);
  assert.match(untrusted, /memory-bank: .* - Disabled/, untrusted);
  // How a person trusts a folder: Gemini CLI's own file of trusted folders.
  writeFileSync(path.join(s.home, ".gemini", "trustedFolders.json"), JSON.stringify({ [s.work]: "TRUST_FOLDER" }));
  const trusted = await sh(s, "gemini", ["mcp", "list"]);
  assert.match(trusted, /✓ memory-bank: .* \(stdio\) - Connected/, trusted);
});

/** Codex's app-server on stdio: newline-delimited JSON-RPC. */
function codexAppServer(s) {
  const child = spawn("codex", ["app-server"], { cwd: s.work, env: s.env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const pending = new Map();
  const notes = [];
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line);
    if (message.id !== undefined && pending.has(message.id)) {
      pending.get(message.id)(message);
      pending.delete(message.id);
    } else notes.push(message);
  });
  let next = 0;
  const call = (method, params) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      const timer = setTimeout(() => reject(new Error(`codex app-server: no answer to ${method} in 60 s; stderr: ${strip(stderr)}`)), 60000);
      pending.set(id, (message) => {
        clearTimeout(timer);
        if (message.error) reject(new Error(`${method}: ${JSON.stringify(message.error)}`));
        else resolve(message.result);
      });
      child.stdin.write(JSON.stringify({ id, method, params }) + "\n");
    });
  const notify = (method, params) => child.stdin.write(JSON.stringify(params ? { method, params } : { method }) + "\n");
  // Ended, and waited for: it writes into CODEX_HOME until it exits, and the scratch home
  // is removed right after.
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const close = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    return exited;
  };
  return { call, notify, notes, close };
}

test("Codex: the app-server reports our tools, and list_sessions answers through it", async (t) => {
  const s = scratchHome(t);
  const sessionId = writeClaudeSession(s.home, "/home/ada/shop");
  await install(s, "codex");
  const codex = codexAppServer(s);
  // Ended here, not in a t.after hook: those run in order, and the scratch home's removal
  // was registered first.
  try {
    await codexChecks(codex, sessionId);
  } finally {
    await codex.close();
  }
});

async function codexChecks(codex, sessionId) {
  await codex.call("initialize", { clientInfo: { name: "memory-bank-tests", title: null, version: "1" }, capabilities: null });
  codex.notify("initialized");
  const status = await codex.call("mcpServerStatus/list", {});
  const ours = status.data.find((server) => server.name === "memory-bank");
  assert.ok(ours, `memory-bank in ${JSON.stringify(status.data.map((d) => d.name))}`);
  assert.equal(ours.serverInfo?.name, "memory-bank");
  for (const tool of ["search_memories", "propose_memory", "list_sessions", "read_transcript"]) {
    assert.ok(ours.tools[tool], `${tool} among ${Object.keys(ours.tools)}`);
  }
  // A tool call needs a thread; starting one asks no model anything.
  const { thread } = await codex.call("thread/start", {});
  const result = await codex.call("mcpServer/tool/call", { threadId: thread.id, server: "memory-bank", tool: "list_sessions", arguments: {} });
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  const sessions = result.structuredContent?.sessions ?? [];
  assert.ok(sessions.some((session) => session.id?.includes(sessionId) || JSON.stringify(session).includes(sessionId)), JSON.stringify(result.structuredContent).slice(0, 500));
}
