// Benchmark of `memory-bank mcp` over stdio (issue 13), driven by ONE client, the official
// MCP TypeScript SDK, beside basic-memory's MCP server (`basic-memory mcp`, PyPI) in the
// same run with the same client, the same sentences and the same queries. Not a test: CI
// does not run it (scripts/test.sh runs only tests/*). Results: BENCHMARKS.md, "MCP
// (issue 13)".
//
// Measures:
//   1. spawn-to-initialized of `memory-bank mcp` (empty data folder, and the full one:
//      10^5 memories + the 2 GB session history with its index built), and of basic-memory;
//   2. search_memories p50/p95 at 10^3, 10^4, 10^5 memories (rare / mid / very common
//      terms), and basic-memory's search_notes at 10^3 and 10^4 notes with the same terms;
//   3. read_transcript on the 1 GB Claude Code session of sessions-bench's history.
//
// Data, made beforehand (see BENCHMARKS.md for the exact commands):
//   $DATA/bank-{1000,10000,100000}/memory.db   memory-bank-bench --load-local-bank
//   $DATA/corpus.jsonl, $DATA/queries.json      the same run's --corpus-out / --queries-out
//   $SESSIONS/home, $SESSIONS/manifest.txt      sessions-bench --generate-only
// basic-memory's notes, config and database go to $DATA/peer-<n>/ (recreated each run).
//
// Run: node bench.mjs [--only ours|peer] [--spawns 30] [--peer-spawns 15]
//      [--queries 300] [--peer-queries 100] [--calls 200] [--peer-sizes 1000,10000]

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const { values: opt } = parseArgs({
  options: {
    only: { type: 'string' },
    spawns: { type: 'string', default: '30' },
    'peer-spawns': { type: 'string', default: '15' },
    queries: { type: 'string', default: '300' },
    'peer-queries': { type: 'string', default: '100' },
    calls: { type: 'string', default: '200' },
    'peer-sizes': { type: 'string', default: '1000,10000' },
    'peer-index-timeout-min': { type: 'string', default: '15' },
  },
});
const BIN = process.env.MEMORY_BANK_BIN || '/work/target-bench/release/memory-bank';
const PEER = process.env.BASIC_MEMORY_BIN || '/work/bench-venv/bin/basic-memory';
const DATA = process.env.BENCH_DATA || '/work/bench-data/mcp';
const SESSIONS = process.env.BENCH_SESSIONS || '/work/bench-data/sessions';
const PATH_ENV = process.env.PATH ?? '/usr/bin:/bin';
const CLASSES = ['rare', 'mid', 'common'];

const results = { started: new Date().toISOString(), machine: machine(), load: [], ours: {}, peer: {} };

function machine() {
  return { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, kernel: os.release() };
}

function load(label) {
  const l = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  results.load.push({ label, at: new Date().toISOString(), load: l });
  console.error(`[${new Date().toISOString().slice(11, 19)}] ${label} (load ${l})`);
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[Math.round((s.length - 1) * q)];
  return { n: s.length, p50: at(0.5), p95: at(0.95), min: s[0], max: s[s.length - 1] };
}

const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));
const cell = (st) => `${f(st.p50)} / ${f(st.p95)}`;

/** Spawns a server and returns the connected client with the spawn-to-initialized time. */
async function connect(command, args, env, stderr = 'ignore') {
  const transport = new StdioClientTransport({ command, args, env, stderr });
  const client = new Client({ name: 'memory-bank-mcp-bench', version: '1.0.0' });
  const t0 = performance.now();
  await client.connect(transport); // spawn, initialize request and response, initialized notification
  return { client, transport, ms: performance.now() - t0 };
}

