// The memory tools of `memory-bank mcp`, driven over stdio by the official MCP TypeScript
// SDK: once by a client that declares elicitation (accept, edited accept, decline, and a
// delete confirmed in the form), over the person's local bank; once by a client without
// it, over a real `memory-bank serve` with an agent token, where a proposal waits until
// the person accepts it through the service and proposal_status then says so.
//
// Run: npm test (in this folder), after `cargo build -p memory-bank`.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const BIN = process.env.MEMORY_BANK_BIN || path.join(repo, 'target/debug/memory-bank');
const BUDGET = 10_000;

/** The JSON a tool answered (structured content, which must equal the text content). */
function json(result) {
  const text = result.content.map((c) => c.text).join('');
  assert.ok(text.length <= BUDGET, `${text.length} characters`);
  assert.deepEqual(JSON.parse(text), result.structuredContent);
  return result.structuredContent;
}

async function connect(env, { elicit } = {}) {
  const client = new Client({ name: 'sdk-test-client', version: '1.0.0' }, { capabilities: elicit ? { elicitation: {} } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
  const transport = new StdioClientTransport({ command: BIN, args: ['mcp'], env, stderr: 'ignore' });
  await client.connect(transport);
  return client;
}

// The embedding model as scripts/fetch-model.sh leaves it (scripts/test.sh runs it first).
const MODEL_DIR = process.env.MEMORY_BANK_MODEL_DIR || path.join(os.homedir(), '.cache/memory-bank/model/all-minilm-l6-v2');

describe('search by meaning, with the real model', () => {
  let dir;
  let client;
  const answers = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-bank-mcp-meaning-'));
    assert.ok(fs.existsSync(path.join(MODEL_DIR, 'tokenizer.json')), `the model is missing from ${MODEL_DIR}: run scripts/fetch-model.sh`);
    const env = {
      HOME: path.join(dir, 'home'), PATH: process.env.PATH ?? '/usr/bin:/bin', MEMORY_BANK_DATA_DIR: path.join(dir, 'data'),
      MEMORY_BANK_MODEL_DIR: MODEL_DIR,
    };
    fs.mkdirSync(env.HOME);
    client = await connect(env, { elicit: async () => answers.shift() ?? { action: 'cancel' } });
  });

  after(async () => {
    await client?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a question in other words finds the memory and says it matched its meaning', async () => {
    for (const content of ['My daughter is allergic to peanuts', 'Deploys to production happen on Tuesdays']) {
      answers.push({ action: 'accept', content: { content, tags: '' } });
      assert.equal(json(await client.callTool({ name: 'propose_memory', arguments: { content } })).status, 'saved');
    }
    const byMeaning = json(await client.callTool({ name: 'search_memories', arguments: { query: 'Which food allergies are in the family?' } }));
    assert.deepEqual(byMeaning.results.map((r) => [r.content, r.matched])[0], ['My daughter is allergic to peanuts', 'meaning']);
    const byBoth = json(await client.callTool({ name: 'search_memories', arguments: { query: 'when do we deploy to production?' } }));
    assert.deepEqual(byBoth.results.map((r) => [r.content, r.matched])[0], ['Deploys to production happen on Tuesdays', 'both']);
    const nonsense = json(await client.callTool({ name: 'search_memories', arguments: { query: 'zzqx flurble wibblewomp' } }));
    assert.deepEqual(nonsense.results, [], 'nonsense finds nothing by meaning');
  });
});

