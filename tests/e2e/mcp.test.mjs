// The agent door end to end, in a real window: an agent runs `memory-bank mcp` (driven by
// the official MCP TypeScript SDK) with an agent token against the service the app shows.
// Its proposal appears in the Inbox, the person accepts it with an edit, and the agent's
// proposal_status then says accepted; the memory is in the panel and on the server with
// confirmedVia "app". And the seed eval's panel step: a memory saved through the meta
// face (confirmed in the client's own form) is in the panel within 30 s.
// Run under Xvfb: `xvfb-run -a npm test`.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, test } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

import { Harness, root, rowXPath, screenshot, xpathString } from "./harness.mjs";

const cli = process.env.MEMORY_BANK_BIN ?? path.join(root, "target/debug/memory-bank");
const h = new Harness();

/** An MCP client running `memory-bank mcp ARGS` against the harness's service with `token`. */
async function agent(token, { args = [], elicit } = {}) {
  const client = new Client({ name: "claude-code", version: "2.1.99" }, { capabilities: elicit ? { elicitation: {} } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
  const env = { ...h.homeEnv, PATH: process.env.PATH ?? "/usr/bin:/bin", MEMORY_BANK_URL: h.url, MEMORY_BANK_TOKEN: token, MEMORY_BANK_ORG: h.org };
  await client.connect(new StdioClientTransport({ command: cli, args: ["mcp", ...args], env, stderr: "ignore" }));
  return client;
}

const call = async (client, name, args) => {
  const result = await client.callTool({ name, arguments: args });
  assert.ok(!result.isError, JSON.stringify(result.structuredContent));
  return result.structuredContent;
};

const proposalXPath = (content) =>
  `//article[contains(@class,'proposal')][.//p[contains(@class,'row-title')][normalize-space()=${xpathString(content)}]]`;

before(async () => {
  await h.start();
});

after(async () => {
  await h.stop();
});

test("an agent proposes through memory-bank mcp, the person accepts an edit in the Inbox, the agent sees it accepted", async () => {
  const mcp = await agent(h.agentToken());
  let proposed;
  try {
    const app = await h.openApp();
    try {
      const inbox = app.$("//nav//button[starts-with(normalize-space(),'Inbox')]");
      await inbox.waitForExist({ timeout: 20000 });
      await inbox.click();
      proposed = await call(mcp, "propose_memory", { content: "The Acme renewal is in Q3", tags: ["acme"] });
      assert.equal(proposed.status, "pending");
      assert.match(proposed.message, /Memory Bank/);
      assert.equal((await call(mcp, "proposal_status", { proposalId: proposed.proposalId })).status, "pending");

      const item = app.$(proposalXPath("The Acme renewal is in Q3"));
      await item.waitForExist({ timeout: 5000, interval: 100 });
      assert.match(await item.getText(), /Proposed by an agent that calls itself Claude Code/);
      await item.$(".//button[@aria-label='Check and accept this proposal']").click();
      const field = item.$(".//textarea");
      await field.waitForExist({ timeout: 3000 });
      await field.setValue("The Acme renewal is in Q3, at 5000 a month");
      await item.$(".//button[normalize-space()='Save memory']").click();
      await app.$("//h3[normalize-space()='Nothing waiting']").waitForExist({ timeout: 5000 });

      await app.$("//nav//button[normalize-space()='Memories']").click();
      const row = app.$(rowXPath("The Acme renewal is in Q3, at 5000 a month"));
      await row.waitForExist({ timeout: 5000 });
      assert.match(await row.getText(), /Confirmed in Memory Bank · proposed by an agent that calls itself Claude Code/);
      await screenshot(app, path.join(root, "target/e2e", "mcp-accepted.png"));
    } finally {
      await app.deleteSession();
    }
    const status = await call(mcp, "proposal_status", { proposalId: proposed.proposalId });
    assert.equal(status.status, "accepted");
    assert.equal(status.memory.content, "The Acme renewal is in Q3, at 5000 a month");
    assert.equal(status.memory.confirmedVia, "app");
  } finally {
    await mcp.close();
  }
  const saved = h.memories().find((m) => m.content === "The Acme renewal is in Q3, at 5000 a month");
  assert.equal(saved.confirmedVia, "app");
  assert.equal(saved.proposedBy, "claude-code");
});

test("the seed eval's panel step: saved through the meta face, confirmed in the client, in the panel within 30 s", async () => {
  const marker = `acme-renewal-${Date.now()}`;
  // The person's own token, and a client that shows the form and gets it accepted.
  const accept = async (request) => ({ action: "accept", content: { content: request.params.requestedSchema.properties.content.default } });
  const mcp = await agent(h.token, { args: ["--meta"], elicit: accept });
  let saved;
  try {
    const { tools } = await mcp.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["execute_capability", "search_capabilities"]);
    const found = await call(mcp, "search_capabilities", { query: "save a memory to the memory bank", limit: 5 });
    const save = found.matches.find((m) => /memory/i.test(m.name) && /post/i.test(m.name) && m.hasBody);
    const content = `User's Acme account renews in Q3 at 5000 per month — marker ${marker}.`;
    saved = await call(mcp, "execute_capability", { name: save.name, body: { content, tags: ["acme", "deal"] } });
    assert.equal(saved.status, "saved");
  } finally {
    await mcp.close();
  }
  const app = await h.openApp();
  try {
    const started = Date.now();
    const row = app.$(`//article[contains(@class,'row')][.//*[contains(normalize-space(), ${xpathString(marker)})]]`);
    await row.waitForExist({ timeout: 30000, interval: 250 });
    assert.ok(Date.now() - started <= 30000);
    assert.match(await row.getText(), /Confirmed in Claude Code/);
  } finally {
    await app.deleteSession();
  }
  assert.equal(h.memories().find((m) => m.id === saved.memory.id).confirmedVia, "elicitation");
});
