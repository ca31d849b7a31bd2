"""Search through the official MCP Python SDK (issue 33 §2), beside the HTTP search.

The agents' path timed with the client the peers are measured with: the official MCP
Python SDK (PyPI `mcp`, pinned in requirements.txt), in ONE run, the paths interleaved
query by query so the shared machine's noise falls on all of them alike:

  http   GET /v1/memory/search?q=…&limit=10 on a `memory-bank serve` holding the same
         memories (one persistent HTTP/1.1 connection, httpx; the JSON parsed);
  local  MCP `search_memories` over stdio, `memory-bank mcp` on the local bank;
  url    MCP `search_memories` over stdio, `memory-bank mcp --url <serve> --token <agent
         token> --org <org>` (the agent's process asks the same serve over HTTP);
  peer   (--peer) the reference MCP memory server, @modelcontextprotocol/server-memory
         (npm, bench/mcp/package.json), the same sentences as observations (one entity
         each), `search_nodes` through the same Python client.

and, as diagnostics (not targets), interleaved the same way:

  http-bare  the same GET on one kept-alive socket with a bare HTTP/1.1 client (asyncio
         streams, json.loads): the HTTP search without httpx's own cost;
  raw    `search_memories` on a second `memory-bank mcp` (local bank) driven by a bare
         JSON-RPC client (asyncio pipes, the SDK's request line, one line in, json.loads):
         the server and the pipe without the SDK;
  then a no-op round trip of every client: HTTP GET /healthz (httpx and bare); for our
  MCP server, whose session is 2026-07-28 (no `ping` any more), the smallest tools/call,
  `search_memories` with limit 0, refused before any work (SDK local and url, and bare);
  the peer's `ping`; and, on the raw answers captured in the run, what the SDK does to
  each answer on its own: the pydantic parse of the JSON-RPC line and the outputSchema
  check (`validate_tool_result`; a no-op when the tool declares no outputSchema).

Query classes (terms from `memory-bank-bench --queries-out`, one term per query): rare
(vocabulary rank 2 000–20 000), mid (20–2 000), common (< 20), and zh: 2-character
Chinese terms. The bench corpus is 1 % Chinese (16 characters drawn from 48), but its
query file has no Chinese class, so zh terms are drawn here (seed 33) from the corpus's
own Chinese sentences: a sentence, then a position in it, then the 2 characters there;
every zh term is in at least one memory.

Our processes run with HOME set to an empty folder and MEMORY_BANK_WORDS_ONLY=true: search
by words, as the issue's figures are (a search by meaning embeds its query, ~10 ms; see
BENCHMARKS.md, issue 29). serve runs with --max-memories-per-user 0 and a rate limit so
high it never refuses (--rate-limit 1000000): the limiter still runs on every request.

Data (`prepare`, once; see BENCHMARKS.md "Search through the official MCP Python client"):
  $DATA/bank-N/memory.db         memory-bank-bench --load-local-bank (the local bank)
  $DATA/corpus.jsonl, queries.json   the same run's --corpus-out / --queries-out
  $DATA/serve-N/memory.db        a copy of the local bank for `serve`, with an agent token
                                 for the local user (admin token issue --agent)
  $DATA/peer-N/memory.jsonl      server-memory's file, made through its create_entities
                                 tool at the start of every --peer run

Run:  bench.py prepare [--memories 10000]
      bench.py run [--memories 10000] [--queries 300] [--warmup 20] [--peer] [--no-raw]
                   [--paths http,http-bare,local,url,raw]   (e.g. --paths local: one path alone)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import os
import platform
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import warnings
from pathlib import Path

import httpx
import jsonschema
import mcp
from mcp import Client, StdioServerParameters
from mcp import types as mtypes

HERE = Path(__file__).resolve().parent
BIN = os.environ.get("MEMORY_BANK_BIN", "/work/target-bench/release/memory-bank")
BENCH_BIN = os.environ.get("MEMORY_BANK_BENCH_BIN", str(Path(BIN).with_name("memory-bank-bench")))
DATA = Path(os.environ.get("BENCH_DATA", "/work/bench-data/mcp-py"))
PEER_JS = HERE / "node_modules/@modelcontextprotocol/server-memory/dist/index.js"
NODE = os.environ.get("NODE_BIN", shutil.which("node") or "node")
CLASSES = ["rare", "mid", "common", "zh"]
PATHS = ["http", "http-bare", "local", "url", "peer"]
CLIENT_INFO = mtypes.Implementation(name="memory-bank-mcp-bench-py", version="1.0.0")


def log(msg: str) -> None:
    la = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"[{dt.datetime.now().strftime('%H:%M:%S')}] {msg} (load {la})", file=sys.stderr, flush=True)


def stats(samples: list[float]) -> dict:
    s = sorted(samples)
    at = lambda q: s[round((len(s) - 1) * q)]  # noqa: E731  (as bench.mjs: nearest rank)
    return {"n": len(s), "p50": at(0.5), "p95": at(0.95), "min": s[0], "max": s[-1], "mean": statistics.fmean(s)}


def fmt(x: float) -> str:
    return f"{x:.0f}" if x >= 100 else f"{x:.2f}" if x < 10 else f"{x:.1f}"


def cell(st: dict) -> str:
    return f"{fmt(st['p50'])} / {fmt(st['p95'])}"


# ---------------------------------------------------------------- data preparation


def run_cmd(args: list[str], env: dict | None = None) -> str:
    print("+ " + " ".join(args), file=sys.stderr, flush=True)
    return subprocess.run(args, check=True, capture_output=True, text=True, env=env).stdout


def prepare(memories: int, queries: int) -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    bank = DATA / f"bank-{memories}"
    if not (bank / "memory.db").exists():
        run_cmd([BENCH_BIN, "--load-local-bank", str(bank), "--memories", str(memories), "--queries", str(queries),
                 "--corpus-out", str(DATA / "corpus.jsonl"), "--queries-out", str(DATA / "queries.json")])
    serve = DATA / f"serve-{memories}"
    if serve.exists():
        shutil.rmtree(serve)
    serve.mkdir()
    # serve's database: the local bank's file itself, copied (the same rows, the same index).
    shutil.copy2(bank / "memory.db", serve / "memory.db")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(serve)}
    url = f"sqlite://{serve / 'memory.db'}"
    users = run_cmd([BIN, "--database-url", url, "admin", "user", "list"], env).split("\n")
    user = users[0].split()[0] if users and users[0].strip() else None
    if not user or not user.startswith("usr_"):
        raise SystemExit(f"no user in the copied bank: {users!r}")
    orgs = run_cmd([BIN, "--database-url", url, "admin", "org", "list", "--member", user], env).split("\n")
    org = orgs[0].split()[0]
    token = run_cmd([BIN, "--database-url", url, "admin", "token", "issue", user, "--agent"], env).strip().split()[-1]
    (serve / "agent-token").write_text(token)
    os.chmod(serve / "agent-token", 0o600)
    (serve / "serve.json").write_text(json.dumps({"user": user, "org": org}, indent=2))
    print(f"prepared {bank} and {serve} (user {user}, org {org})", file=sys.stderr)


def zh_terms(corpus: list[str], n: int) -> tuple[list[str], int]:
    chinese = [s for s in corpus if s and all("\u4e00" <= ch <= "\u9fff" for ch in s)]
    if not chinese:
        raise SystemExit("the corpus has no Chinese sentence")
    rng = random.Random(33)
    terms = []
    for _ in range(n):
        s = rng.choice(chinese)
        i = rng.randrange(len(s) - 1)
        terms.append(s[i : i + 2])
    return terms, len(chinese)


# ---------------------------------------------------------------- the paths


def our_env(home: str, data_dir: Path | None = None) -> dict:
    env = {"HOME": home, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "MEMORY_BANK_WORDS_ONLY": "true",
           "NO_COLOR": "1"}
    if data_dir is not None:
        env["MEMORY_BANK_DATA_DIR"] = str(data_dir)
    return env


class McpPath:
    """One server through the official SDK's high-level Client over stdio."""

    def __init__(self, name: str, params: StdioServerParameters, tool: str, args_for, hits_of, errlog):
        self.name, self.params, self.tool, self.args_for, self.hits_of = name, params, tool, args_for, hits_of
        self.errlog = errlog
        self.client: Client | None = None

    async def start(self, stack: contextlib.AsyncExitStack) -> float:
        t0 = time.perf_counter()
        # The SDK's own stdio_client, with the server's stderr to a file rather than ours; the
        # Client's defaults otherwise (mode "auto": server/discover, else initialize).
        transport = mcp.stdio_client(self.params, errlog=self.errlog)
        self.client = await stack.enter_async_context(Client(transport, read_timeout_seconds=600, client_info=CLIENT_INFO))
        return (time.perf_counter() - t0) * 1000

    async def search(self, term: str) -> tuple[float, int, mtypes.CallToolResult]:
        t0 = time.perf_counter()
        r = await self.client.call_tool(self.tool, self.args_for(term))
        ms = (time.perf_counter() - t0) * 1000
        if r.is_error:
            raise RuntimeError(f"{self.name} {self.tool} {term!r}: {r.content[0].text if r.content else r}")
        return ms, self.hits_of(r), r

    async def ping(self) -> float:
        """The peer's no-op: `ping` (its SDK speaks a protocol before 2026-07-28)."""
        t0 = time.perf_counter()
        await self.client.send_ping()
        return (time.perf_counter() - t0) * 1000

    async def tiny(self) -> float:
        """Ours' no-op: 2026-07-28 has no `ping`, so the smallest tools/call, one the server
        refuses before any work (limit 0: out of range; an isError result, so the SDK skips
        the outputSchema check)."""
        t0 = time.perf_counter()
        r = await self.client.call_tool("search_memories", {"query": "x", "limit": 0})
        ms = (time.perf_counter() - t0) * 1000
        if not r.is_error:
            raise RuntimeError("limit 0 was not refused")
        return ms


