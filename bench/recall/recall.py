#!/usr/bin/env python3
"""Recall benchmark: how often Memory Bank's search finds the memory that answers a question.

Each LoCoMo conversation becomes one person's bank: its observations (short sentences,
each with the dialogue ids it was drawn from) are imported through POST /v1/import,
then, once the service has made their vectors in the background (`db status`), every
question is asked through GET /v1/memory/search and scored by the rank of the first
memory drawn from the question's evidence. A real `memory-bank serve` runs on a fresh
SQLite bank in a temporary folder on 127.0.0.1. Standard library only.

    python3 bench/recall/recall.py --bin target/release/memory-bank [--search words] [--json out.json]
"""
import argparse, datetime, hashlib, http.client, json, os, re, shutil, signal, subprocess
import sys, tempfile, time, urllib.parse

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
CACHE = os.environ.get("MEMORY_BANK_BENCH_CACHE") or os.path.expanduser("~/.cache/memory-bank/bench")
DIALOGUE_ID = re.compile(r"D:?(\d+):(\d+)")  # also reads the data's few typos ("D:11:26", "D8:6; D9:17")
CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"
MAX_QUERY_CHARS, MAX_SNIPPET_CHARS, MAX_CONTEXTS = 512, 4000, 16


class BenchError(Exception):
    """A failure with a message that says what went wrong; printed without a traceback."""


def dialogue_ids(value):
    """The dialogue ids ("D3:7") in a string or a list of strings."""
    text = " ".join(value) if isinstance(value, list) else str(value or "")
    return [f"D{a}:{b}" for a, b in DIALOGUE_ID.findall(text)]


def ulid(prefix, when_ms, seed):
    """A canonical `prefix_<ulid>` id with the given time and 80 bits derived from seed."""
    n = (when_ms << 80) | int.from_bytes(hashlib.sha256(seed.encode()).digest()[:10], "big")
    return prefix + "_" + "".join(CROCKFORD[(n >> (5 * i)) & 31] for i in range(25, -1, -1))


def rfc3339(ms):
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def session_ms(conversation, number, fallback_ms):
    text = conversation.get(f"session_{number}_date_time", "")
    try:
        when = datetime.datetime.strptime(text, "%I:%M %p on %d %B, %Y").replace(tzinfo=datetime.UTC)
        return int(when.timestamp() * 1000)
    except ValueError:
        return fallback_ms


def build_bank(sample, snippets):
    """One conversation: its import lines, what each memory cites, and its questions."""
    sid, conversation = sample["sample_id"], sample["conversation"]
    turns = {t["dia_id"]: t for key, session in conversation.items()
             if re.fullmatch(r"session_\d+", key) for t in session}
    lines, cites = [], {}
    for key, by_speaker in sorted(sample.get("observation", {}).items(),
                                  key=lambda kv: int(re.search(r"\d+", kv[0]).group())):
        number = int(re.search(r"\d+", key).group())
        base = session_ms(conversation, number, 1_600_000_000_000 + number * 86_400_000)
        for speaker, facts in sorted(by_speaker.items()):
            for i, fact in enumerate(facts):
                text, source = (fact[0], fact[1]) if len(fact) > 1 else (fact[0], "")
                ids = dialogue_ids(source)
                when = base + 1000 * len(lines)  # later facts are newer: ties break in file order
                mid = ulid("mem", when, f"{sid}/{key}/{speaker}/{i}")
                line = {"id": mid, "content": text, "createdAt": rfc3339(when)}
                if snippets == "dialogue":
                    line["contexts"] = [
                        {"id": ulid("mctx", when, f"{mid}/{d}"),
                         "snippet": f"{turns[d]['speaker']}: {turns[d]['text']}"[:MAX_SNIPPET_CHARS],
                         "citation": {"conversationId": sid, "messageId": d},
                         "origin": "searched_conversation", "createdAt": rfc3339(when)}
                        for d in ids if d in turns and turns[d].get("text", "").strip()][:MAX_CONTEXTS]
                lines.append(line)
                cites[mid] = set(ids)
    return {"sample_id": sid, "lines": lines, "cites": cites, "qa": sample.get("qa", [])}


