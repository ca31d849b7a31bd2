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
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { bin, codexAppServer, install, scratchHome, sh } from "./harness.mjs";

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