describe('with elicitation, over the local bank', () => {
  let dir;
  let client;
  const answers = [];
  const asked = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-bank-mcp-elicit-'));
    const env = { HOME: path.join(dir, 'home'), PATH: process.env.PATH ?? '/usr/bin:/bin', MEMORY_BANK_DATA_DIR: path.join(dir, 'data') };
    fs.mkdirSync(env.HOME);
    client = await connect(env, {
      elicit: async (request) => {
        asked.push(request.params);
        return answers.shift() ?? { action: 'cancel' };
      },
    });
  });

  after(async () => {
    await client?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the tool list names every memory tool with its annotations', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const name of ['search_memories', 'list_memories', 'proposal_status']) assert.equal(byName[name].annotations.readOnlyHint, true, name);
    assert.equal(byName.propose_memory.annotations.readOnlyHint, false);
    assert.equal(byName.delete_memory.annotations.destructiveHint, true);
  });

  test('accepted unchanged: saved as drafted, confirmed in the client', async () => {
    answers.push({ action: 'accept', content: { content: 'Ada prefers green tea', tags: 'drinks' } });
    const result = json(await client.callTool({
      name: 'propose_memory',
      arguments: { content: 'Ada prefers green tea', tags: ['drinks'], snippet: 'I always drink green tea', sessionId: 'sess-1', messageId: 'm7' },
    }));
    assert.equal(result.status, 'saved');
    assert.match(result.memory.id, /^mem_/);
    assert.equal(result.memory.confirmedVia, 'elicitation');
    assert.equal(result.memory.proposedBy, 'sdk-test-client');
    assert.deepEqual(result.memory.contexts[0].citation, { conversationId: 'sess-1', messageId: 'm7' });
    // The form showed the draft, editable, and what it cites.
    const form = asked.at(-1);
    assert.equal(form.requestedSchema.properties.content.default, 'Ada prefers green tea');
    assert.match(form.message, /I always drink green tea/);
  });

  test('accepted with an edit: exactly the edited sentence is saved', async () => {
    answers.push({ action: 'accept', content: { content: 'Ada takes her tea without sugar', tags: 'drinks, habits' } });
    const result = json(await client.callTool({ name: 'propose_memory', arguments: { content: 'Ada likes tea with sugar' } }));
    assert.equal(result.status, 'saved');
    assert.equal(result.memory.content, 'Ada takes her tea without sugar');
    assert.deepEqual(result.memory.tags, ['drinks', 'habits']);
    const found = json(await client.callTool({ name: 'search_memories', arguments: { query: 'sugar' } }));
    assert.deepEqual(found.results.map((r) => r.content), ['Ada takes her tea without sugar']);
  });

  test('search finds other forms of a word and says why each result matched', async () => {
    answers.push({ action: 'accept', content: { content: 'Deploys to production happen on Tuesdays', tags: '' } });
    assert.equal(json(await client.callTool({ name: 'propose_memory', arguments: { content: 'Deploys to production happen on Tuesdays' } })).status, 'saved');
    for (const query of ['deploy', 'when does the team deploy?']) {
      const found = json(await client.callTool({ name: 'search_memories', arguments: { query } }));
      assert.deepEqual(found.results.map((r) => [r.content, r.matched]), [['Deploys to production happen on Tuesdays', 'words']], query);
    }
  });

  test('the recall and remember-this prompts, as a client that shows prompts gets them', async () => {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), ['recall', 'remember-this']);
    const recall = prompts.find((p) => p.name === 'recall');
    assert.deepEqual(recall.arguments.map((a) => [a.name, a.required]), [['topic', true]]);
    const got = await client.getPrompt({ name: 'recall', arguments: { topic: 'deploying' } });
    const text = got.messages.map((m) => m.content.text).join('');
    assert.equal(got.messages[0].role, 'user');
    assert.match(text, /- Deploys to production happen on Tuesdays \[mem_/);
    assert.doesNotMatch(text, /tea/);
    const remember = await client.getPrompt({ name: 'remember-this', arguments: { what: 'the team deploys on Tuesdays' } });
    assert.match(remember.messages[0].content.text, /propose_memory/);
    await assert.rejects(client.getPrompt({ name: 'recall', arguments: { topic: '' } }));
  });

  test('declined or cancelled: nothing is saved', async () => {
    answers.push({ action: 'decline' });
    assert.equal(json(await client.callTool({ name: 'propose_memory', arguments: { content: 'Ada hates marmalade' } })).status, 'declined');
    answers.push({ action: 'cancel' });
    assert.equal(json(await client.callTool({ name: 'propose_memory', arguments: { content: 'Ada hates marmalade' } })).status, 'declined');
    const found = json(await client.callTool({ name: 'search_memories', arguments: { query: 'marmalade' } }));
    assert.deepEqual(found.results, []);
    assert.match(found.hint, /nothing was found/);
  });

  test('long memories stay within the budget: fewer results, a hint, and pages that continue', async () => {
    for (let i = 0; i < 8; i++) {
      const long = `walrus fact ${i} ${'the walrus sleeps on the ice and dreams of fish '.repeat(160)}`.slice(0, 7990);
      answers.push({ action: 'accept', content: { content: long, tags: '' } });
      assert.equal(json(await client.callTool({ name: 'propose_memory', arguments: { content: long } })).status, 'saved');
    }
    const found = json(await client.callTool({ name: 'search_memories', arguments: { query: 'walrus', limit: 50 } }));
    assert.ok(found.results.length >= 1 && found.results.length < 8, `${found.results.length} results`);
    assert.match(found.hint, /more results were left out/);
    assert.ok(found.results.every((r) => r.truncated === true && r.content.length <= 2000));
    // list_memories pages by the budget too, and its pages add up to every memory.
    const ids = new Set();
    let cursor;
    let pages = 0;
    do {
      const page = json(await client.callTool({ name: 'list_memories', arguments: { limit: 50, ...(cursor ? { cursor } : {}) } }));
      for (const m of page.memories) ids.add(m.id);
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor);
    assert.ok(pages > 1, 'the budget split the list');
    assert.equal(ids.size, 11, "the 8 long ones and the 3 saved before");
    const bad = await client.callTool({ name: 'search_memories', arguments: { query: 'walrus', limit: 51 } });
    assert.equal(bad.isError, true);
    assert.match(bad.structuredContent.message, /limit must be from 1 to 50/);
  });

  test('a delete is asked in the form, and a secret is refused before anything is stored', async () => {
    const listed = json(await client.callTool({ name: 'search_memories', arguments: { query: 'green tea' } }));
    const id = listed.results.find((m) => m.content === 'Ada prefers green tea').id;
    answers.push({ action: 'decline' });
    assert.equal(json(await client.callTool({ name: 'delete_memory', arguments: { id } })).status, 'declined');
    answers.push({ action: 'accept', content: { delete: true } });
    assert.equal(json(await client.callTool({ name: 'delete_memory', arguments: { id } })).status, 'deleted');
    const after = json(await client.callTool({ name: 'search_memories', arguments: { query: 'green tea' } }));
    assert.ok(!after.results.some((m) => m.id === id));

    const before = asked.length;
    const secret = await client.callTool({ name: 'propose_memory', arguments: { content: 'the key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345' } });
    assert.equal(secret.isError, true);
    assert.match(JSON.stringify(secret.structuredContent), /Anthropic API key/);
    assert.equal(asked.length, before, 'nobody was asked about a secret');
    const missing = await client.callTool({ name: 'delete_memory', arguments: { id: 'mem_nope' } });
    assert.equal(missing.isError, true);
    assert.match(missing.structuredContent.message, /search_memories or list_memories/);
  });
});