class Service:
    """`memory-bank serve` on a fresh SQLite bank; `stop` (also on exit) ends it."""

    def __init__(self, binary, folder, search, model_dir):
        self.binary, self.folder, self.proc = binary, folder, None
        self.url = "sqlite://" + os.path.join(folder, "bank.db")
        # Nothing from the caller's MEMORY_BANK_* settings: this bank and these flags only.
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_BANK_")}
        self.env.update(MEMORY_BANK_LOG="warn", HOME=folder, XDG_DATA_HOME=os.path.join(folder, "data"),
                        MEMORY_BANK_MODEL_DIR=model_dir)
        # words: --words-only, the model never loaded; hybrid: words and meaning.
        self.flags = ["--words-only"] if search == "words" else []

    def run(self, *args):
        done = subprocess.run([self.binary, *self.flags, "--database-url", self.url, *args], env=self.env,
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise BenchError(f"`memory-bank {' '.join(args)}` failed ({done.returncode}): {done.stderr.strip()}")
        return done.stdout.strip()

    def start(self):
        log_path = os.path.join(self.folder, "serve.log")
        with open(log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [self.binary, *self.flags, "--database-url", self.url, "serve", "--listen", "127.0.0.1:0",
                 "--rate-limit", "0", "--max-memories-per-user", "0"],
                env=self.env, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with open(log_path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            found = re.search(r"serving (http://[\d.]+:\d+)", text)
            if found:
                return found.group(1)
            if self.proc.poll() is not None:
                raise BenchError(f"memory-bank serve exited with {self.proc.returncode}:\n{text.strip()}")
            time.sleep(0.05)
        raise BenchError(f"memory-bank serve did not say where it listens within 60 s; its log: {log_path}")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Client:
    """One keep-alive connection to the service, as one person (token and org)."""

    def __init__(self, base, token, org):
        parts = urllib.parse.urlsplit(base)
        self.host, self.port, self.conn = parts.hostname, parts.port, None
        self.headers = {"Authorization": f"Bearer {token}", "X-Org-Id": org}

    def call(self, method, path, body=None, content_type=None):
        headers = dict(self.headers, **({"Content-Type": content_type} if content_type else {}))
        for attempt in (1, 2):  # once more on a fresh connection if the old one was closed
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
                start = time.perf_counter()
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
                elapsed = time.perf_counter() - start
                break
            except (http.client.HTTPException, OSError) as e:
                self.close()
                if attempt == 2:
                    raise BenchError(f"{method} {path.split('?')[0]}: {e}") from e
        if response.status != 200:
            raise BenchError(f"{method} {path.split('?')[0]} answered {response.status}: {data[:500]!r}")
        return json.loads(data), elapsed

    def close(self):
        if self.conn:
            self.conn.close()
            self.conn = None


def wait_for_vectors(service, memories, timeout=1800):
    """Waits until the service's backfill has made every imported memory's vector, as
    `db status` reports it (an import's vectors are made in the background)."""
    started = time.monotonic()
    while True:
        status = service.run("db", "status")
        line = next((l for l in status.splitlines() if l.startswith("meaning:")), "")
        if "every memory has its vector" in line:
            print(f"vectors made for {memories} memories in {time.monotonic() - started:.1f} s", file=sys.stderr)
            return
        if "unavailable" in line or "off" in line.split(",")[0]:
            raise BenchError(f"search by meaning is not on: {line}")
        if time.monotonic() - started > timeout:
            raise BenchError(f"the vectors were not made within {timeout} s: {line}")
        time.sleep(0.5)


def percentile(values, p):
    """Nearest-rank percentile of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))]


def summarize(ranks, ks):
    """hit@k and MRR over first-relevant ranks (None: not in the results)."""
    n = len(ranks)
    row = {"questions": n}
    for k in ks:
        row[f"hit@{k}"] = sum(1 for r in ranks if r is not None and r <= k) / n if n else 0.0
    row["mrr"] = sum(1 / r for r in ranks if r is not None) / n if n else 0.0
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, help="path to a memory-bank binary")
    ap.add_argument("--data", default=os.path.join(CACHE, "locomo", "locomo10.json"),
                    help="locomo10.json (default: where fetch.sh puts it)")
    ap.add_argument("--limit", type=int, default=20, help="results asked per search, 1-50 (default 20)")
    ap.add_argument("--snippets", choices=["none", "dialogue"], default="none",
                    help="dialogue: each memory also cites its dialogue turns as contexts "
                         "(snippet, conversation and message ids), which search reads too")
    ap.add_argument("--conversations", type=int, help="only the first N conversations")
    ap.add_argument("--json", metavar="OUT", help="write the results (and every question's rank) here")
    ap.add_argument("--search", choices=["hybrid", "words"], default="hybrid",
                    help="hybrid (default): words and meaning; words: `--words-only`, no model")
    ap.add_argument("--model-dir", default=os.environ.get("MEMORY_BANK_MODEL_DIR") or os.path.join(
                        os.path.expanduser("~"), ".cache", "memory-bank", "model", "all-minilm-l6-v2"),
                    help="the embedding model's folder (default: where scripts/fetch-model.sh puts it)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary bank and log")
    args = ap.parse_args()
    if not 1 <= args.limit <= 50:
        raise BenchError("--limit must be 1-50 (the service's largest search limit)")
    if not (os.path.isfile(args.bin) and os.access(args.bin, os.X_OK)):
        raise BenchError(f"--bin {args.bin}: not an executable file")
    if not os.path.isfile(args.data):
        raise BenchError(f"{args.data} is missing: run bench/recall/fetch.sh first, or pass --data")
    with open(args.data, "rb") as f:
        raw = f.read()
    samples = json.loads(raw)[: args.conversations]
    ks = [k for k in (1, 5, 10, 20, 50) if k <= args.limit]

    folder = tempfile.mkdtemp(prefix="memory-bank-recall-")
    if args.search == "hybrid" and not os.path.isfile(os.path.join(args.model_dir, "tokenizer.json")):
        raise BenchError(f"the embedding model is not in {args.model_dir}: run scripts/fetch-model.sh, or pass --model-dir")
    service = Service(os.path.abspath(args.bin), folder, args.search, args.model_dir)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so `finally` stops the service
    try:
        version = subprocess.run([service.binary, "--version"], capture_output=True, text=True).stdout.strip()
        org = service.run("admin", "org", "add", "LoCoMo recall benchmark")
        banks = [build_bank(s, args.snippets) for s in samples]
        for bank in banks:
            user = service.run("admin", "user", "add", f"{bank['sample_id']}@recall.bench.invalid")
            service.run("admin", "member", "add", org, user)
            bank["token"] = service.run("admin", "token", "issue", user)
        base = service.start()
        print(f"{version}: serving {base} on {service.url}", file=sys.stderr)

        refused, per_question, latencies = [], [], []
        skipped = {"no evidence": 0, "evidence has no memory": 0}
        totals = {"conversations": len(banks), "memories": 0}
        for bank in banks:
            client = Client(base, bank["token"], org)
            body = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in bank["lines"]).encode()
            report, _ = client.call("POST", "/v1/import", body, "application/x-ndjson")
            for failure in report.get("failed", []):
                line = bank["lines"][failure["line"] - 1]
                refused.append({"conversation": bank["sample_id"], "content": line["content"],
                                "error": failure["error"], "message": failure["message"]})
                bank["cites"].pop(line["id"], None)
            if report["failedCount"] > len(report.get("failed", [])):
                raise BenchError(f"{bank['sample_id']}: more refused lines than the report lists")
            for moved in report.get("newIds", []):  # a line imported under another id
                bank["cites"][moved["id"]] = bank["cites"].pop(bank["lines"][moved["line"] - 1]["id"])
            totals["memories"] += report["imported"]
            client.close()
        if args.search == "hybrid":
            wait_for_vectors(service, totals["memories"])
        for bank in banks:
            client = Client(base, bank["token"], org)
            cited = set().union(*bank["cites"].values()) if bank["cites"] else set()
            for qa in bank["qa"]:
                evidence = set(dialogue_ids(qa.get("evidence", [])))
                if not evidence:
                    skipped["no evidence"] += 1
                    continue
                if not evidence & cited:
                    skipped["evidence has no memory"] += 1
                    continue
                q = " ".join(qa["question"].split())[:MAX_QUERY_CHARS]
                path = "/v1/memory/search?" + urllib.parse.urlencode({"q": q, "limit": args.limit})
                answer, elapsed = client.call("GET", path)
                latencies.append(elapsed * 1000)
                ids = [r["id"] for r in answer["results"]]
                rank = next((i for i, mid in enumerate(ids, 1) if bank["cites"].get(mid, set()) & evidence), None)
                per_question.append({"conversation": bank["sample_id"], "category": qa["category"],
                                     "question": qa["question"], "evidence": sorted(evidence), "rank": rank,
                                     "results": [sorted(bank["cites"].get(mid, [])) for mid in ids[:10]]})
            client.close()
    finally:
        service.stop()
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            print(f"kept {folder}", file=sys.stderr)

    scored = [p for p in per_question if p["category"] != 5]
    table = {"overall (1-4)": summarize([p["rank"] for p in scored], ks)}
    for c, name in CATEGORIES.items():
        table[f"{c} {name}"] = summarize([p["rank"] for p in per_question if p["category"] == c], ks)
    latency = {"p50_ms": percentile(latencies, 50), "p95_ms": percentile(latencies, 95),
               "max_ms": max(latencies), "searches": len(latencies)} if latencies else {}

    cols = [f"hit@{k}" for k in ks] + ["mrr"]  # MRR counts ranks within the limit only
    print(f"\nLoCoMo recall, {totals['memories']} memories in {totals['conversations']} banks, "
          f"search {args.search}, limit {args.limit}, snippets {args.snippets}\n")
    print("| questions | n | " + " | ".join(cols[:-1]) + f" | MRR@{args.limit} |")
    print("|---|---:|" + "---:|" * len(cols))
    for name, row in table.items():
        print(f"| {name} | {row['questions']} | " + " | ".join(
            f"{row[c]:.3f}" if c == "mrr" else f"{100 * row[c]:.1f} %" for c in cols) + " |")
    print(f"\nskipped: {skipped['no evidence']} without evidence, {skipped['evidence has no memory']} "
          f"whose evidence no memory cites; category 5 (adversarial) is not in the overall row")
    print(f"refused by the import: {len(refused)}" + "".join(
        f"\n  {r['conversation']}: {r['error']}: {r['content']!r}" for r in refused))
    if latency:
        print(f"search latency over {latency['searches']} searches (client side, keep-alive): "
              f"p50 {latency['p50_ms']:.2f} ms, p95 {latency['p95_ms']:.2f} ms, max {latency['max_ms']:.2f} ms")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"binary": version, "data": {"path": args.data, "sha256": hashlib.sha256(raw).hexdigest()},
                       "search": args.search, "limit": args.limit, "snippets": args.snippets, "corpus": totals, "skipped": skipped,
                       "refused": refused, "metrics": table, "latency": latency,
                       "questions": per_question}, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"wrote {args.json}", file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except BenchError as e:
        sys.exit(f"recall.py: {e}")
    except KeyboardInterrupt:
        sys.exit(130)
