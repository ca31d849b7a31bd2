// The person's own settings survive `memory-bank mcp install`, a re-install and `--remove`
// byte for byte, in files shaped like theirs (JSON, JSONC with comments and trailing commas,
// JSON with comments and CRLF line endings, TOML with comments and CRLF), and each agent's
// own CLI still reads the edited file and connects to our server (issue 30 §2).
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { bin, codexAppServer, install, scratchHome, sh } from "./harness.mjs";

function lived(s, rel, text) {
  const file = path.join(s.home, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const read = (file) => readFileSync(file, "utf8");

/** Install, re-install (nothing changes), remove (the original bytes), then install again
 * and let `check` ask the agent whether it reads the file and connects. The agent runs last:
 * Claude Code rewrites its own file while it runs. */
async function roundTrip(s, agent, file, original, check) {
  await install(s, agent);
  const installed = read(file);
  assert.notEqual(installed, original);
  await install(s, agent);
  assert.equal(read(file), installed, "a re-install changes nothing");
  await install(s, agent, "--remove");
  assert.equal(read(file), original, "remove gives back the person's bytes");
  await install(s, agent);
  assert.equal(read(file), installed);
  await check();
}

test("Claude Code: ~/.claude.json with the person's state and servers", async (t) => {
  const s = scratchHome(t);
  const original = `{
  "numStartups": 42,
  "autoUpdates": false,
  "projects": {
    "${s.work}": { "allowedTools": [], "hasTrustDialogAccepted": true }
  },
  "mcpServers": {
    "notes": { "type": "stdio", "command": "true", "args": [], "env": { "NOTES_DIR": "/srv/notes" } }
  },
  "userID": "0c1f"
}
`;
  const file = lived(s, ".claude.json", original);
  await roundTrip(s, "claude-code", file, original, async () => {
    const list = await sh(s, "claude", ["mcp", "list"]);
    assert.match(list, /memory-bank: .* - ✔ Connected/, list);
    assert.match(list, /notes: true/, list);
  });
  // A key the person adds to our entry stays through a re-install that changes our args.
  await install(s, "claude-code");
  const withEnv = JSON.parse(read(file));
  withEnv.mcpServers["memory-bank"].env = { MEMORY_BANK_LOG: "info" };
  writeFileSync(file, JSON.stringify(withEnv, null, 2) + "\n");
  await sh(s, bin, ["--words-only", "mcp", "install", "--agent", "claude-code"]);
  const after = JSON.parse(read(file)).mcpServers["memory-bank"];
  assert.deepEqual(after.env, { MEMORY_BANK_LOG: "info" });
  assert.deepEqual(after.args, ["mcp", "--words-only"]);
  const get = await sh(s, "claude", ["mcp", "get", "memory-bank"]);
  assert.match(get, /Status: ✔ Connected/, get);
});

test("opencode: opencode.jsonc with comments and trailing commas", async (t) => {
  const s = scratchHome(t);
  const original = `// opencode settings
{
  "$schema": "https://opencode.ai/config.json",
  "theme": "opencode", // the person's theme
  "autoupdate": false,
  "mcp": {
    // a server of the person's, switched off
    "notes": { "type": "local", "command": ["true"], "enabled": false, },
  },
}
`;
  const file = lived(s, ".config/opencode/opencode.jsonc", original);
  await roundTrip(s, "opencode", file, original, async () => {
    const list = await sh(s, "opencode", ["mcp", "list"]);
    assert.match(list, /✓ memory-bank\s+connected/, list);
  });
});

test("Gemini CLI: settings.json with comments and CRLF line endings", async (t) => {
  const s = scratchHome(t);
  const original = [
    "{",
    '  // the person\'s own settings',
    '  "ui": { "theme": "GitHub" },',
    '  "privacy": { "usageStatisticsEnabled": false },',
    '  "mcpServers": {',
    '    "notes": { "command": "true", "timeout": 5000 }',
    "  }",
    "}",
    "",
  ].join("\r\n");
  const file = lived(s, ".gemini/settings.json", original);
  writeFileSync(path.join(s.home, ".gemini", "trustedFolders.json"), JSON.stringify({ [s.work]: "TRUST_FOLDER" }));
  await roundTrip(s, "gemini", file, original, async () => {
    assert.ok(!read(file).replace(/\r\n/g, "").includes("\n"), "still CRLF throughout");
    const list = await sh(s, "gemini", ["mcp", "list"]);
    assert.match(list, /✓ memory-bank: .* \(stdio\) - Connected/, list);
  });
});

test("Codex: config.toml with comments, tables of the person's and CRLF line endings", async (t) => {
  const s = scratchHome(t);
  const original = [
    "# Codex settings",
    'model = "o3" # the person\'s model',
    'approval_policy = "on-request"',
    "",
    "[profiles.fast]",
    'model = "o4-mini"',
    "",
    "# a server of the person's",
    "[mcp_servers.notes]",
    'command = "true"',
    "startup_timeout_sec = 5",
    "",
    "[mcp_servers.notes.env]",
    'NOTES_DIR = "/srv/notes"',
    "",
  ].join("\r\n");
  const file = lived(s, ".codex/config.toml", original);
  await roundTrip(s, "codex", file, original, async () => {
    assert.ok(!read(file).replace(/\r\n/g, "").includes("\n"), "still CRLF throughout");
    const codex = codexAppServer(s);
    try {
      await codex.call("initialize", { clientInfo: { name: "memory-bank-tests", title: null, version: "1" }, capabilities: null });
      codex.notify("initialized");
      const status = await codex.call("mcpServerStatus/list", {});
      const ours = status.data.find((server) => server.name === "memory-bank");
      assert.ok(ours?.tools?.search_memories, JSON.stringify(status.data.map((d) => d.name)));
    } finally {
      await codex.close();
    }
  });
});
