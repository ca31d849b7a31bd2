// The seed design's eval flow (memory-save-recall) against the meta face, driven by the
// official MCP TypeScript SDK: over stdio (`memory-bank mcp --meta`, the local bank) and
// over streamable HTTP (`memory-bank serve`'s /mcp/agent, with an agent token). The tool
// list is exactly the two meta tools; saving is discovered, then runs through the same
// confirmation as propose_memory (the person accepts in the client's form); a fresh MCP
// session recalls it by the person's phrasing; delete is discovered and confirmed too.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const BIN = process.env.MEMORY_BANK_BIN || path.join(repo, 'target/debug/memory-bank');

function json(result) {
  const text = result.content.map((c) => c.text).join('');
  assert.ok(text.length <= 10_000, `${text.length} characters`);
  return JSON.parse(text);
}

/** A client that declares elicitation and accepts every form as filled in by default. */
async function connect(transport) {
  const client = new Client({ name: 'seed-eval', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const content = {};
    for (const [name, schema] of Object.entries(request.params.requestedSchema.properties)) content[name] = schema.default;
    return { action: 'accept', content };
  });
  await client.connect(transport);
  return client;
}

/**
 * The eval, with `open()` making a fresh MCP session each time it is called. With
 * `personAccepts` (an agent token, which may only propose), a save or delete waits in
 * the Inbox even though the client's form said yes; the person accepts it there and
 * the agent follows the proposal to its end.
 */
async function evalFlow(open, personAccepts = null) {
  const marker = `acme-renewal-${Date.now()}`;
  let client = await open();
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['execute_capability', 'search_capabilities']);
  assert.equal(tools.find((t) => t.name === 'search_capabilities').annotations.readOnlyHint, true);
  assert.equal(tools.find((t) => t.name === 'execute_capability').annotations.destructiveHint, true);

  const found = json(await client.callTool({ name: 'search_capabilities', arguments: { query: 'save a memory to the memory bank', limit: 5 } }));
  const save = found.matches.find((m) => /memory/i.test(m.name) && /post/i.test(m.name) && m.hasBody);
  assert.ok(save, JSON.stringify(found));
  let saved = json(await client.callTool({
    name: 'execute_capability',
    arguments: { name: save.name, body: { content: `User's Acme account renews in Q3 at 5000 per month — marker ${marker}.`, tags: ['acme', 'deal'] } },
  }));
  if (personAccepts) saved = await acceptedInTheInbox(client, saved, personAccepts);
  assert.equal(saved.status, 'saved', JSON.stringify(saved));
  assert.match(saved.memory.id, /^mem_/);
  assert.equal(saved.memory.scope, 'user');
  await client.close();

  // Recall in a fresh MCP session, with the person's phrasing.
  client = await open();
  const searches = json(await client.callTool({ name: 'search_capabilities', arguments: { query: 'search memories', limit: 5 } }));
  const search = searches.matches.find((m) => /memory/i.test(m.name) && /search/i.test(m.name));
  assert.ok(search, JSON.stringify(searches));
  const recalled = json(await client.callTool({ name: 'execute_capability', arguments: { name: search.name, query: { q: 'Acme account renewal' } } }));
  const hit = recalled.results.find((r) => r.id === saved.memory.id);
  assert.ok(hit, JSON.stringify(recalled));
  assert.ok(hit.content.includes(marker));

  // Errors say what to do.
  const unknown = await client.callTool({ name: 'execute_capability', arguments: { name: 'memory_save' } });
  assert.equal(unknown.isError, true);
  assert.equal(json(unknown).error, 'unknown_capability');
  const none = json(await client.callTool({ name: 'search_capabilities', arguments: { query: 'zzzqqq' } }));
  assert.deepEqual(none.matches, []);
  assert.equal(none.hint, 'No matches. Try broader or different keywords.');
  // Words that name no action find nothing either (not every summary with "this" in it).
  const unrelated = json(await client.callTool({ name: 'search_capabilities', arguments: { query: 'zzqx nothing like this' } }));
  assert.deepEqual(unrelated.matches, []);

  // Cleanup: discover delete and run it (the person confirms in the form).
  const deletes = json(await client.callTool({ name: 'search_capabilities', arguments: { query: 'delete memory' } }));
  const remove = deletes.matches.find((m) => m.name === 'deleteMemoryById');
  assert.deepEqual(remove.pathParams, ['id']);
  let gone = json(await client.callTool({ name: 'execute_capability', arguments: { name: remove.name, path: { id: saved.memory.id } } }));
  if (personAccepts) gone = await acceptedInTheInbox(client, gone, personAccepts);
  assert.equal(gone.status, 'deleted');
  const after = json(await client.callTool({ name: 'execute_capability', arguments: { name: search.name, query: { q: marker } } }));
  assert.ok(!after.results.some((r) => r.id === saved.memory.id));
  await client.close();
  return saved.memory;
}

