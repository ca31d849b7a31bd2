// The session tools of `memory-bank mcp`, driven over stdio by the official MCP TypeScript
// SDK (a client nobody on this project wrote): the tool list and annotations, each tool's
// shape, paging that adds up, the 10 000-character bound on a 520-message session and a
// 1 MB message, and errors as `isError` results.
//
// Run: npm test (in this folder), after `cargo build -p memory-bank`. MEMORY_BANK_BIN
// points at another binary (default: ../../target/debug/memory-bank).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const BIN = process.env.MEMORY_BANK_BIN || path.join(repo, 'target/debug/memory-bank');
const FIXTURES = path.join(repo, 'crates/sessions/tests/fixtures');
const BUDGET = 10_000;

const SHOP = '5b0e8a52-1f0c-4c0e-9a53-6f3f1d7a2b10';
const LONG = 'aaaaaaaa-0000-4000-8000-000000000520';
const HUGE = 'bbbbbbbb-0000-4000-8000-000000000001';
const SESSION_TOOLS = ['latest_message', 'list_sessions', 'open_session', 'read_transcript', 'search_sessions'];

let dir;
let client;

/** One Claude Code record. */
function record(kind, cwd, uuid, text, timestamp) {
  const message = kind === 'user'
    ? { role: 'user', content: text }
    : { id: `msg_${uuid}`, role: 'assistant', content: [{ type: 'text', text }] };
  return JSON.stringify({ type: kind, uuid, cwd, timestamp, message });
}

function writeSession(home, project, id, lines) {
  const folder = path.join(home, '.claude/projects', project);
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, `${id}.jsonl`), lines.join('\n') + '\n');
}

/** A home with every tool's fixture sessions, a 520-message session and a 1 MB message. */
function makeHome() {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-bank-mcp-sdk-'));
  const home = path.join(dir, 'home');
  const copy = (from, to) => fs.cpSync(path.join(FIXTURES, from), path.join(home, to), { recursive: true });
  copy('claude', '.claude');
  copy('codex/home', '.codex');
  copy('gemini/home/.gemini', '.gemini');
  copy('opencode/json-tree/storage', '.local/share/opencode/storage');
  const pad = (n) => String(n).padStart(2, '0');
  const long = [];
  for (let i = 0; i < 520; i++) {
    const text = `message ${i}${i % 10 === 3 ? ' marmot' : ''} ${'lorem ipsum "quoted" dolor '.repeat(55)}`;
    long.push(record(i % 2 ? 'assistant' : 'user', '/work/long', `m${i}`, text,
      `2026-11-25T10:${pad(Math.floor(i / 60))}:${pad(i % 60)}.000Z`));
  }
  writeSession(home, '-work-long', LONG, long);
  const huge = `${'x'.repeat(500_000)} platypus ${'y\n'.repeat(250_000)}`;
  writeSession(home, '-work-huge', HUGE, [
    record('user', '/work/huge', 'h1', huge, '2026-11-26T09:00:00.000Z'),
    record('assistant', '/work/huge', 'h2', `echo: ${huge}`, '2026-11-26T09:00:01.000Z'),
  ]);
  return home;
}