describe('without elicitation, over a memory service with an agent token', () => {
  let dir;
  let service;
  let url;
  let person;
  let org;
  let agentClient;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-bank-mcp-inbox-'));
    const db = { ...process.env, MEMORY_BANK_DATABASE_URL: `sqlite://${dir}/service.db` };
    const admin = (...args) => execFileSync(BIN, ['admin', ...args], { env: db }).toString().trim();
    const user = admin('user', 'add', 'ada@example.com');
    org = admin('org', 'add', 'Acme');
    admin('member', 'add', org, user);
    person = admin('token', 'issue', user);
    const agent = admin('token', 'issue', user, '--agent');
    service = spawn(BIN, ['serve', '--listen', '127.0.0.1:0'], { env: db, stdio: ['ignore', 'ignore', 'pipe'] });
    url = await new Promise((resolve, reject) => {
      let seen = '';
      service.stderr.on('data', (chunk) => {
        seen += chunk;
        const match = /serving (http:\/\/[\d.:]+) /.exec(seen);
        if (match) resolve(match[1]);
      });
      service.on('exit', (code) => reject(new Error(`serve exited ${code}: ${seen}`)));
    });
    agentClient = await connect({
      HOME: dir, PATH: process.env.PATH ?? '/usr/bin:/bin', MEMORY_BANK_URL: url, MEMORY_BANK_TOKEN: agent, MEMORY_BANK_ORG: org,
    });
  });

  after(async () => {
    await agentClient?.close();
    service?.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a proposal waits for the person, then proposal_status says accepted', async () => {
    const proposed = json(await agentClient.callTool({ name: 'propose_memory', arguments: { content: 'The Acme renewal is in Q3', tags: ['acme'] } }));
    assert.equal(proposed.status, 'pending');
    assert.match(proposed.proposalId, /^prop_/);
    assert.match(proposed.message, /Memory Bank/);
    assert.equal(json(await agentClient.callTool({ name: 'proposal_status', arguments: { proposalId: proposed.proposalId } })).status, 'pending');
    const before = json(await agentClient.callTool({ name: 'search_memories', arguments: { query: 'Acme renewal' } }));
    assert.deepEqual(before.results, [], 'not saved before the person accepts');

    // The person accepts in the app: the app's route, with the person's own token.
    const response = await fetch(`${url}/v1/proposals/${proposed.proposalId}/accept`, {
      method: 'POST',
      headers: { authorization: `Bearer ${person}`, 'x-org-id': org, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'The Acme renewal is in Q3, at 5000 a month' }),
    });
    assert.equal(response.status, 200);
    const status = json(await agentClient.callTool({ name: 'proposal_status', arguments: { proposalId: proposed.proposalId } }));
    assert.equal(status.status, 'accepted');
    assert.equal(status.memory.content, 'The Acme renewal is in Q3, at 5000 a month');
    assert.equal(status.memory.confirmedVia, 'app');
    const found = json(await agentClient.callTool({ name: 'search_memories', arguments: { query: 'Acme renewal' } }));
    assert.equal(found.results.length, 1);
  });

  test('a delete waits in the Inbox too, and the agent token cannot bypass it over HTTP', async () => {
    const listed = json(await agentClient.callTool({ name: 'list_memories', arguments: { limit: 5 } }));
    const id = listed.memories[0].id;
    const asked = json(await agentClient.callTool({ name: 'delete_memory', arguments: { id } }));
    assert.equal(asked.status, 'pending');
    const still = json(await agentClient.callTool({ name: 'list_memories', arguments: { limit: 5 } }));
    assert.ok(still.memories.some((m) => m.id === id), 'not deleted before the person accepts');
    const bad = await agentClient.callTool({ name: 'list_memories', arguments: { limit: 500 } });
    assert.equal(bad.isError, true);
  });
});

describe('two agents on one local bank', () => {
  test('two memory-bank mcp processes writing at once lose nothing', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-bank-mcp-two-'));
    const env = { HOME: dir, PATH: process.env.PATH ?? '/usr/bin:/bin', MEMORY_BANK_DATA_DIR: path.join(dir, 'data') };
    const accept = async (request) => ({ action: 'accept', content: { content: request.params.requestedSchema.properties.content.default } });
    const [a, b] = await Promise.all([connect(env, { elicit: accept }), connect(env, { elicit: accept })]);
    try {
      const write = async (client, who) => {
        for (let i = 0; i < 25; i++) {
          const saved = json(await client.callTool({ name: 'propose_memory', arguments: { content: `${who} noted fact ${i}` } }));
          assert.equal(saved.status, 'saved');
        }
      };
      await Promise.all([write(a, 'first'), write(b, 'second')]);
      let seen = 0;
      let cursor;
      do {
        const page = json(await a.callTool({ name: 'list_memories', arguments: { limit: 50, ...(cursor ? { cursor } : {}) } }));
        seen += page.memories.length;
        cursor = page.nextCursor;
      } while (cursor);
      assert.equal(seen, 50);
    } finally {
      await Promise.all([a.close(), b.close()]);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
