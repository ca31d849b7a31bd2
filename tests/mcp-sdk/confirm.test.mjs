// A confirmation belongs to the person who was asked, driven by the official MCP
// TypeScript SDK: over `serve`'s /mcp, a session (and every form sent on it) answers only
// the token and org that opened it; over stdio and HTTP, what the person types into the
// form passes the same secret check as every save.
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
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const BIN = process.env.MEMORY_BANK_BIN || path.join(repo, 'target/debug/memory-bank');

const json = (result) => JSON.parse(result.content.map((c) => c.text).join(''));

/** A client that declares forms and answers each with `answer(request)`. */
async function connect(transport, answer) {
  const client = new Client({ name: 'sdk-confirm-client', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, answer);
  await client.connect(transport);
  return client;
}

const SECRETS = [
  'The deploy key is AKIAQWERTYUIOPASDFGH',
  'hidden AKIAQWERTY\u200bUIOPASDFGH in it',
  '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA',
];

describe('a secret typed into the form, over stdio on the local bank', () => {
  test('is refused: nothing saved, the proposal waits in the Inbox', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-bank-sdk-confirm-'));
    const env = { HOME: dir, PATH: process.env.PATH ?? '/usr/bin:/bin', MEMORY_BANK_DATA_DIR: path.join(dir, 'data') };
    let typed = '';
    const client = await connect(
      new StdioClientTransport({ command: BIN, args: ['mcp'], env, stderr: 'ignore' }),
      async () => ({ action: 'accept', content: { content: typed, tags: '' } }),
    );
    try {
      for (const secret of SECRETS) {
        typed = secret;
        const result = await client.callTool({ name: 'propose_memory', arguments: { content: 'A harmless draft' } });
        const answer = json(result);
        assert.equal(result.isError, true, JSON.stringify(answer));
        assert.equal(answer.status, 'pending');
        assert.match(answer.message, /refused/);
      }
      const listed = json(await client.callTool({ name: 'list_memories', arguments: {} }));
      assert.deepEqual(listed.memories, []);
    } finally {
      await client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sessions over serve /mcp', () => {
  let dir;
  let service;
  let url;
  let ada;
  let adaAgent;
  let bob;
  let org;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-bank-sdk-sessions-'));
    const env = { ...process.env, MEMORY_BANK_DATABASE_URL: `sqlite://${dir}/service.db` };
    const admin = (...args) => execFileSync(BIN, ['admin', ...args], { env }).toString().trim();
    const adaId = admin('user', 'add', 'ada@example.com');
    const bobId = admin('user', 'add', 'bob@example.com');
    org = admin('org', 'add', 'Acme');
    const beta = admin('org', 'add', 'Beta');
    admin('member', 'add', org, adaId);
    admin('member', 'add', beta, bobId);
    ada = admin('token', 'issue', adaId);
    adaAgent = admin('token', 'issue', adaId, '--agent');
    bob = admin('token', 'issue', bobId);
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

  const transport = (token, sessionId) =>
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { sessionId, requestInit: { headers: { Authorization: `Bearer ${token}` } } });

  test("another token that knows the session id is answered as for no session at all", async () => {
    const own = transport(ada);
    const client = await connect(own, async () => ({ action: 'decline' }));
    try {
      assert.ok(own.sessionId, 'the SDK negotiated a session');
      for (const stranger of [bob, adaAgent]) {
        const hijack = transport(stranger, own.sessionId);
        await hijack.start();
        await assert.rejects(
          hijack.send({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
          (error) => error.code === 404,
          'a stranger used the session',
        );
        await assert.rejects(hijack.terminateSession(), (error) => error.code === 404, 'a stranger ended the session');
        await hijack.close();
      }
      // The owner's session is untouched.
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'propose_memory'));
    } finally {
      await client.close();
    }
  });

  test('a secret typed into the form over HTTP is refused too', async () => {
    const client = await connect(transport(ada), async () => ({ action: 'accept', content: { content: SECRETS[1], tags: '' } }));
    try {
      const result = await client.callTool({ name: 'propose_memory', arguments: { content: 'A harmless draft' } });
      const answer = json(result);
      assert.equal(answer.status, 'pending', JSON.stringify(answer));
      assert.match(answer.message, /refused/);
      const response = await fetch(`${url}/v1/memory`, { headers: { authorization: `Bearer ${ada}`, 'x-org-id': org } });
      assert.deepEqual((await response.json()).memories, []);
    } finally {
      await client.close();
    }
  });
});