before(async () => {
  assert.ok(fs.existsSync(BIN), `${BIN} is missing: run cargo build -p memory-bank, or set MEMORY_BANK_BIN`);
  const home = makeHome();
  const transport = new StdioClientTransport({
    command: BIN,
    args: ['mcp'],
    env: { HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin', MEMORY_BANK_DATA_DIR: path.join(dir, 'data') },
    stderr: 'ignore',
  });
  client = new Client({ name: 'memory-bank-sdk-test', version: '1.0.0' });
  await client.connect(transport);
});

after(async () => {
  await client?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Calls a tool; checks the text is the structured JSON, within the budget. */
async function call(name, args = {}) {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.content.length, 1);
  assert.equal(result.content[0].type, 'text');
  const text = result.content[0].text;
  assert.ok(text.length <= BUDGET, `${name}: ${text.length} characters`);
  assert.ok(Buffer.byteLength(text) <= BUDGET, `${name}: ${Buffer.byteLength(text)} bytes`);
  const json = JSON.parse(text);
  assert.deepEqual(result.structuredContent, json, 'text and structuredContent agree');
  return { isError: result.isError === true, json };
}

async function ok(name, args) {
  const { isError, json } = await call(name, args);
  assert.equal(isError, false, `${name} ${JSON.stringify(args)}: ${JSON.stringify(json)}`);
  return json;
}

async function fails(name, args) {
  const { isError, json } = await call(name, args);
  assert.equal(isError, true, `${name} ${JSON.stringify(args)} should fail`);
  assert.deepEqual(Object.keys(json).sort(), ['error', 'message']);
  return json;
}

const keys = (o) => Object.keys(o).sort();

test('the server lists the five session tools, read-only', async () => {
  assert.equal(client.getServerVersion().name, 'memory-bank');
  const { tools } = await client.listTools();
  const sessionTools = tools.filter((t) => SESSION_TOOLS.includes(t.name));
  assert.deepEqual(sessionTools.map((t) => t.name).sort(), SESSION_TOOLS);
  for (const tool of sessionTools) {
    assert.deepEqual(
      [tool.annotations.readOnlyHint, tool.annotations.destructiveHint, tool.annotations.idempotentHint, tool.annotations.openWorldHint],
      [true, false, true, false],
      tool.name,
    );
    assert.equal(tool.inputSchema.type, 'object');
  }
  const list = tools.find((t) => t.name === 'list_sessions');
  assert.equal(list.inputSchema.properties.limit.maximum, 100);
  const read = tools.find((t) => t.name === 'read_transcript');
  assert.deepEqual(read.inputSchema.required, ['sessionId']);
});

test('list_sessions pages add up to total', async () => {
  const first = await ok('list_sessions', {});
  assert.deepEqual(keys(first), ['nextCursor', 'sessions', 'total']);
  assert.deepEqual(keys(first.sessions[0]), ['createdAt', 'messageCount', 'sessionId', 'source', 'title', 'updatedAt', 'workspace']);
  const ids = [];
  let cursor;
  do {
    const page = await ok('list_sessions', { limit: 3, ...(cursor ? { cursor } : {}) });
    assert.equal(page.total, first.total);
    assert.ok(page.sessions.length <= 3);
    ids.push(...page.sessions.map((s) => s.sessionId));
    cursor = page.nextCursor;
  } while (cursor);
  assert.equal(ids.length, first.total);
  assert.equal(new Set(ids).size, ids.length);
  for (const source of ['claude-code', 'codex', 'opencode', 'gemini']) {
    const only = await ok('list_sessions', { source });
    assert.ok(only.sessions.length > 0 && only.sessions.every((s) => s.source === source), source);
  }
});

test('open_session, read_transcript and latest_message answer with their shapes', async () => {
  const open = await ok('open_session', { sessionId: SHOP });
  assert.deepEqual(keys(open), ['createdAt', 'firstMessages', 'lastMessages', 'messageCount', 'sessionId', 'source', 'title', 'updatedAt', 'workspace']);
  assert.equal(open.title, 'Client migration');
  assert.deepEqual([...open.firstMessages, ...open.lastMessages].map((m) => m.index), [0, 1, 2, 3, 4]);
  const read = await ok('read_transcript', { sessionId: SHOP, count: 2 });
  assert.deepEqual(keys(read), ['messageCount', 'messages', 'olderBefore', 'returned', 'sessionId', 'title']);
  assert.deepEqual(keys(read.messages[0]), ['index', 'messageId', 'role', 'text', 'truncated']);
  assert.deepEqual([read.messageCount, read.returned, read.olderBefore], [5, 2, 3]);
  const latest = await ok('latest_message', { sessionId: SHOP });
  assert.deepEqual(keys(latest), ['index', 'messageId', 'role', 'sessionId', 'text', 'truncated']);
  assert.deepEqual([latest.index, latest.role, latest.text, latest.truncated], [4, 'assistant', "You're welcome.", false]);
});

test('a 520-message session reads back in bounded pages', async () => {
  const seen = [];
  let before;
  for (;;) {
    const page = await ok('read_transcript', { sessionId: LONG, count: 30, maxCharsPerMessage: 20000, ...(before === undefined ? {} : { before }) });
    assert.equal(page.messageCount, 520);
    assert.ok(page.returned > 0 && page.returned < 30, `returned ${page.returned}`);
    seen.push(...page.messages.map((m) => m.index).reverse());
    if (page.olderBefore === undefined) break;
    assert.equal(page.olderBefore, page.messages[0].index);
    before = page.olderBefore;
  }
  assert.deepEqual(seen, Array.from({ length: 520 }, (_, i) => 519 - i));
});

test('a 1 MB message is cut, never over the budget', async () => {
  const latest = await ok('latest_message', { sessionId: HUGE });
  assert.equal(latest.truncated, true);
  const read = await ok('read_transcript', { sessionId: HUGE, maxCharsPerMessage: 20000 });
  assert.equal(read.messages.length, 1);
  assert.equal(read.messages[0].truncated, true);
  const open = await ok('open_session', { sessionId: HUGE });
  assert.ok(open.title.length <= 200);
  const { hits } = await ok('search_sessions', { query: 'platypus' });
  assert.equal(hits.length, 2);
  assert.ok(hits.every((h) => h.snippet.length <= 300 && h.snippet.includes('platypus')));
});

test('search_sessions pages follow each other', async () => {
  const first = await ok('search_sessions', { query: '客户迁移' });
  assert.deepEqual(keys(first), ['hits', 'nextCursor']);
  assert.deepEqual(keys(first.hits[0]), ['index', 'messageId', 'role', 'sessionId', 'snippet', 'source', 'title']);
  const ids = [];
  let cursor;
  do {
    const page = await ok('search_sessions', { query: 'marmot', limit: 30, ...(cursor ? { cursor } : {}) });
    ids.push(...page.hits.map((h) => h.messageId));
    cursor = page.nextCursor;
  } while (cursor);
  const expected = Array.from({ length: 520 }, (_, i) => 519 - i).filter((i) => i % 10 === 3).map((i) => `m${i}`);
  assert.deepEqual(ids, expected);
  const none = await ok('search_sessions', { query: 'marmot', source: 'gemini' });
  assert.deepEqual([none.hits, none.nextCursor], [[], null]);
});

test('errors are isError results that tell the agent what to do', async () => {
  const missing = await fails('open_session', { sessionId: 'no-such-session' });
  assert.equal(missing.error, 'session_not_found');
  assert.match(missing.message, /call list_sessions to find the id/);
  assert.match((await fails('list_sessions', { limit: 0 })).message, /from 1 to 100/);
  assert.match((await fails('search_sessions', { query: 'x', limit: 31 })).message, /from 1 to 30/);
  assert.match((await fails('read_transcript', { sessionId: SHOP, count: 31 })).message, /from 1 to 30/);
  assert.match((await fails('read_transcript', { sessionId: SHOP, maxCharsPerMessage: 50 })).message, /from 200 to 20000/);
  assert.match((await fails('list_sessions', { cursor: 'not-a-cursor' })).message, /nextCursor/);
  // An unknown tool is a protocol error, and the server keeps serving.
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }));
  assert.equal((await ok('latest_message', { sessionId: SHOP })).index, 4);
});
