// Desktop benchmark helper (not a test), for screening UI variants for issue 14: bench.mjs's
// scroll (to the oldest of ROWS memories, then back up one screen per frame) and idle
// memory, for several app binaries against ONE seeded service (seeding 10 000 memories
// takes ~3 min on a debug build), interleaved run by run so drift hits every variant alike;
// the empty Tauri app is measured once per run. PSS is read IDLE_MS (5000) after reaching
// the oldest memory (every page fetched, few rows rendered), IDLE_MS after the pass back
// up (bench.mjs's figure) and 10 s later, with the web process's breakdown by mapping
// kind (smaps-breakdown.mjs). Medians and each run's figures are printed, since
// the scrolled web process's PSS varies by ±10 MB from run to run.
//   VARIANTS=/path/app-a,/path/app-b RUNS=3 TAURI_FLOOR_APP=… MEMORY_BANK_BIN=… \
//     xvfb-run -a -s "-screen 0 1280x800x24" node tests/e2e/bench-variants.mjs
import { writeFileSync } from "node:fs";
import { remote } from "webdriverio";
import { Harness, sleep } from "./harness.mjs";
import { framesUpToTheTop, median as med, memoryOf, newestPid, p95, scrollToOldest, seedBenchMemories } from "./bench-support.mjs";
import { breakdown, grouped } from "./smaps-breakdown.mjs";

process.env.MEMORY_BANK_RATE_LIMIT ??= "0";
const ROWS = Number(process.env.ROWS ?? 10000);
const RUNS = Number(process.env.RUNS ?? 3);
const IDLE_MS = Number(process.env.IDLE_MS ?? 5000);
const VARIANTS = process.env.VARIANTS.split(",");
const floorBinary = process.env.TAURI_FLOOR_APP;
const firstRow = "//article[contains(@class,'row')]";
const newest = `Benchmark memory number ${ROWS - 1}:`;
const oldest = "Benchmark memory number 0:";
const mb = (kb) => (kb / 1024).toFixed(1);

/** memoryOf, with the web process's breakdown by mapping kind (groups of 1 MB or more, in MB). */
function memoryWithWebGroups(rootPid) {
  const m = memoryOf(rootPid);
  for (const p of m.processes.filter((p) => p.comm.startsWith("WebKitWebProces"))) {
    try {
      p.groups = Object.fromEntries([...grouped(breakdown(p.pid))].filter(([, v]) => v >= 1024).map(([k, v]) => [k, Math.round(v / 1024)]));
    } catch {} // exited meanwhile
  }
  return m;
}
const byComm = (m, prefix) => m.processes.filter((p) => p.comm.startsWith(prefix)).reduce((s, p) => s + p.pss, 0);

const open = (h, binary) =>
  remote({ hostname: "127.0.0.1", port: h.driverPort, logLevel: "error",
    capabilities: { browserName: "wry", "tauri:options": { application: binary }, "wdio:enforceWebDriverClassic": true } });
const twoFrames = (app) => app.executeAsync((done) => requestAnimationFrame(() => requestAnimationFrame(() => done())));

const h = new Harness();
await h.start();
const results = [];
try {
  const t0 = Date.now();
  await seedBenchMemories(h, ROWS);
  console.log(`seeded ${ROWS} in ${Date.now() - t0} ms`);
  for (let run = 1; run <= RUNS; run++) {
    for (const binary of VARIANTS) {
      const app = await open(h, binary);
      await app.setTimeout({ script: 600000 });
      await app.$(firstRow).waitForExist({ timeout: 30000 });
      const { ms: toOldestMs } = await scrollToOldest(app, oldest);
      await sleep(IDLE_MS);
      const mid = memoryWithWebGroups(newestPid(binary));
      const frames = await framesUpToTheTop(app);
      await app.waitUntil(() => app.execute((t) => [...document.querySelectorAll(".row-title")].some((e) => e.textContent.startsWith(t)), newest), { timeout: 60000, interval: 50 });
      await twoFrames(app);
      await sleep(IDLE_MS);
      const m = memoryWithWebGroups(newestPid(binary));
      await sleep(10000);
      const late = memoryWithWebGroups(newestPid(binary));
      await app.deleteSession();
      await sleep(1000);
      const r = { run, binary, toOldestMs, p50: med(frames), p95: p95(frames), frames: frames.length, pss: m.pss, app: byComm(m, binary.split("/").pop().slice(0, 15)), web: byComm(m, "WebKitWebProces"), net: byComm(m, "WebKitNetworkPr"), pssMid: mid.pss, webMid: byComm(mid, "WebKitWebProces"), pss15: late.pss, web15: byComm(late, "WebKitWebProces"), webGroups: m.processes.find((p) => p.groups)?.groups };
      results.push(r);
      console.log(`run ${run} ${binary}: to oldest ${toOldestMs.toFixed(0)} ms, ${r.frames} frames p50 ${r.p50.toFixed(1)} p95 ${r.p95.toFixed(1)}; PSS sum ${mb(r.pss)} MB (app ${mb(r.app)}, web ${mb(r.web)}, net ${mb(r.net)}); at the oldest PSS sum ${mb(r.pssMid)} (web ${mb(r.webMid)}); at 15 s PSS sum ${mb(r.pss15)} (web ${mb(r.web15)}) web groups ${JSON.stringify(r.webGroups)}`);
    }
    const floor = await open(h, floorBinary);
    await floor.waitUntil(() => floor.execute(() => document.readyState === "complete"), { timeout: 30000 });
    await twoFrames(floor);
    await sleep(IDLE_MS);
    const fm = memoryWithWebGroups(newestPid(floorBinary));
    await floor.deleteSession();
    await sleep(1000);
    results.push({ run, binary: "floor", pss: fm.pss, app: byComm(fm, "tauri-floor"), web: byComm(fm, "WebKitWebProces"), net: byComm(fm, "WebKitNetworkPr") });
    console.log(`run ${run} floor: PSS sum ${mb(fm.pss)} MB (app ${mb(byComm(fm, "tauri-floor"))}, web ${mb(byComm(fm, "WebKitWebProces"))})`);
  }
  const floorMed = med(results.filter((r) => r.binary === "floor").map((r) => r.pss));
  console.log(`\nmedians over ${RUNS} runs; floor PSS sum ${mb(floorMed)} MB`);
  for (const binary of VARIANTS) {
    const rs = results.filter((r) => r.binary === binary);
    const of = (k) => med(rs.map((r) => r[k]));
    const ratios = rs.map((r) => r.pss / results.find((f) => f.binary === "floor" && f.run === r.run).pss);
    console.log(`${binary}: PSS sum ${mb(of("pss"))} (runs ${rs.map((r) => mb(r.pss)).join(", ")}), app ${mb(of("app"))}, web ${mb(of("web"))} (runs ${rs.map((r) => mb(r.web)).join(", ")}), net ${mb(of("net"))}; ratio ${med(ratios).toFixed(3)}x (runs ${ratios.map((x) => x.toFixed(3)).join(", ")}); at the oldest: PSS sum ${mb(of("pssMid"))} (runs ${rs.map((r) => mb(r.pssMid)).join(", ")}); at 15 s: PSS sum ${mb(of("pss15"))} (runs ${rs.map((r) => mb(r.pss15)).join(", ")}), web ${mb(of("web15"))}; frames p50 ${of("p50").toFixed(1)} p95 ${of("p95").toFixed(1)}; to oldest ${of("toOldestMs").toFixed(0)} ms`);
  }
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(results, null, 2));
} finally {
  await h.stop();
}
