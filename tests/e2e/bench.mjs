// Desktop benchmark (not a test): cold start to first painted list, scrolling through
// 10 000 memories, and idle memory (RSS of every app process) with them loaded.
// Run under Xvfb after scripts/test.sh built everything:
//   xvfb-run -a -s "-screen 0 1280x800x24" node tests/e2e/bench.mjs
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { Harness, sleep } from "./harness.mjs";

const ROWS = Number(process.env.ROWS ?? 10000);
const h = new Harness();
await h.start();
try {

// Seed through the HTTP API, 8 requests at a time.
const t0 = Date.now();
let next = 0;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next < ROWS) {
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
console.log(`seeded ${ROWS} memories in ${Date.now() - t0} ms`);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const firstRow = "//article[contains(@class,'row')]";

/** When the newest app process started, in ms since the epoch (10 ms resolution). */
function appStartedAt() {
  const pid = execFileSync("pgrep", ["-n", "-f", "target/debug/memory-bank-app|target/release/memory-bank-app"]).toString().trim();
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const startTicks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]); // field 22: starttime
  const uptime = Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
  return Date.now() - (uptime - startTicks / 100) * 1000; // USER_HZ is 100 on Linux
}

// Cold start, two ways: from asking WebDriver for a session (which launches the app) to
// the first row painted, and from the app process's start to that paint (no WebDriver).
const starts = [];
const inApp = [];
for (let run = 0; run < 5; run++) {
  const began = performance.now();
  const app = await h.openApp();
  await app.$(firstRow).waitForExist({ timeout: 30000 });
  const paintedAt = await app.executeAsync((done) =>
    requestAnimationFrame(() => requestAnimationFrame(() => done(performance.timeOrigin + performance.now()))),
  );
  starts.push(performance.now() - began);
  inApp.push(paintedAt - appStartedAt());
  await app.deleteSession();
  await sleep(500);
}
const runs = (xs) => xs.map((s) => s.toFixed(0)).join(", ");
console.log(`cold start to first painted list: median ${median(starts).toFixed(0)} ms (runs: ${runs(starts)})`);
console.log(`  of which app process start to first painted list: median ${median(inApp).toFixed(0)} ms (runs: ${runs(inApp)})`);

// Scroll to the end: every page is fetched and rendered through the virtual list.
const app = await h.openApp();
await app.setTimeout({ script: 600000 });
await app.$(firstRow).waitForExist({ timeout: 30000 });
// Phase 1: keep scrolling to the end until the oldest memory is rendered: every page
// is fetched through the command layer and laid out by the virtual list.
const began = performance.now();
let turns = 0;
for (;;) {
  turns++;
  const reachedOldest = await app.execute(() => {
    const list = document.querySelector(".list-scroll");
    list.scrollTop = list.scrollHeight;
    return [...document.querySelectorAll(".row-title")].some((e) => e.textContent.startsWith("Benchmark memory number 0:"));
  });
  if (reachedOldest) break;
  if (performance.now() - began > 600000) throw new Error("did not reach the oldest memory in 10 minutes");
  await app.executeAsync((done) => requestAnimationFrame(() => done()));
}
const loadedAll = performance.now() - began;
// Phase 2: all data cached, a full pass top to bottom one screen per frame, in chunks.
await app.execute(() => (document.querySelector(".list-scroll").scrollTop = 0));
const frames = [];
const passBegan = performance.now();
for (;;) {
  const chunk = await app.executeAsync((done) => {
    const list = document.querySelector(".list-scroll");
    const times = [];
    let prev = performance.now();
    const step = () => {
      if (times.length >= 100 || list.scrollTop + list.clientHeight >= list.scrollHeight - 1) {
        done({ times, end: list.scrollTop + list.clientHeight >= list.scrollHeight - 1 });
        return;
      }
      list.scrollTop += list.clientHeight;
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
  if (chunk.end) break;
}
const pass = performance.now() - passBegan;
frames.sort((a, b) => a - b);
const rendered = await app.execute(() => document.querySelectorAll(".row").length);
console.log(
  `scroll to the oldest of ${ROWS}: ${loadedAll.toFixed(0)} ms (${turns} turns); full cached pass: ${pass.toFixed(0)} ms over ` +
    `${frames.length} screens, frame p50 ${frames[Math.floor(frames.length / 2)].toFixed(1)} ms / p95 ` +
    `${frames[Math.floor(frames.length * 0.95)].toFixed(1)} ms; ${rendered} rows in the DOM`,
);

// Idle memory with everything loaded: the app plus its WebKit processes.
await sleep(5000);
const appPid = execFileSync("pgrep", ["-n", "-f", "target/debug/memory-bank-app|target/release/memory-bank-app"]).toString().trim();
const tree = (pid) => {
  let kids = [];
  try {
    kids = execFileSync("pgrep", ["-P", pid]).toString().trim().split("\n").filter(Boolean);
  } catch {}
  return [pid, ...kids.flatMap(tree)];
};
const pids = tree(appPid);
const rows = execFileSync("ps", ["-o", "pid=,rss=,comm=", "-p", pids.join(",")]).toString().trim().split("\n");
const total = rows.reduce((sum, row) => sum + Number(row.trim().split(/\s+/)[1]), 0);
// RSS counts shared libraries once per process; PSS splits shared pages fairly, so
// the PSS sum is what the app really costs the machine.
const pss = pids.reduce((sum, pid) => {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    return sum + Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
  } catch {
    return sum;
  }
}, 0);
console.log(`idle memory with ${ROWS} memories loaded: RSS sum ${(total / 1024).toFixed(0)} MB, PSS sum ${(pss / 1024).toFixed(0)} MB`);
for (const row of rows) console.log(`  ${row.trim()}`);
await app.deleteSession();
} finally {
  await h.stop();
}
