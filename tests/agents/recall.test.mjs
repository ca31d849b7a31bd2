// Recall, end to end with the agents' own CLIs (issue 30 §4): `memory-bank mcp install
// --recall` registers our hook, each agent's own hook runner runs `memory-bank recall` on
// the person's prompt, and the memory that bears on it reaches what the agent sends its
// model; installing without --recall takes the hook out again and the memory no longer
// goes along. The model is a loopback stub of each agent's API (model-stubs.mjs): no login,
// no model call, and the request it records is the proof.
//
// The memories are saved as a person saves them from an agent's client: proposed over MCP
// (the official TypeScript SDK) and accepted in the client's form.
//   Claude Code  `claude -p`, ANTHROPIC_BASE_URL → the stub
//   Gemini CLI   `gemini -p -m gemini-2.5-flash`, GOOGLE_GEMINI_BASE_URL → the stub, in a
//                trusted folder (an explicit model: else it first asks a classifier model)
//   Codex        `codex exec`, a custom model provider → the stub; its hooks run only once
//                trusted, which the person does in /hooks and the test does through the
//                app-server, as /hooks does
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { bin, codexAppServer, install, scratchHome } from "./harness.mjs";
import { REPLY, anthropicStub, geminiStub, responsesStub } from "./model-stubs.mjs";

const PROMPT = "How do I deploy to staging?";
const STAGING = "Staging deploys need the VPN to be up first.";
const NOISE = ["The person drinks green tea in the morning.", "Their cat is called Miso.", "Weekly planning happens on Monday mornings."];

/** Saves each sentence in the scratch home's local bank: proposed, and accepted in the form. */
async function remember(s, sentences) {
  const client = new Client({ name: "recall-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  // The person accepts the form as drafted: every field at its default.
  client.setRequestHandler(ElicitRequestSchema, async (request) => ({
    action: "accept",
    content: Object.fromEntries(Object.entries(request.params.requestedSchema?.properties ?? {}).map(([key, field]) => [key, field.default ?? ""])),
  }));
  await client.connect(new StdioClientTransport({ command: bin, args: ["--words-only", "mcp"], env: s.env, stderr: "ignore" }));
  const ids = {};
  try {
    for (const content of sentences) {
      const result = await client.callTool({ name: "propose_memory", arguments: { content } });
      const answer = JSON.parse(result.content.map((c) => c.text).join(""));
      assert.equal(answer.status, "saved", JSON.stringify(answer));
      ids[content] = answer.memory.id;
    }
  } finally {
    await client.close();
  }
  return ids;
}

/** Runs an agent's CLI in the scratch home with stdin closed, bounded, its process group ended after. */
function agent(s, command, args, { timeout = 90000 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: s.work, env: s.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const end = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => end("SIGKILL"), timeout);
    child.on("close", (code) => {
      clearTimeout(timer);
      end("SIGKILL"); // helpers it started (our MCP server among them)
      resolve({ code, stdout, stderr });
    });
  });
}

/** What one model request carried, as text. */
const sent = (request) => request.raw;

async function withStub(t, start) {
  const stub = await start();
  t.after(() => stub.close());
  return stub;
}

const ON = "whenever the task touches the person's preferences";
const OFF = "only when the person asks";

/** The recall check every agent passes: on, the memory about the prompt reaches the model
 * and the others do not; off, it does not either. With `instructions`, the agent also
 * passes our server's instructions on to its model: on, they say to search by itself;
 * off, only when asked. */
async function recallOnAndOff(s, name, run, requests, { instructions = false } = {}) {
  const ids = await remember(s, [STAGING, ...NOISE]);
  await install(s, name, "--recall");
  const first = await run();
  assert.equal(first.code, 0, first.stderr + first.stdout);
  const on = requests();
  assert.ok(on.length > 0, "the model was asked");
  const carried = sent(on.at(-1));
  assert.ok(carried.includes(STAGING) && carried.includes(ids[STAGING]), `the memory and its id reach the model: ${carried.slice(0, 3000)}`);
  for (const noise of NOISE) assert.ok(!carried.includes(noise), `${noise} is not about the prompt`);
  if (instructions) assert.ok(carried.includes(ON) && !carried.includes(OFF), "the instructions say to search by itself");

  await install(s, name); // recall off
  const before = requests().length;
  const second = await run();
  assert.equal(second.code, 0, second.stderr + second.stdout);
  const off = requests().slice(before);
  assert.ok(off.length > 0, "the model was asked again");
  assert.ok(!sent(off.at(-1)).includes(STAGING), "with recall off the memory stays out");
  if (instructions) assert.ok(sent(off.at(-1)).includes(OFF) && !sent(off.at(-1)).includes(ON), "the instructions are restored");
}

test("Claude Code: the recall hook's memory reaches the model, and stops when recall is off", async (t) => {
  const stub = await withStub(t, anthropicStub);
  const s = scratchHome(t, { ANTHROPIC_API_KEY: "sk-ant-test-not-a-key", ANTHROPIC_BASE_URL: stub.url });
  const calls = () => stub.requests.filter((r) => r.method === "POST" && r.url.startsWith("/v1/messages"));
  const run = async () => {
    const r = await agent(s, "claude", ["-p", PROMPT, "--output-format", "json"]);
    if (r.code === 0) assert.equal(JSON.parse(r.stdout).result, REPLY, r.stdout);
    return r;
  };
  // Claude Code passes the servers' instructions on to its model ("# MCP Server Instructions").
  await recallOnAndOff(s, "claude-code", run, calls, { instructions: true });
});