/** A pending answer, accepted by the person, followed with getProposalsById. */
async function acceptedInTheInbox(client, answer, personAccepts) {
  assert.equal(answer.status, 'pending', `an agent token never confirms: ${JSON.stringify(answer)}`);
  const before = json(await client.callTool({ name: 'execute_capability', arguments: { name: 'getProposalsById', path: { id: answer.proposalId } } }));
  assert.equal(before.status, 'pending');
  await personAccepts(answer.proposalId);
  const after = json(await client.callTool({ name: 'execute_capability', arguments: { name: 'getProposalsById', path: { id: answer.proposalId } } }));
  assert.equal(after.status, 'accepted', JSON.stringify(after));
  return after.action === 'delete' ? { status: 'deleted' } : { status: 'saved', memory: after.memory };
}

describe('the meta face over stdio (memory-bank mcp --meta)', () => {
  let dir;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-bank-meta-'));
    fs.mkdirSync(path.join(dir, 'home'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('the seed eval flow passes', async () => {
    const env = { HOME: path.join(dir, 'home'), PATH: process.env.PATH ?? '/usr/bin:/bin', MEMORY_BANK_DATA_DIR: path.join(dir, 'data') };
    await evalFlow(() => connect(new StdioClientTransport({ command: BIN, args: ['mcp', '--meta'], env, stderr: 'ignore' })));
  });
});

describe('the meta face over streamable HTTP (serve /mcp/agent)', () => {
  let dir;
  let service;
  let url;
  let agent;
  let person;
  let org;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-bank-meta-http-'));
    const env = { ...process.env, MEMORY_BANK_DATABASE_URL: `sqlite://${dir}/service.db` };
    const admin = (...args) => execFileSync(BIN, ['admin', ...args], { env }).toString().trim();
    const user = admin('user', 'add', 'ada@example.com');
    org = admin('org', 'add', 'Acme');
    admin('member', 'add', org, user);
    agent = admin('token', 'issue', user, '--agent');
    person = admin('token', 'issue', user);
    service = spawn(BIN, ['serve', '--listen', '127.0.0.1:0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    url = await new Promise((resolve, reject) => {
      let seen = '';
      service.stderr.on('data', (chunk) => {
        seen += chunk;
        const match = /serving (http:\/\/[\d.:]+) /.exec(seen);
        if (match) resolve(match[1]);
      });
      service.on('exit', (code) => reject(new Error(`serve exited ${code}: ${seen}`)));
    });
  });
  after(() => {
    service?.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the seed eval flow passes with an agent token, the person accepting in the Inbox', async () => {
    const open = () => connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp/agent`), {
      requestInit: { headers: { Authorization: `Bearer ${agent}` } },
    }));
    const personAccepts = async (id) => {
      const response = await fetch(`${url}/v1/proposals/${id}/accept`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${person}`, 'x-org-id': org },
        body: '{}',
      });
      assert.equal(response.status, 200, await response.text());
    };
    await evalFlow(open, personAccepts);
  });

  test('with a full token the person confirms in the client form', async () => {
    const open = () => connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp/agent`), {
      requestInit: { headers: { Authorization: `Bearer ${person}` } },
    }));
    await evalFlow(open);
  });

  test('without a valid token the MCP endpoints answer 401 in the JSON error shape', async () => {
    for (const endpoint of ['/mcp', '/mcp/agent']) {
      const response = await fetch(`${url}${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer mbk_wrong' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
      });
      assert.equal(response.status, 401, endpoint);
      assert.deepEqual(await response.json(), { error: 'unauthorized' });
    }
  });

  test('/mcp serves the memory tools and no session tools', async () => {
    const client = await connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${agent}` } },
    }));
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['delete_memory', 'list_memories', 'proposal_status', 'propose_edit', 'propose_memory', 'search_memories']);
    await client.close();
  });
});