class HttpPath:
    def __init__(self, base: str, token: str, org: str, limit: int):
        self.base, self.limit = base, limit
        self.client = httpx.AsyncClient(base_url=base, headers={"Authorization": f"Bearer {token}", "X-Org-Id": org},
                                        timeout=60, limits=httpx.Limits(max_connections=1, max_keepalive_connections=1))
        self.bytes: dict[str, list[int]] = {}

    async def search(self, term: str) -> tuple[float, int, bytes]:
        t0 = time.perf_counter()
        r = await self.client.get("/v1/memory/search", params={"q": term, "limit": self.limit})
        body = r.json()
        ms = (time.perf_counter() - t0) * 1000
        if r.status_code != 200:
            raise RuntimeError(f"http {term!r}: {r.status_code} {r.text[:200]}")
        return ms, len(body["results"]), r.content

    async def ping(self) -> float:
        t0 = time.perf_counter()
        r = await self.client.get("/healthz")
        r.content
        ms = (time.perf_counter() - t0) * 1000
        if r.status_code != 200:
            raise RuntimeError(f"healthz: {r.status_code}")
        return ms


class BareHttpPath:
    """The same GET on one kept-alive socket with a bare HTTP/1.1 client (asyncio streams,
    json.loads of the body): the HTTP search without httpx's own cost."""

    def __init__(self, host: str, port: int, token: str, org: str, limit: int):
        self.host, self.port, self.limit = host, port, limit
        self.head = f"Host: {host}:{port}\r\nAuthorization: Bearer {token}\r\nX-Org-Id: {org}\r\n\r\n"

    async def start(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def get(self, target: str) -> tuple[int, bytes]:
        self.writer.write(f"GET {target} HTTP/1.1\r\n{self.head}".encode())
        await self.writer.drain()
        head = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, v in (h.split(":", 1) for h in head[1:] if ":" in h)}
        if "content-length" not in headers:
            raise RuntimeError(f"bare http: no content-length in {head}")
        return int(head[0].split()[1]), await self.reader.readexactly(int(headers["content-length"]))

    async def search(self, term: str) -> tuple[float, int, bytes]:
        t0 = time.perf_counter()
        status, body = await self.get("/v1/memory/search?" + urllib.parse.urlencode({"q": term, "limit": self.limit}))
        answer = json.loads(body)
        ms = (time.perf_counter() - t0) * 1000
        if status != 200:
            raise RuntimeError(f"bare http {term!r}: {status} {body[:200]!r}")
        return ms, len(answer["results"]), body

    async def ping(self) -> float:
        t0 = time.perf_counter()
        status, _ = await self.get("/healthz")
        ms = (time.perf_counter() - t0) * 1000
        if status != 200:
            raise RuntimeError(f"healthz: {status}")
        return ms

    async def stop(self) -> None:
        self.writer.close()
        await self.writer.wait_closed()


