// Bench helper (not a test): a quicker bench.mjs for screening idle-memory levers (issue
// 14, BENCHMARKS.md). One seeded service; each variant (a binary plus environment
// variables) in turn, ROUNDS times, so the machine's changing load hits them alike. Per
// variant and round: the app through WebDriver, its first page painted and idle (PSS),
// then scrolled to the oldest memory and back up one screen per frame (frame p50 / p95),
// idle again (PSS), each with the web process's smaps broken down (smaps-breakdown.mjs).
// The empty app runs as one more variant (FLOOR=0 to skip it). IDLE_CPU_MS (default 0:
// not measured) after the scrolled measurement: the CPU time each process used while idle
// that long.
//   VARIANTS='[{"name":"main","bin":"/path/app","env":{}}, …]' ROWS=10000 ROUNDS=2 \
//     xvfb-run -a -s "-screen 0 1280x800x24" node tests/e2e/bench-screen.mjs
// A variant's "ui" (a `vite build` output folder) is linked as UI_LINK before it starts,
// for an app built without custom-protocol whose devUrl server serves UI_LINK.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { remote } from "webdriverio";
import { Harness, appBinary, root, sleep } from "./harness.mjs";
import { breakdown, grouped } from "./smaps-breakdown.mjs";
import { cpuMsOf, framesUpToTheTop, median, newestPid, p95, processTree, scrollToOldest, seedBenchMemories } from "./bench-support.mjs";

process.env.MEMORY_BANK_RATE_LIMIT ??= "0";
const ROWS = Number(process.env.ROWS ?? 10000);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const IDLE_MS = Number(process.env.IDLE_MS ?? 5000);
const SCROLL = process.env.SCROLL !== "0";
const IDLE_CPU_MS = Number(process.env.IDLE_CPU_MS ?? 0);
const floorBinary = path.resolve(process.env.TAURI_FLOOR_APP ?? path.join(root, "target/debug/tauri-floor"));
const variants = JSON.parse(process.env.VARIANTS ?? JSON.stringify([{ name: "app", bin: appBinary, env: {} }]));
if (process.env.FLOOR !== "0") variants.push({ name: "empty app", bin: floorBinary, env: {}, floor: true });

const mb = (kb) => (kb / 1024).toFixed(0);
const oldest = "Benchmark memory number 0:";
const newest = `Benchmark memory number ${ROWS - 1}:`;

/** PSS per process (kB) and the web process's grouped breakdown. */
function measure(binary) {
  const out = { procs: {}, pss: 0, web: null };
  for (const pid of processTree(newestPid(binary))) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      const pss = Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))[1]);
      out.procs[comm] = (out.procs[comm] ?? 0) + pss;
      out.pss += pss;
      if (comm.startsWith("WebKitWebProces")) {
        const kinds = breakdown(pid);
        out.web = Object.fromEntries(grouped(kinds));
        out.webTop = [...kinds].sort((a, b) => b[1].pss - a[1].pss).slice(0, 40).map(([k, v]) => [k, v.pss]);
      }
    } catch {}
  }
  return out;
}

// A variant's environment reaches the app through a wrapper (tauri-driver's environment
// is fixed); `exec -a "$0"` keeps the wrapper's path as argv[0], so pgrep finds it.
function wrapper(dir, v, i) {
  if (!Object.keys(v.env).length) return v.bin;
  const file = path.join(dir, `variant-${i}`);
  const exports = Object.entries(v.env).map(([k, val]) => `export ${k}='${val}'`).join("\n");
  writeFileSync(file, `#!/bin/bash\n${exports}\nexec -a "$0" '${v.bin}' "$@"\n`, { mode: 0o755 });
  return file;
}