async function timedCall(client, name, args) {
  const t0 = performance.now();
  // A first session call waits for the first index: allow it longer than the SDK's 60 s.
  const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 900_000 });
  const ms = performance.now() - t0;
  if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${r.content?.[0]?.text}`);
  return { r, ms };
}

function oursEnv(dataDir, home) {
  return { HOME: home, PATH: PATH_ENV, MEMORY_BANK_DATA_DIR: dataDir };
}

async function spawnSeries(label, n, command, args, env, stderr = 'ignore') {
  const samples = [];
  for (let i = 0; i < n; i++) {
    const { client, ms } = await connect(command, args, env, stderr);
    samples.push(ms);
    await client.close();
  }
  const st = stats(samples);
  console.error(`  spawn ${label}: ${cell(st)} ms (min ${f(st.min)}, max ${f(st.max)})`);
  return st;
}

const queries = JSON.parse(fs.readFileSync(path.join(DATA, 'queries.json'), 'utf8'));

/** Times `tool` over each class's first `n` terms; returns stats and mean hits per class. */
async function searchSeries(label, client, n, tool, argsFor, hitsOf) {
  const out = {};
  // One untimed call first: the first statement of a fresh process prepares its statements.
  await timedCall(client, tool, argsFor(queries.common[0]));
  for (const cls of CLASSES) {
    const samples = [];
    let hits = 0;
    for (const term of queries[cls].slice(0, n)) {
      const { r, ms } = await timedCall(client, tool, argsFor(term));
      samples.push(ms);
      hits += hitsOf(r);
    }
    out[cls] = { ...stats(samples), meanHits: hits / samples.length };
  }
  console.error(`  ${label}: ${CLASSES.map((c) => `${c} ${cell(out[c])} (hits ${out[c].meanHits.toFixed(1)})`).join(', ')}`);
  return out;
}

const oursSearch = (term) => ({ query: term, limit: 10 });
const oursHits = (r) => r.structuredContent?.results?.length ?? 0;

async function ours() {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-mcp-bench-'));
  load('ours: spawn, empty data folder and home');
  results.ours.spawnEmpty = await spawnSeries('empty', +opt.spawns, BIN, ['mcp'], oursEnv(path.join(empty, 'data'), empty));
  load('ours: spawn, 10^5 memories, empty home');
  results.ours.spawnBank = await spawnSeries('10^5 memories, empty home', +opt.spawns, BIN, ['mcp'], {
    ...oursEnv(path.join(DATA, 'bank-100000'), empty),
    MEMORY_BANK_SESSIONS_INDEX: path.join(empty, 'sessions-index.sqlite'), // not the bank folder's index
  });
  fs.rmSync(empty, { recursive: true, force: true });

  results.ours.search = {};
  for (const n of [1000, 10000, 100000]) {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-mcp-bench-'));
    load(`ours: search_memories at ${n}`);
    const { client, ms } = await connect(BIN, ['mcp'], oursEnv(path.join(DATA, `bank-${n}`), home));
    results.ours.search[n] = { spawnMs: ms, ...(await searchSeries(`search_memories ${n}`, client, +opt.queries, 'search_memories', oursSearch, oursHits)) };
    // The same first `peer-queries` terms as the peer gets, for the ratio.
    results.ours.search[n].samePeerTerms = await searchSeries(`search_memories ${n}, first ${opt['peer-queries']} terms`, client, +opt['peer-queries'], 'search_memories', oursSearch, oursHits);
    if (n === 100000) {
      // The bare JSON-RPC round trip (ping), what every tool call pays on top of its work.
      const pings = [];
      for (let i = 0; i < +opt.queries; i++) {
        const t0 = performance.now();
        await client.ping();
        pings.push(performance.now() - t0);
      }
      results.ours.ping = stats(pings);
      console.error(`  ping: ${cell(results.ours.ping)} ms`);
    }
    await client.close();
    fs.rmSync(home, { recursive: true, force: true });
  }

  // read_transcript on the 1 GB session: the index is rebuilt from nothing first.
  const manifest = fs.readFileSync(path.join(SESSIONS, 'manifest.txt'), 'utf8');
  const [, bigId, bigPath, bigSize] = manifest.split('\n').find((l) => l.startsWith('big\t')).split('\t');
  if (fs.statSync(bigPath).size !== +bigSize) throw new Error(`${bigPath} is not the generated size: rerun sessions-bench`);
  const home = path.join(SESSIONS, 'home');
  const dataDir = path.join(DATA, 'bank-100000');
  for (const suffix of ['', '-wal', '-shm', '.search.sqlite', '.search.sqlite-wal', '.search.sqlite-shm']) {
    fs.rmSync(path.join(dataDir, `sessions-index.sqlite${suffix}`), { force: true });
  }
  load('ours: first index through list_sessions, then read_transcript');
  const { client } = await connect(BIN, ['mcp'], oursEnv(dataDir, home));
  const first = await timedCall(client, 'list_sessions', { limit: 20 });
  const total = first.r.structuredContent.total;
  console.error(`  first list_sessions (waits for the first index of ${SESSIONS}): ${(first.ms / 1000).toFixed(1)} s, ${total} sessions`);
  const opened = await timedCall(client, 'read_transcript', { sessionId: bigId, count: 1 });
  const count = opened.r.structuredContent.messageCount;
  const rt = {};
  const series = async (label, argsFor) => {
    const samples = [];
    let chars = 0;
    for (let i = 0; i < +opt.calls; i++) {
      const { r, ms } = await timedCall(client, 'read_transcript', argsFor(i));
      samples.push(ms);
      chars += r.content[0].text.length;
    }
    rt[label] = { ...stats(samples), meanChars: chars / samples.length };
    console.error(`  read_transcript ${label}: ${cell(rt[label])} ms (${(chars / samples.length).toFixed(0)} chars of text)`);
  };
  await series('last 10 (defaults)', () => ({ sessionId: bigId }));
  await series('last 30', () => ({ sessionId: bigId, count: 30 }));
  // Pages spread over the whole session, as an agent paging back with olderBefore would.
  await series('10 before a random index', (i) => ({ sessionId: bigId, before: 10 + Math.floor(((i * 7919) % 1000) / 1000 * (count - 10)) }));
  await series('latest 30, 20 000 chars per message', () => ({ sessionId: bigId, count: 30, maxCharsPerMessage: 20000 }));
  const latest = [];
  for (let i = 0; i < +opt.calls; i++) latest.push((await timedCall(client, 'latest_message', { sessionId: bigId })).ms);
  rt.latest_message = stats(latest);
  console.error(`  latest_message: ${cell(rt.latest_message)} ms`);
  await client.close();
  results.ours.transcript = { firstIndexMs: first.ms, sessions: total, bigSessionBytes: +bigSize, messageCount: count, ...rt };

  load('ours: spawn, 10^5 memories + the indexed 2 GB history');
  results.ours.spawnFull = await spawnSeries('full', +opt.spawns, BIN, ['mcp'], oursEnv(dataDir, home));
}

/** basic-memory confined to `root`: its notes, config, database and home; no update checks. */
function peerEnv(root) {
  return {
    HOME: path.join(root, 'home'),
    PATH: PATH_ENV,
    BASIC_MEMORY_HOME: path.join(root, 'notes'), // the default project "main"
    BASIC_MEMORY_CONFIG_DIR: path.join(root, 'config'), // config.json, memory.db, logs
    BASIC_MEMORY_AUTO_UPDATE: 'false', // else `mcp` over stdio starts a self-update check
    BASIC_MEMORY_NO_PROMOS: '1', // no analytics event
    FASTMCP_CHECK_FOR_UPDATES: 'off', // else FastMCP asks PyPI for a newer FastMCP at start
    FASTEMBED_CACHE_PATH: path.join(root, 'fastembed'),
  };
}

const peerSearch = (term) => ({ query: term, page_size: 10, search_type: 'text' });
const peerHits = (r) => (r.content?.[0]?.text?.match(/^### /gm) ?? []).length;

async function peerSize(n, corpus) {
  const root = path.join(DATA, `peer-${n}`);
  fs.rmSync(root, { recursive: true, force: true });
  for (const d of ['home', 'notes', 'config']) fs.mkdirSync(path.join(root, d), { recursive: true });
  corpus.slice(0, n).forEach((sentence, i) => {
    const name = `note-${String(i).padStart(6, '0')}`;
    fs.writeFileSync(path.join(root, 'notes', `${name}.md`), `---\ntitle: ${name}\ntype: note\npermalink: ${name}\n---\n\n${sentence}\n`);
  });
  const env = peerEnv(root);
  load(`peer: ${n} notes, first start and index`);
  // Its stderr (FastMCP's banner, warnings) goes to a file, read afterwards for network attempts.
  const stderr = fs.openSync(path.join(root, 'stderr.log'), 'a');
  const { client, ms } = await connect(PEER, ['mcp'], env, stderr);
  const log = path.join(root, 'config', 'basic-memory.log');
  const t0 = performance.now();
  const deadline = t0 + +opt['peer-index-timeout-min'] * 60_000;
  let done = false;
  while (!done && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    done = fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes('Background project index completed for project: main');
  }
  const indexMs = ms + performance.now() - t0;
  const entities = +execFileSync('sqlite3', [path.join(root, 'config', 'memory.db'), 'SELECT count(*) FROM entity'], { encoding: 'utf8' }).trim();
  console.error(`  peer ${n}: initialized in ${(ms / 1000).toFixed(2)} s; index ${done ? 'completed' : 'NOT completed'} after ${(indexMs / 1000).toFixed(1)} s from spawn (${entities} entities)`);
  const out = { firstSpawnMs: ms, indexMs, indexCompleted: done, entities };
  out.search = await searchSeries(`search_notes ${n}`, client, +opt['peer-queries'], 'search_notes', peerSearch, peerHits);
  const pings = [];
  for (let i = 0; i < +opt['peer-queries']; i++) {
    const t = performance.now();
    await client.ping();
    pings.push(performance.now() - t);
  }
  out.ping = stats(pings);
  console.error(`  peer ping: ${cell(out.ping)} ms`);
  await client.close();
  if (n === 1000) {
    load('peer: spawn, 10^3 notes indexed');
    out.spawn = await spawnSeries('peer 1000', +opt['peer-spawns'], PEER, ['mcp'], env, stderr);
  }
  fs.closeSync(stderr);
  const text = [log, path.join(root, 'stderr.log')].filter((p) => fs.existsSync(p)).map((p) => fs.readFileSync(p, 'utf8')).join('\n');
  out.logWarnings = [...new Set(text.split('\n').filter((l) => /WARNING|ERROR|http|update/i.test(l)))].slice(0, 30);
  return out;
}

async function peer() {
  const corpus = fs.readFileSync(path.join(DATA, 'corpus.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  for (const n of opt['peer-sizes'].split(',').map(Number)) results.peer[n] = await peerSize(n, corpus);
}

if (opt.only !== 'peer') await ours();
if (opt.only !== 'ours') await peer();
load('done');

// Summary tables (markdown) on stdout; everything as JSON beside the data.
const row = (name, st) => `| ${name} | ${st.n} | ${cell(st)} |`;
console.log('| spawn-to-initialized | spawns | p50 / p95 ms |\n|---|---|---|');
if (results.ours.spawnEmpty) console.log(row('memory-bank mcp, empty data folder', results.ours.spawnEmpty));
if (results.ours.spawnBank) console.log(row('memory-bank mcp, 10^5 memories, empty home', results.ours.spawnBank));
if (results.ours.spawnFull) console.log(row('memory-bank mcp, 10^5 memories + indexed 2 GB history', results.ours.spawnFull));
if (results.peer[1000]?.spawn) console.log(row('basic-memory mcp, 10^3 notes indexed', results.peer[1000].spawn));
if (results.ours.ping) console.log(`\nping round trip: ${cell(results.ours.ping)} ms`);
for (const [n, p] of Object.entries(results.peer)) if (p.ping) console.log(`basic-memory ping round trip at ${n}: ${cell(p.ping)} ms`);
console.log('\n| search | size | rare p50 / p95 ms | mid | very common |\n|---|---|---|---|---|');
for (const [n, s] of Object.entries(results.ours.search ?? {})) console.log(`| search_memories | ${n} | ${CLASSES.map((c) => cell(s[c])).join(' | ')} |`);
for (const [n, s] of Object.entries(results.ours.search ?? {})) console.log(`| search_memories, first ${opt['peer-queries']} terms | ${n} | ${CLASSES.map((c) => cell(s.samePeerTerms[c])).join(' | ')} |`);
for (const [n, p] of Object.entries(results.peer)) console.log(`| basic-memory search_notes${p.indexCompleted ? '' : ' (index not completed)'} | ${n} | ${CLASSES.map((c) => cell(p.search[c])).join(' | ')} |`);
if (results.ours.transcript) {
  console.log('\n| read_transcript, 1 GB session | p50 / p95 ms |\n|---|---|');
  for (const [k, v] of Object.entries(results.ours.transcript)) if (v && typeof v === 'object') console.log(`| ${k} | ${cell(v)} |`);
}
const file = path.join(DATA, `results-${results.started.replace(/[:.]/g, '-')}.json`);
fs.writeFileSync(file, JSON.stringify(results, null, 2));
console.error(`results: ${file}`);