class RawPath:
    """A bare JSON-RPC client over the server's pipes: no SDK."""

    def __init__(self, env: dict, limit: int, errlog, protocol: str):
        self.env, self.limit, self.errlog, self.next_id, self.protocol = env, limit, errlog, 0, protocol
        # What the SDK stamps on every request of a 2026-07-28 session (seen on the wire).
        self.meta = {"io.modelcontextprotocol/protocolVersion": protocol,
                     "io.modelcontextprotocol/clientInfo": CLIENT_INFO.model_dump(exclude_none=True),
                     "io.modelcontextprotocol/clientCapabilities": {}}

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(BIN, "mcp", env=self.env, stdin=asyncio.subprocess.PIPE,
                                                         stdout=asyncio.subprocess.PIPE, stderr=self.errlog,
                                                         limit=1 << 24)
        await self.rpc("server/discover", {})

    async def rpc(self, method: str, params: dict) -> tuple[bytes, dict]:
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": {**params, "_meta": self.meta}}
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        await self.proc.stdin.drain()
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                raise RuntimeError("raw: the server closed its stdout")
            answer = json.loads(line)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"raw {method}: {answer['error']}")
                return line, answer

    async def search(self, term: str) -> tuple[float, int, bytes]:
        t0 = time.perf_counter()
        line, answer = await self.rpc("tools/call", {"name": "search_memories",
                                                     "arguments": {"query": term, "limit": self.limit}})
        ms = (time.perf_counter() - t0) * 1000
        result = answer["result"]
        if result.get("isError"):
            raise RuntimeError(f"raw {term!r}: {result}")
        return ms, len(result["structuredContent"]["results"]), line

    async def tiny(self) -> float:
        t0 = time.perf_counter()
        _, answer = await self.rpc("tools/call", {"name": "search_memories", "arguments": {"query": "x", "limit": 0}})
        ms = (time.perf_counter() - t0) * 1000
        if not answer["result"].get("isError"):
            raise RuntimeError("limit 0 was not refused")
        return ms

    async def stop(self) -> None:
        self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 5)
        except asyncio.TimeoutError:
            self.proc.kill()
            await self.proc.wait()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def wait_healthy(base: str, proc: subprocess.Popen) -> None:
    async with httpx.AsyncClient(base_url=base) as c:
        for _ in range(300):
            if proc.poll() is not None:
                raise SystemExit(f"serve exited: {proc.returncode}")
            try:
                if (await c.get("/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise SystemExit("serve did not answer /healthz in 30 s")


async def load_peer(peer: McpPath, corpus: list[str]) -> float:
    t0 = time.perf_counter()
    batch = 500
    for start in range(0, len(corpus), batch):
        entities = [{"name": f"memory-{i:05d}", "entityType": "memory", "observations": [s]}
                    for i, s in enumerate(corpus[start : start + batch], start)]
        r = await peer.client.call_tool("create_entities", {"entities": entities})
        if r.is_error:
            raise RuntimeError(f"create_entities: {r.content}")
    return time.perf_counter() - t0


# ---------------------------------------------------------------- the run


async def run(opt) -> None:
    n = opt.memories
    bank = DATA / f"bank-{n}"
    serve_dir = DATA / f"serve-{n}"
    token = (serve_dir / "agent-token").read_text().strip()
    org = json.loads((serve_dir / "serve.json").read_text())["org"]
    corpus_all = [json.loads(line) for line in (DATA / "corpus.jsonl").read_text().splitlines() if line.strip()]
    corpus = corpus_all[:n]
    q = json.loads((DATA / "queries.json").read_text())
    nq = opt.queries
    zh, zh_sentences = zh_terms(corpus, max(nq, len(q["rare"])))
    wanted = (set(opt.paths.split(",")) | ({"peer"} if opt.peer else set())) - (set() if opt.raw else {"raw"})
    if wanted - set(PATHS) - {"raw"}:
        raise SystemExit(f"--paths: unknown {sorted(wanted - set(PATHS) - {'raw'})}")
    terms = {"rare": q["rare"], "mid": q["mid"], "common": q["common"], "zh": zh}
    for c in CLASSES:
        if len(terms[c]) < nq:
            log(f"{c}: {len(terms[c])} terms for {nq} queries: they are reused in turn")

    home = tempfile.mkdtemp(prefix="mb-mcp-py-bench-")
    errlog = open(DATA / "servers-stderr.log", "w")
    results: dict = {
        "started": dt.datetime.now(dt.timezone.utc).isoformat(), "memories": n, "queries": nq, "warmup": opt.warmup,
        "limit": opt.limit, "chineseSentences": zh_sentences, "zhTerms": zh[:nq], "load": [],
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "mcp": mcp_version(),
                    "httpx": httpx.__version__, "kernel": platform.release(), "bin": BIN,
                    "cpu": cpu_model()},
    }

    def mark(label: str) -> None:
        results["load"].append({"label": label, "at": dt.datetime.now().isoformat(timespec="seconds"),
                                "load": os.getloadavg()})
        log(label)

    mark("start")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    serve = subprocess.Popen([BIN, "--database-url", f"sqlite://{serve_dir / 'memory.db'}", "serve", "--listen",
                              f"127.0.0.1:{port}", "--max-memories-per-user", "0", "--rate-limit", "1000000",
                              "--rate-burst", "1000000"], env=our_env(home), stdout=errlog, stderr=errlog)
    paths: dict = {}
    raw = None
    stack = contextlib.AsyncExitStack()  # everything opened below, closed in reverse order
    try:
        await wait_healthy(base, serve)
        paths["http"] = HttpPath(base, token, org, opt.limit)
        stack.push_async_callback(paths["http"].client.aclose)
        paths["http-bare"] = BareHttpPath("127.0.0.1", port, token, org, opt.limit)
        await paths["http-bare"].start()
        stack.push_async_callback(paths["http-bare"].stop)
        # The raw path reuses the SDK session's protocol version, so "local" is always started.
        ours_args = lambda t: {"query": t, "limit": opt.limit}  # noqa: E731
        ours_hits = lambda r: len((r.structured_content or {}).get("results", []))  # noqa: E731
        paths["local"] = McpPath("local", StdioServerParameters(command=BIN, args=["mcp"], env=our_env(home, bank)),
                                 "search_memories", ours_args, ours_hits, errlog)
        paths["url"] = McpPath("url", StdioServerParameters(
            command=BIN, args=["mcp", "--url", base, "--token", token, "--org", org], env=our_env(home)),
            "search_memories", ours_args, ours_hits, errlog)
        if "peer" in wanted:
            peer_dir = DATA / f"peer-{n}"
            if peer_dir.exists():
                shutil.rmtree(peer_dir)
            peer_dir.mkdir(parents=True)
            paths["peer"] = McpPath("peer", StdioServerParameters(
                command=NODE, args=[str(PEER_JS)],
                env={"HOME": str(peer_dir), "MEMORY_FILE_PATH": str(peer_dir / "memory.jsonl")}),
                "search_nodes", lambda t: {"query": t},
                lambda r: len((r.structured_content or {}).get("entities", [])), errlog)
        results["spawnMs"] = {}
        results["protocol"] = {}
        for name, p in paths.items():
            if isinstance(p, McpPath):
                results["spawnMs"][name] = await p.start(stack)
                results["protocol"][name] = p.client.protocol_version
                info = p.client.server_info
                results.setdefault("servers", {})[name] = f"{info.name} {info.version}" if info else None
        if "peer" in wanted:
            mark("peer: loading its 10^4 entities through create_entities")
            results["peerLoadSeconds"] = await load_peer(paths["peer"], corpus)
            results["peerFileBytes"] = (DATA / f"peer-{n}" / "memory.jsonl").stat().st_size
            log(f"peer loaded in {results['peerLoadSeconds']:.1f} s ({results['peerFileBytes'] / 1e6:.1f} MB)")
        if "raw" in wanted:
            raw = RawPath(our_env(home, bank), opt.limit, errlog, paths["local"].client.protocol_version)
            await raw.start()
            stack.push_async_callback(raw.stop)
            results["protocol"]["raw"] = raw.protocol
        order = [p for p in PATHS if p in wanted] + (["raw"] if raw else [])
        runners = {**paths, **({"raw": raw} if raw else {})}

        mark(f"warm-up: {opt.warmup} queries per class per path")
        for i in range(opt.warmup):
            for c in CLASSES:
                term = terms[c][(-1 - i) % len(terms[c])]  # from the end of the lists
                for name in order:
                    await runners[name].search(term)

        mark(f"timed: {nq} queries per class per path, interleaved ({', '.join(order)})")
        samples = {name: {c: [] for c in CLASSES} for name in order}
        hits = {name: {c: [] for c in CLASSES} for name in order}
        size = {name: {c: [] for c in CLASSES} for name in order}
        captured: dict = {c: [] for c in CLASSES}  # raw answers, for the SDK parse/validate split
        sample_every = max(1, nq // 10)
        for i in range(nq):
            for ci, c in enumerate(CLASSES):
                term = terms[c][i % len(terms[c])]
                k = (i * len(CLASSES) + ci) % len(order)
                for name in order[k:] + order[:k]:  # the order rotates, so no path is always first
                    ms, h, answer = await runners[name].search(term)
                    samples[name][c].append(ms)
                    hits[name][c].append(h)
                    if isinstance(answer, bytes):
                        size[name][c].append(len(answer))
                        if name == "raw":
                            captured[c].append(answer)
                    else:  # an SDK result: its JSON as the server sent it is not kept; re-serialized
                        size[name][c].append(len(answer.model_dump_json(by_alias=True, exclude_none=True)))
            if (i + 1) % sample_every == 0:
                mark(f"  {i + 1}/{nq}")
        results["search"] = {name: {c: {**stats(samples[name][c]), "meanHits": statistics.fmean(hits[name][c]),
                                        "meanBytes": statistics.fmean(size[name][c])} for c in CLASSES}
                             for name in order}
        results["samples"] = samples

        mark(f"no-op round trips: {nq} per client, interleaved")
        pingers = {k: f for k, w, f in [
            ("HTTP GET /healthz (httpx)", "http", paths["http"].ping),
            ("HTTP GET /healthz (bare HTTP/1.1)", "http-bare", paths["http-bare"].ping),
            ("local: tools/call refused at once (SDK)", "local", paths["local"].tiny),
            ("url: tools/call refused at once (SDK)", "url", paths["url"].tiny),
            ("local: tools/call refused at once (bare JSON-RPC)", "raw", raw.tiny if raw else None),
            ("peer: ping (SDK)", "peer", paths["peer"].ping if "peer" in paths else None)] if w in wanted}
        ping_samples = {k: [] for k in pingers}
        keys = list(pingers)
        for i in range(nq):
            k = i % len(keys)
            for name in keys[k:] + keys[:k]:
                ping_samples[name].append(await pingers[name]())
        results["noop"] = {k: stats(v) for k, v in ping_samples.items()}

        if raw and "local" in wanted:
            mark("the SDK's own work per answer, on the run's raw answers")
            results["sdkWork"] = await sdk_work(paths["local"].client, captured)
        mark("done")
    finally:
        await stack.aclose()
        serve.terminate()
        serve.wait(10)
        errlog.close()
        shutil.rmtree(home, ignore_errors=True)

    stamp = results["started"].replace(":", "-").replace(".", "-")
    out = DATA / f"results-py-{stamp}.json"
    out.write_text(json.dumps(results, indent=1))
    report(results, order)
    log(f"results: {out}")


async def sdk_work(client: Client, captured: dict) -> dict:
    """Per class: the pydantic parse of the JSON-RPC line into a CallToolResult (as the
    SDK's stdio reader and session do), and the outputSchema check the session runs on
    every successful tools/call (`validate_tool_result`, the SDK's own method)."""
    out = {}
    for c, lines in captured.items():
        parse, validate = [], []
        for line in lines:
            t0 = time.perf_counter()
            # As the SDK's stdio reader parses a line, then the session the result.
            msg = mtypes.jsonrpc_message_adapter.validate_json(line, by_name=False)
            result = mtypes.CallToolResult.model_validate(msg.result)
            t1 = time.perf_counter()
            await client.session.validate_tool_result("search_memories", result)
            t2 = time.perf_counter()
            parse.append((t1 - t0) * 1000)
            validate.append((t2 - t1) * 1000)
        out[c] = {"parse": stats(parse), "validate": stats(validate)}
    return out


def report(r: dict, order: list[str]) -> None:
    label = {"http": "HTTP `GET /v1/memory/search` (httpx)",
             "http-bare": "HTTP `GET /v1/memory/search` (bare HTTP/1.1 client)", "local": "MCP `search_memories`, local bank (stdio)",
             "url": "MCP `search_memories`, `--url` + agent token", "peer": "reference MCP memory server, `search_nodes`",
             "raw": "*diagnostic: `search_memories`, local bank, bare JSON-RPC (no SDK)*"}
    s = r["search"]
    print(f"\n| {r['memories']} memories, p50 / p95 ms | rare | mid | common | zh 2-char |")
    print("|---|---|---|---|---|")
    for name in order:
        print(f"| {label[name]} | " + " | ".join(cell(s[name][c]) for c in CLASSES) + " |")
    for base in [b for b in ("http", "http-bare") if b in s]:
        for name in [x for x in ("local", "url", "peer", "raw") if x in s]:
            print(f"| ratio {name} / {base}, p50 | " + " | ".join(
                f"{s[name][c]['p50'] / s[base][c]['p50']:.2f}×" for c in CLASSES) + " |")
    print("\n| mean hits / mean answer bytes | " + " | ".join(CLASSES) + " |\n|---|---|---|---|---|")
    for name in order:
        print(f"| {name} | " + " | ".join(f"{s[name][c]['meanHits']:.1f} / {s[name][c]['meanBytes']:.0f}"
                                          for c in CLASSES) + " |")
    print("\n| no-op round trip | p50 / p95 ms |\n|---|---|")
    for k, v in r["noop"].items():
        print(f"| {k} | {cell(v)} |")
    if "sdkWork" in r:
        print("\n| the SDK's work on one answer, p50 / p95 ms | " + " | ".join(CLASSES) + " |\n|---|---|---|---|---|")
        for part in ("parse", "validate"):
            print(f"| {part} | " + " | ".join(cell(r['sdkWork'][c][part]) for c in CLASSES) + " |")
    print("\nload (1, 5, 15 min): " + "; ".join(f"{x['label'].strip()} {x['at'][11:]} "
                                              + " ".join(f"{v:.2f}" for v in x["load"]) for x in r["load"]))


def mcp_version() -> str:
    from importlib.metadata import version

    return version("mcp")


def cpu_model() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main() -> None:
    # The peer's SDK speaks a protocol before 2026-07-28, where `ping` still is.
    warnings.filterwarnings("ignore", message="ping is removed", category=mcp.MCPDeprecationWarning)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare", help="the local bank, the corpus and terms, serve's copy and its agent token")
    p.add_argument("--memories", type=int, default=10_000)
    p.add_argument("--queries", type=int, default=300, help="terms per class written to queries.json")
    r = sub.add_parser("run", help="the benchmark")
    r.add_argument("--memories", type=int, default=10_000)
    r.add_argument("--queries", type=int, default=300, help="timed queries per class per path")
    r.add_argument("--warmup", type=int, default=20, help="untimed queries per class per path first")
    r.add_argument("--limit", type=int, default=10, help="results asked for (search_memories' default: 10)")
    r.add_argument("--peer", action="store_true", help="also @modelcontextprotocol/server-memory")
    r.add_argument("--no-raw", dest="raw", action="store_false", help="skip the bare JSON-RPC diagnostic path")
    r.add_argument("--paths", default="http,http-bare,local,url,raw",
                   help="the paths timed (default all but peer); e.g. --paths local for the SDK alone")
    opt = ap.parse_args()
    if opt.cmd == "prepare":
        prepare(opt.memories, opt.queries)
    else:
        asyncio.run(run(opt))


if __name__ == "__main__":
    main()