const h = new Harness();
await h.start();
const results = [];
try {
  await seedBenchMemories(h, ROWS);
  const bins = variants.map((v, i) => wrapper(h.dir, v, i));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [i, v] of variants.entries()) {
      const bin = bins[i];
      // A variant may serve its own UI build to a dev-mode app (devUrl): `ui` is linked
      // to as UI_LINK, the folder a static server on the devUrl's port serves.
      if (v.ui) execFileSync("ln", ["-sfn", v.ui, process.env.UI_LINK]);
      const app = await remote({
        hostname: "127.0.0.1",
        port: h.driverPort,
        logLevel: "error",
        capabilities: { browserName: "wry", "tauri:options": { application: bin }, "wdio:enforceWebDriverClassic": true },
      });
      const r = { name: v.name, round, load: readFileSync("/proc/loadavg", "utf8").split(" ")[0] };
      try {
        await app.setTimeout({ script: 600000 });
        if (v.floor) await app.waitUntil(() => app.execute(() => document.readyState === "complete"), { timeout: 30000 });
        else await app.$("//article[contains(@class,'row')]").waitForExist({ timeout: 30000 });
        await sleep(IDLE_MS);
        r.idle = measure(bin);
        if (!v.floor && SCROLL) {
          r.toOldestMs = (await scrollToOldest(app, oldest)).ms;
          const frames = await framesUpToTheTop(app);
          await app.waitUntil(
            () => app.execute((t) => [...document.querySelectorAll(".row-title")].some((e) => e.textContent.startsWith(t)), newest),
            { timeout: 60000, interval: 50 },
          );
          r.frames = { n: frames.length, p50: median(frames), p95: p95(frames) };
          await sleep(IDLE_MS);
          r.scrolled = measure(bin);
          if (IDLE_CPU_MS) {
            const before = cpuMsOf(newestPid(bin));
            await sleep(IDLE_CPU_MS);
            const after = cpuMsOf(newestPid(bin));
            r.idleCpuPercent = Object.fromEntries(Object.entries(after).map(([c, ms]) => [c, (100 * (ms - (before[c] ?? 0))) / IDLE_CPU_MS]));
          }
        }
      } finally {
        await app.deleteSession();
        await sleep(1000);
      }
      const web = (m) => mb(Object.entries(m.procs).find(([c]) => c.startsWith("WebKitWeb"))?.[1] ?? 0);
      console.log(
        `round ${round} ${v.name.padEnd(28)} load ${r.load}: idle ${mb(r.idle.pss)} MB (web ${web(r.idle)})` +
          (r.scrolled ? `; scrolled ${mb(r.scrolled.pss)} MB (web ${web(r.scrolled)}), frames ${r.frames.n} p50 ${r.frames.p50.toFixed(0)} p95 ${r.frames.p95.toFixed(0)} ms, to oldest ${(r.toOldestMs / 1000).toFixed(1)} s` : "") +
          (r.idleCpuPercent ? `; idle CPU ${Object.entries(r.idleCpuPercent).map(([c, pct]) => `${c} ${pct.toFixed(2)} %`).join(", ")}` : ""),
      );
      results.push(r);
      // Written after every variant, so a run that fails later keeps what it measured.
      if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(results, null, 2));
    }
  }
  // The web process's breakdown, median per group over the rounds, per variant and state.
  const groups = [...new Set(results.flatMap((r) => [r.idle, r.scrolled].filter(Boolean).flatMap((m) => Object.keys(m.web ?? {}))))];
  for (const state of ["idle", "scrolled"]) {
    const cols = variants.filter((v) => results.some((r) => r.name === v.name && r[state]));
    console.log(`\nweb process PSS (MB, median of ${ROUNDS}), ${state}: ${cols.map((v) => v.name).join(" | ")}`);
    for (const g of groups) {
      const vals = cols.map((v) => median(results.filter((r) => r.name === v.name && r[state]).map((r) => r[state].web?.[g] ?? 0)) / 1024);
      if (vals.some((x) => x >= 0.5)) console.log(`  ${g.padEnd(40)} ${vals.map((x) => x.toFixed(1).padStart(7)).join(" ")}`);
    }
  }
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(results, null, 2));
} finally {
  await h.stop();
}