test("Gemini CLI: the recall hook's memory reaches the model, and stops when recall is off", async (t) => {
  const stub = await withStub(t, geminiStub);
  const s = scratchHome(t, { GEMINI_API_KEY: "test-not-a-key", GOOGLE_GEMINI_BASE_URL: stub.url });
  // The person's own settings: an API key account, no statistics. Install keeps them.
  const settings = path.join(s.home, ".gemini", "settings.json");
  mkdirSync(path.dirname(settings), { recursive: true });
  writeFileSync(settings, JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } }, privacy: { usageStatisticsEnabled: false } }, null, 2) + "\n");
  writeFileSync(path.join(s.home, ".gemini", "trustedFolders.json"), JSON.stringify({ [s.work]: "TRUST_FOLDER" }));
  const calls = () => stub.requests.filter((r) => r.url.includes(":streamGenerateContent"));
  const run = () => agent(s, "gemini", ["-p", PROMPT, "--output-format", "json", "-m", "gemini-2.5-flash"]);
  // Gemini CLI passes the servers' instructions on too.
  await recallOnAndOff(s, "gemini", run, calls, { instructions: true });
  assert.equal(JSON.parse(readFileSync(settings, "utf8")).security.auth.selectedType, "gemini-api-key");
});

/** Trusts the hooks Codex lists as new or changed, as the person does in /hooks. */
async function trustCodexHooks(s) {
  const codex = codexAppServer(s);
  try {
    await codex.call("initialize", { clientInfo: { name: "memory-bank-tests", title: null, version: "1" }, capabilities: null });
    codex.notify("initialized");
    const listed = await codex.call("hooks/list", { cwds: [s.work] });
    const hooks = listed.data.flatMap((entry) => entry.hooks);
    const edits = hooks
      .filter((hook) => hook.trustStatus === "untrusted" || hook.trustStatus === "modified")
      .map((hook) => ({ keyPath: `hooks.state.${JSON.stringify(hook.key)}.trusted_hash`, value: hook.currentHash, mergeStrategy: "upsert" }));
    if (edits.length > 0) await codex.call("config/batchWrite", { edits });
    return hooks;
  } finally {
    await codex.close();
  }
}

test("Codex: the recall hook runs once trusted, its memory reaches the model, and stops when recall is off", async (t) => {
  const stub = await withStub(t, responsesStub);
  const s = scratchHome(t, { MEMORY_BANK_TEST_MODEL_KEY: "test-not-a-key" });
  // The person's own model provider (here the stub); install keeps it.
  mkdirSync(s.env.CODEX_HOME, { recursive: true });
  const provider = `model = "stub-model"\nmodel_provider = "stub"\n\n[model_providers.stub]\nname = "Loopback stub"\nbase_url = "${stub.url}/v1"\nwire_api = "responses"\nenv_key = "MEMORY_BANK_TEST_MODEL_KEY"\nrequest_max_retries = 0\nstream_max_retries = 0\n`;
  writeFileSync(path.join(s.env.CODEX_HOME, "config.toml"), provider);
  const calls = () => stub.requests.filter((r) => r.method === "POST" && r.url === "/v1/responses");
  const run = () => agent(s, "codex", ["exec", "--skip-git-repo-check", "--json", PROMPT]);

  const ids = await remember(s, [STAGING, ...NOISE]);
  await install(s, "codex", "--recall");
  // Untrusted, the hook is skipped without a word: what `install` tells the person to do.
  const untrusted = await run();
  assert.equal(untrusted.code, 0, untrusted.stderr + untrusted.stdout);
  assert.ok(!sent(calls().at(-1)).includes(STAGING), "an untrusted hook does not run");
  const hooks = await trustCodexHooks(s);
  assert.ok(hooks.some((hook) => JSON.stringify(hook).includes("recall --agent codex")), JSON.stringify(hooks));
  const trusted = await run();
  assert.equal(trusted.code, 0, trusted.stderr + trusted.stdout);
  const carried = sent(calls().at(-1));
  assert.ok(carried.includes(STAGING) && carried.includes(ids[STAGING]), carried.slice(0, 3000));
  for (const noise of NOISE) assert.ok(!carried.includes(noise), noise);
  // Codex passes the servers' instructions on as well.
  assert.ok(carried.includes(ON) && !carried.includes(OFF), "the instructions say to search by itself");

  await install(s, "codex"); // recall off
  const off = await run();
  assert.equal(off.code, 0, off.stderr + off.stdout);
  assert.ok(!sent(calls().at(-1)).includes(STAGING), "with recall off the memory stays out");
  assert.ok(sent(calls().at(-1)).includes(OFF), "the instructions are restored");
  assert.ok(readFileSync(path.join(s.env.CODEX_HOME, "config.toml"), "utf8").startsWith(provider), "the person's provider is kept");
});
