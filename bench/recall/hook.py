#!/usr/bin/env python3
"""The recall hook's latency: how long `memory-bank recall` takes, process start to exit,
as an agent's hook runner sees it, on a local bank of N memories.

The bank is filled by `memory-bank-bench --load-local-bank` (its synthetic corpus, a Zipf
vocabulary, the same rows its search bench loads). Each prompt is the hook's JSON on stdin,
as Claude Code sends it for UserPromptSubmit, of one of three kinds:

- short:    a question naming a mid-frequency and a rare word ("how do I <mid> the <rare>?");
- sentence: a saved memory's sentence with a few words changed (the hook has something to say);
- long:     eighty words of the corpus in one prompt (a pasted log or note).

Each run is one new process, as in an agent: nothing stays warm between runs but the OS
page cache. Plaintext bank first, then the same bank encrypted (SQLCipher, a key file).

    python3 bench/recall/hook.py --bin target/release/memory-bank \\
        --bench-bin target/release/memory-bank-bench --memories 10000 --runs 300

Standard library only.
"""
import argparse, json, os, random, shutil, statistics, subprocess, sys, tempfile, time


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def prompts(corpus, queries, runs, rng):
    kinds = []
    for i in range(runs):
        kind = ("short", "sentence", "long")[i % 3]
        if kind == "short":
            text = f"how do I {rng.choice(queries['mid'])} the {rng.choice(queries['rare'])}?"
        elif kind == "sentence":
            words = rng.choice(corpus).split()
            for _ in range(max(1, len(words) // 5)):
                words[rng.randrange(len(words))] = rng.choice(queries["common"])
            text = " ".join(words)
        else:
            text = " ".join(" ".join(rng.choice(corpus) for _ in range(12)).split()[:80])
        kinds.append((kind, text))
    return kinds


def run_hook(binary, env, args, prompt, cwd, strict=True):
    event = json.dumps({"session_id": "bench", "transcript_path": "/tmp/bench.jsonl", "cwd": cwd,
                        "hook_event_name": "UserPromptSubmit", "prompt": prompt})
    started = time.perf_counter()
    done = subprocess.run([binary, *args, "recall", "--agent", "claude-code"], input=event.encode(),
                          capture_output=True, env=env)
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise SystemExit(f"recall exited {done.returncode}: {done.stderr.decode()}")
    if strict and done.stderr:
        raise SystemExit(f"recall logged a failure: {done.stderr.decode()}")
    return elapsed, len(done.stdout)


def measure(label, binary, env, args, cases):
    times = {"all": []}
    spoke = bytes_out = 0
    for kind, prompt in cases:
        ms, printed = run_hook(binary, env, args, prompt, "/home/bench/work/app")
        times.setdefault(kind, []).append(ms)
        times["all"].append(ms)
        spoke += printed > 0
        bytes_out += printed
    print(f"\n{label}: {len(cases)} runs, {100 * spoke / len(cases):.0f} % printed memories "
          f"({bytes_out / max(spoke, 1):.0f} bytes of JSON on average when it did)")
    print(f"  {'prompt':<9} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7}")
    for kind in ("short", "sentence", "long", "all"):
        if kind in times:
            values = times[kind]
            print(f"  {kind:<9} {statistics.median(values):>7.1f} {percentile(values, 0.95):>7.1f} {max(values):>7.1f}")
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the memory-bank binary (release)")
    parser.add_argument("--bench-bin", required=True, help="memory-bank-bench, to fill the bank")
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="memory-bank-hook-bench-")
    try:
        data = os.path.join(work, "data")
        os.makedirs(data, mode=0o700)
        corpus_file, queries_file = os.path.join(work, "corpus.jsonl"), os.path.join(work, "queries.json")
        subprocess.run([args.bench_bin, "--load-local-bank", data, "--memories", str(args.memories), "--queries", "200",
                        "--corpus-out", corpus_file, "--queries-out", queries_file], check=True)
        with open(corpus_file) as f:
            corpus = [json.loads(line) for line in f]
        with open(queries_file) as f:
            queries = json.load(f)
        cases = prompts(corpus, queries, args.runs, rng)
        home = os.path.join(work, "home")
        os.makedirs(home)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "MEMORY_BANK_DATA_DIR": data}
        print(f"memory-bank recall, {args.memories} memories, one process per prompt (median and p95 of {args.runs} runs)")
        # The plaintext bank (the key file stays unused until the encrypted pass): first
        # once untimed, so both passes start with the bank file in the page cache.
        run_hook(args.bin, env, [], "warm up", "/w", strict=False)
        measure("plaintext bank", args.bin, env, [], cases)
        key = os.path.join(work, "bank.key")
        with open(os.open(key, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(os.urandom(32).hex())
        # The first open with a key file encrypts the plaintext bank (untimed).
        run_hook(args.bin, env, ["--db-key-file", key], "warm up", "/w", strict=False)
        measure("encrypted bank (SQLCipher, key file)", args.bin, env, ["--db-key-file", key], cases)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
