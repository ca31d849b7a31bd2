// What the desktop benchmarks share (not tests): percentiles, the app's process tree,
// and the seeded list they scroll.
import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { sleep, waitFor } from "./harness.mjs";

const sorted = (xs) => [...xs].sort((a, b) => a - b);
export const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
export const p95 = (xs) => sorted(xs)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)];

/** The newest process running `binary` (the exact path), or null. */
export function newestPid(binary) {
  try {
    return execFileSync("pgrep", ["-n", "-f", `^${binary.replace(/[.+]/g, "\\$&")}( |$)`]).toString().trim() || null;
  } catch {
    return null;
  }
}

/** `pid` and all its descendants: the app, its WebKit web and network processes. */
export function processTree(pid) {
  let kids = [];
  try {
    kids = execFileSync("pgrep", ["-P", pid]).toString().trim().split("\n").filter(Boolean);
  } catch {}
  return [pid, ...kids.flatMap(processTree)];
}

/**
 * CPU time (ms, user + system) each process of the tree has used so far, by command name,
 * from /proc/PID/stat (clock ticks of 10 ms on Linux).
 */
export function cpuMsOf(rootPid) {
  const byComm = {};
  for (const pid of processTree(rootPid)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      byComm[comm] = (byComm[comm] ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime
    } catch {} // exited meanwhile
  }
  return byComm;
}

/** The app's environment in the benches: the harness's service, temporary home and data folder, English. */
export const benchAppEnv = (h) => ({
  ...h.clientEnv,
  ...h.homeEnv,
  MEMORY_BANK_DATA_DIR: path.join(h.dir, "app"),
  LANG: "en_US.UTF-8",
  LANGUAGE: "en",
});

/**
 * Starts `binary` as a person would (no WebDriver), lets it idle `idleMs`, returns what
 * `measure(pid)` read, and stops it (SIGTERM, then a second for its web processes to go,
 * so none shares library pages with the next measurement).
 */
export async function measureStartedDirectly(binary, env, idleMs, measure) {
  const child = spawn(binary, [], { env, stdio: "ignore" });
  try {
    await waitFor(() => newestPid(binary) === String(child.pid), 10000, `${binary} to start`);
    await sleep(idleMs);
    return measure(String(child.pid));
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", resolve)));
    await sleep(1000);
  }
}

/** Saves `rows` memories ("Benchmark memory number i: …") through the harness's service, 8 requests at a time. */
export async function seedBenchMemories(h, rows) {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < rows) {
        const i = next++;
        const response = await fetch(`${h.url}/v1/memory`, {
          method: "POST",
          headers: { authorization: `Bearer ${h.token}`, "x-org-id": h.org, "content-type": "application/json" },
          body: JSON.stringify({ content: `Benchmark memory number ${i}: the quick brown fox jumps over the lazy dog`, tags: ["bench"] }),
        });
        if (response.status !== 201) throw new Error(`seed failed: ${response.status}`);
      }
    }),
  );
}

/**
 * Scrolls the memory list to its end, a frame at a time, until a row whose title starts
 * with `title` (the oldest memory) is rendered; every page is fetched on the way.
 * Returns the time it took and the number of scroll turns.
 */
export async function scrollToOldest(app, title) {
  const began = performance.now();
  let turns = 0;
  for (;;) {
    turns++;
    const reached = await app.execute((t) => {
      const list = document.querySelector(".list-scroll");
      list.scrollTop = list.scrollHeight;
      return [...document.querySelectorAll(".row-title")].some((e) => e.textContent.startsWith(t));
    }, title);
    if (reached) return { ms: performance.now() - began, turns };
    if (performance.now() - began > 600000) throw new Error("did not reach the oldest memory in 10 minutes");
    await app.executeAsync((done) => requestAnimationFrame(() => done()));
  }
}

/**
 * RSS and PSS of every process in the tree, in kB. RSS counts a shared library once per
 * process; PSS splits each shared page among the processes that map it, so the PSS sum
 * is what the app costs the machine. Pss_Anon is the private heap (JavaScript, malloc).
 */
export function memoryOf(rootPid) {
  const processes = [];
  for (const pid of processTree(rootPid)) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(rollup)?.[1] ?? 0);
      const comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      processes.push({ pid, comm, rss: field("Rss"), pss: field("Pss"), pssAnon: field("Pss_Anon"), pssFile: field("Pss_File") });
    } catch {} // exited meanwhile
  }
  const sum = (key) => processes.reduce((total, p) => total + p[key], 0);
  return { processes, rss: sum("rss"), pss: sum("pss"), pssAnon: sum("pssAnon"), pssFile: sum("pssFile") };
}

/** Scrolls the memory list back up one screen per frame, to the top; each frame's time (ms). */
export async function framesUpToTheTop(app) {
  const frames = [];
  for (;;) {
    const chunk = await app.executeAsync((done) => {
      const list = document.querySelector(".list-scroll");
      const times = [];
      let prev = performance.now();
      const step = () => {
        if (times.length >= 100 || list.scrollTop <= 0) return done({ times, end: list.scrollTop <= 0 });
        list.scrollTop -= list.clientHeight;
        requestAnimationFrame(() => {
          const now = performance.now();
          times.push(now - prev);
          prev = now;
          step();
        });
      };
      step();
    });
    frames.push(...chunk.times);
    if (chunk.end) return frames;
  }
}
