#!/usr/bin/env python3
"""What a flood of made-up bearer tokens costs `memory-bank serve` in memory (issue 28).

Starts the given binary on a fresh SQLite bank (default rate limits), warms it with
50 authenticated requests, reads its resident memory (VmRSS), sends N requests each
with its own random token of SIZE bytes, waits a second and reads VmRSS again. Prints
both, the statuses seen, and the difference.

    python3 bench/limiter-rss/measure.py BIN [--tokens 4000] [--size 6144] [--clients 8] [--rate-limit N]

`--rate-limit N` starts it with `MEMORY_BANK_RATE_LIMIT` and `MEMORY_BANK_RATE_BURST` at N
(a limit the flood never reaches, so every token is looked up and answered 401).

Linux only (reads /proc). Standard library only.
"""

import argparse
import http.client
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def admin(binary, db, *args):
    out = subprocess.run([binary, "--database-url", db, "admin", *args], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def get(port, path, headers):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    response.read()
    conn.close()
    return response.status


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--tokens", type=int, default=4000)
    parser.add_argument("--size", type=int, default=6144)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rate-limit", type=int)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite://{tmp}/rss.db"
        user = admin(args.binary, db, "user", "add", "rss@example.com")
        org = admin(args.binary, db, "org", "add", "Bench")
        admin(args.binary, db, "member", "add", org, user)
        token = admin(args.binary, db, "token", "issue", user)
        port = free_port()
        env = dict(os.environ, MEMORY_BANK_LOG="warn")
        if args.rate_limit:
            env.update(MEMORY_BANK_RATE_LIMIT=str(args.rate_limit), MEMORY_BANK_RATE_BURST=str(args.rate_limit))
        server = subprocess.Popen(
            [args.binary, "--database-url", db, "serve", "--listen", f"127.0.0.1:{port}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
        )
        try:
            for _ in range(100):
                try:
                    get(port, "/healthz", {})
                    break
                except OSError:
                    time.sleep(0.1)
            real = {"Authorization": f"Bearer {token}", "X-Org-Id": org}
            for _ in range(50):
                get(port, "/v1/memory", real)
                time.sleep(0.06)  # under the default 20 a second
            time.sleep(1)
            before = rss_kb(server.pid)

            statuses = Counter()
            lock = threading.Lock()

            def flood(count):
                for _ in range(count):
                    bogus = "mbk_" + secrets.token_urlsafe(args.size)[: args.size - 4]
                    status = get(port, "/v1/memory", {"Authorization": f"Bearer {bogus}", "X-Org-Id": org})
                    with lock:
                        statuses[status] += 1

            share = args.tokens // args.clients
            threads = [threading.Thread(target=flood, args=(share,)) for _ in range(args.clients)]
            started = time.monotonic()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            took = time.monotonic() - started
            time.sleep(1)
            after = rss_kb(server.pid)
        finally:
            server.terminate()
            server.wait()

    sent = share * args.clients
    print(f"{sent} requests with distinct {args.size}-byte tokens in {took:.1f} s; statuses {dict(sorted(statuses.items()))}")
    print(f"VmRSS before {before / 1024:.1f} MB, after {after / 1024:.1f} MB: +{(after - before) / 1024:.1f} MB")


if __name__ == "__main__":
    sys.exit(main())
