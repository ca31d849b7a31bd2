// Desktop benchmark (not a test): cold start to first painted list, scrolling through
// 10 000 memories to the oldest and back to the top, and idle memory of every process of
// the app (RSS and PSS from /proc/PID/smaps_rollup, per process and summed) beside the
// same numbers for an empty Tauri app (bench/tauri-floor), the floor of the web view.
// Run under Xvfb after building the UI, the app and the floor (BENCHMARKS.md, issue 14):
//   xvfb-run -a -s "-screen 0 1280x800x24" node tests/e2e/bench.mjs
// Environment: ROWS (10000), RUNS (3: the scroll and memory runs, reported as medians),
// COLD_RUNS (7), IDLE_MS (5000: idle time before a measurement), TAURI_FLOOR_APP (target/debug/tauri-floor), BENCH_JSON (write the
// results there), plus the harness's MEMORY_BANK_APP and MEMORY_BANK_BIN.
// With --transcript it measures the Sessions view instead (issue 16): frame times while
// scrolling the transcript of one MESSAGES-long (520) Markdown-heavy session, RUNS times:
//   xvfb-run -a -s "-screen 0 1280x800x24" node tests/e2e/bench.mjs --transcript
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { remote } from "webdriverio";
import { Harness, appBinary, root, sleep } from "./harness.mjs";
import { markdownSession } from "./markdown-session.mjs";
import { benchAppEnv, measureStartedDirectly, median, memoryOf, newestPid, p95, scrollToOldest, seedBenchMemories } from "./bench-support.mjs";

// The service's per-token rate limit would slow the seeding down to 20 saves a second;
// it is not what this measures.
process.env.MEMORY_BANK_RATE_LIMIT ??= "0";

const ROWS = Number(process.env.ROWS ?? 10000);
const RUNS = Number(process.env.RUNS ?? 3);
const COLD_RUNS = Number(process.env.COLD_RUNS ?? 7);
const floorBinary = path.resolve(process.env.TAURI_FLOOR_APP ?? path.join(root, "target/debug/tauri-floor"));
const IDLE_MS = Number(process.env.IDLE_MS ?? 5000);
// --transcript: the Sessions view instead (benchTranscript), MESSAGES (520) long.
const TRANSCRIPT = process.argv.includes("--transcript");
const MESSAGES = Number(process.env.MESSAGES ?? 520);

const ms = (x) => `${x.toFixed(0)} ms`;
const mb = (kb) => (kb / 1024).toFixed(0);
const firstRow = "//article[contains(@class,'row')]";
const newest = `Benchmark memory number ${ROWS - 1}:`;
const oldest = "Benchmark memory number 0:";

/** Other WebKit web processes on the machine share library pages and lower everyone's PSS. */
const otherWebProcesses = (mine) =>
  execFileSync("ps", ["-eo", "pid=,comm="]).toString().split("\n")
    .filter((line) => /WebKitWebProces/.test(line) && !mine.includes(line.trim().split(/\s+/)[0])).length;

function printMemory(label, m) {
  console.log(`  ${label}: PSS sum ${mb(m.pss)} MB (anon ${mb(m.pssAnon)}, file ${mb(m.pssFile)}), RSS sum ${mb(m.rss)} MB`);
  for (const p of m.processes) console.log(`    ${p.comm.padEnd(16)} pid ${p.pid.padEnd(7)} PSS ${mb(p.pss).padStart(4)} MB (anon ${mb(p.pssAnon)})  RSS ${mb(p.rss).padStart(4)} MB`);
}

/** A WebDriver session on `binary` through the harness's tauri-driver. */
const openSession = (h, binary) =>
  remote({
    hostname: "127.0.0.1",
    port: h.driverPort,
    logLevel: "error",
    capabilities: { browserName: "wry", "tauri:options": { application: binary }, "wdio:enforceWebDriverClassic": true },
  });

const twoFrames = (app) => app.executeAsync((done) => requestAnimationFrame(() => requestAnimationFrame(() => done())));

/** Starts `binary` as a person would (no WebDriver), waits until idle, measures, stops it. */
const measureDirect = (binary, env) =>
  // 8 s: painted and idle (start-up takes ~1 s here).
  measureStartedDirectly(binary, env, 8000, (pid) => {
    const m = memoryOf(pid);
    return { ...m, others: otherWebProcesses(m.processes.map((p) => p.pid)) };
  });

/**
 * One screen per frame through the list `selector`, from the bottom up to the top
 * (`down`: from the top down to the bottom); the frame times, and how many frames showed
 * a loading row.
 */
async function passOverList(app, { selector = ".list-scroll", down = false } = {}) {
  const frames = [];
  let loadingFrames = 0;
  for (;;) {
    const chunk = await app.executeAsync(
      (selector, down, done) => {
        const list = document.querySelector(selector);
        const times = [];
        let loading = 0;
        let prev = performance.now();
        const loadingInView = () => {
          const box = list.getBoundingClientRect();
          return [...list.querySelectorAll(".list-loader")].some((e) => {
            const r = e.getBoundingClientRect();
            return r.bottom > box.top && r.top < box.bottom;
          });
        };
        const atEnd = () => (down ? list.scrollTop + list.clientHeight >= list.scrollHeight - 1 : list.scrollTop <= 0);
        const step = () => {
          if (times.length >= 100 || atEnd()) {
            done({ times, loading, end: atEnd() });
            return;
          }
          list.scrollTop += down ? list.clientHeight : -list.clientHeight;
          requestAnimationFrame(() => {
            const now = performance.now();
            times.push(now - prev);
            prev = now;
            if (loadingInView()) loading++;
            step();
          });
        };
        step();
      },
      selector,
      down,
    );
    frames.push(...chunk.times);
    loadingFrames += chunk.loading;
    if (chunk.end) break;
  }
  return { frames, loadingFrames };
}

const passUp = (app) => passOverList(app);

/**
 * The transcript of one long Markdown-heavy session (markdown-session.mjs): open it (the
 * newest page painted), scroll to its first message (every page through the Rust
 * commands), then one screen per frame down to the end and back up to the top, with
 * every page cached, so each frame mounts the rows coming into view (Markdown parsed,
 * code highlighted) and unmounts the ones leaving it.
 */
async function benchTranscript() {
  const sessionId = "b0000000-0000-4000-8000-000000000520";
  const h = new Harness();
  await h.start({
    beforeApp: (harness) => harness.writeClaudeSession("-home-ada-bench", sessionId, markdownSession(sessionId, "/home/ada/bench", MESSAGES)),
  });
  const results = { messages: MESSAGES, app: appBinary, runs: [] };
  const rendered = (index) => `[data-message-index="${index}"]`;
  try {
    for (let run = 1; run <= RUNS; run++) {
      const app = await h.openApp();
      await app.setTimeout({ script: 600000 });
      const sessions = await app.$("//nav//button[normalize-space()='Sessions']");
      await sessions.waitForClickable({ timeout: 30000 });
      await sessions.click();
      const row = await app.$(`//button[contains(@class,'session-row')][@data-session-id='${sessionId}']`);
      await row.waitForClickable({ timeout: 60000 });
      const began = performance.now();
      await row.click();
      await app.$(rendered(MESSAGES - 1)).waitForExist({ timeout: 30000 });
      await twoFrames(app);
      const result = { run, openMs: performance.now() - began };

      const loadBegan = performance.now();
      for (;;) {
        const reached = await app.execute((selector) => {
          document.querySelector(".transcript-scroll").scrollTop = 0;
          return document.querySelector(selector) !== null;
        }, rendered(0));
        if (reached) break;
        if (performance.now() - loadBegan > 600000) throw new Error("did not reach the first message in 10 minutes");
        await app.executeAsync((done) => requestAnimationFrame(() => done()));
      }
      result.toFirstMs = performance.now() - loadBegan;
      await twoFrames(app);

      const down = await passOverList(app, { selector: ".transcript-scroll", down: true });
      const up = await passOverList(app, { selector: ".transcript-scroll" });
      const stats = ({ frames, loadingFrames }) => ({ count: frames.length, p50: median(frames), p95: p95(frames), max: Math.max(...frames), loading: loadingFrames });
      result.down = stats(down);
      result.up = stats(up);
      result.domMessages = await app.execute(() => document.querySelectorAll(".message").length);
      console.log(
        `run ${run}: open ${ms(result.openMs)}, to the first of ${MESSAGES} messages ${ms(result.toFirstMs)}; ` +
          `down ${result.down.count} frames p50 ${result.down.p50.toFixed(1)} / p95 ${result.down.p95.toFixed(1)} / max ${result.down.max.toFixed(0)} ms; ` +
          `up ${result.up.count} frames p50 ${result.up.p50.toFixed(1)} / p95 ${result.up.p95.toFixed(1)} / max ${result.up.max.toFixed(0)} ms; ` +
          `${result.domMessages} messages in the DOM`,
      );
      results.runs.push(result);
      await app.deleteSession();
      await sleep(1000);
    }
    const of = (pick) => median(results.runs.map(pick));
    console.log(`\nmedians over ${RUNS} runs (${MESSAGES} Markdown messages):`);
    console.log(`  open to the newest page painted: ${ms(of((r) => r.openMs))}; to the first message: ${ms(of((r) => r.toFirstMs))}`);
    console.log(`  one screen per frame, down: frame p50 ${of((r) => r.down.p50).toFixed(1)} ms, p95 ${of((r) => r.down.p95).toFixed(1)} ms`);
    console.log(`  one screen per frame, up:   frame p50 ${of((r) => r.up.p50).toFixed(1)} ms, p95 ${of((r) => r.up.p95).toFixed(1)} ms`);
    if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(results, null, 2));
  } finally {
    await h.stop();
  }
}

/** Cold start, scrolling 10 000 memories, and idle memory beside the empty app. */
async function benchMemories() {
  const h = new Harness();
  await h.start();
  const results = { rows: ROWS, app: appBinary, floor: floorBinary, cold: [], coldInApp: [], runs: [] };
  try {
    // Seed through the HTTP API, 8 requests at a time.
    const t0 = Date.now();
    await seedBenchMemories(h, ROWS);
    console.log(`seeded ${ROWS} memories in ${Date.now() - t0} ms; app ${appBinary}; floor ${floorBinary}`);

    /** When the newest app process started, in ms since the epoch (10 ms resolution). */
    const appStartedAt = () => {
      const stat = readFileSync(`/proc/${newestPid(appBinary)}/stat`, "utf8");
      const startTicks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]); // field 22: starttime
      const uptime = Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
      return Date.now() - (uptime - startTicks / 100) * 1000; // USER_HZ is 100 on Linux
    };

    // Cold start, two ways: from asking WebDriver for a session (which launches the app) to
    // the first row painted, and from the app process's start to that paint (no WebDriver).
    for (let run = 0; run < COLD_RUNS; run++) {
      const began = performance.now();
      const app = await h.openApp();
      await app.$(firstRow).waitForExist({ timeout: 30000 });
      const paintedAt = await app.executeAsync((done) =>
        requestAnimationFrame(() => requestAnimationFrame(() => done(performance.timeOrigin + performance.now()))),
      );
      results.cold.push(performance.now() - began);
      results.coldInApp.push(paintedAt - appStartedAt());
      await app.deleteSession();
      await sleep(500);
    }
    const runs = (xs) => xs.map((s) => s.toFixed(0)).join(", ");
    console.log(`cold start to first painted list: median ${ms(median(results.cold))}, p95 ${ms(p95(results.cold))} (runs: ${runs(results.cold)})`);
    console.log(`  app process start to first painted list: median ${ms(median(results.coldInApp))}, p95 ${ms(p95(results.coldInApp))} (runs: ${runs(results.coldInApp)})`);

    const appEnv = benchAppEnv(h);
    for (let run = 1; run <= RUNS; run++) {
      const result = { run };
      // Memory Bank: scroll to the oldest memory (every page fetched through the Rust
      // commands), then back to the top one screen per frame; idle memory after that.
      const app = await h.openApp();
      await app.setTimeout({ script: 600000 });
      await app.$(firstRow).waitForExist({ timeout: 30000 });
      const { ms: toOldestMs, turns } = await scrollToOldest(app, oldest);
      result.toOldestMs = toOldestMs;
      const upBegan = performance.now();
      const up = await passUp(app);
      // Back at the top: wait until the newest memory is painted again.
      await app.waitUntil(
        () => app.execute((title) => [...document.querySelectorAll(".row-title")].some((e) => e.textContent.startsWith(title)), newest),
        { timeout: 60000, interval: 50 },
      );
      await twoFrames(app);
      result.upMs = performance.now() - upBegan;
      result.upFrames = { count: up.frames.length, p50: median(up.frames), p95: p95(up.frames), loading: up.loadingFrames };
      result.domRows = await app.execute(() => document.querySelectorAll(".row").length);
      await sleep(IDLE_MS);
      const appPid = newestPid(appBinary);
      result.app = memoryOf(appPid);
      result.app.others = otherWebProcesses(result.app.processes.map((p) => p.pid));
      await app.deleteSession();
      await sleep(1000);

      // The empty app the same way: a WebDriver session, its page painted, idle.
      const floor = await openSession(h, floorBinary);
      await floor.waitUntil(() => floor.execute(() => document.readyState === "complete"), { timeout: 30000 });
      await twoFrames(floor);
      await sleep(IDLE_MS);
      result.floor = memoryOf(newestPid(floorBinary));
      result.floor.others = otherWebProcesses(result.floor.processes.map((p) => p.pid));
      await floor.deleteSession();
      await sleep(1000);

      // Both started directly, without WebDriver: idle after the first paint (Memory Bank
      // then holds its first page only).
      result.floorDirect = await measureDirect(floorBinary, { ...process.env, HOME: h.home, XDG_DATA_HOME: h.homeEnv.XDG_DATA_HOME });
      result.appDirect = await measureDirect(appBinary, { ...process.env, ...appEnv });

      console.log(
        `run ${run}: scroll to the oldest of ${ROWS}: ${ms(result.toOldestMs)} (${turns} turns); back to the top one screen per frame: ` +
          `${ms(result.upMs)} over ${up.frames.length} frames, frame p50 ${result.upFrames.p50.toFixed(1)} ms / p95 ` +
          `${result.upFrames.p95.toFixed(1)} ms, ${up.loadingFrames} frames showed a loading row; ${result.domRows} rows in the DOM`,
      );
      printMemory(`Memory Bank, ${ROWS} loaded and scrolled, WebDriver (${result.app.others} other web processes on the machine)`, result.app);
      printMemory(`empty Tauri app, WebDriver (${result.floor.others} others)`, result.floor);
      console.log(`  ratio (PSS sum): ${(result.app.pss / result.floor.pss).toFixed(2)}x`);
      printMemory(`empty Tauri app, started directly (${result.floorDirect.others} others)`, result.floorDirect);
      printMemory(`Memory Bank, started directly, first page only (${result.appDirect.others} others)`, result.appDirect);
      console.log(`  ratio started directly (PSS sum): ${(result.appDirect.pss / result.floorDirect.pss).toFixed(2)}x`);
      results.runs.push(result);
    }

    // Medians over the runs.
    const of = (pick) => median(results.runs.map(pick));
    const byComm = (key, comm) => of((r) => r[key].processes.filter((p) => p.comm === comm).reduce((s, p) => s + p.pss, 0));
    console.log(`\nmedians over ${RUNS} runs (${ROWS} memories):`);
    for (const [key, label] of [["app", "Memory Bank (WebDriver, scrolled)"], ["floor", "empty Tauri app (WebDriver)"], ["appDirect", "Memory Bank (direct, first page)"], ["floorDirect", "empty Tauri app (direct)"]]) {
      const comms = [...new Set(results.runs.flatMap((r) => r[key].processes.map((p) => p.comm)))];
      const parts = comms.map((c) => `${c} ${mb(byComm(key, c))}`).join(", ");
      console.log(`  ${label}: PSS sum ${mb(of((r) => r[key].pss))} MB, RSS sum ${mb(of((r) => r[key].rss))} MB; PSS per process: ${parts}`);
    }
    console.log(`  ratio PSS, WebDriver: ${of((r) => r.app.pss / r.floor.pss).toFixed(2)}x (target <= 1.3x); direct: ${of((r) => r.appDirect.pss / r.floorDirect.pss).toFixed(2)}x`);
    console.log(`  scroll to the oldest: ${ms(of((r) => r.toOldestMs))}; back up: frame p50 ${of((r) => r.upFrames.p50).toFixed(1)} ms, p95 ${of((r) => r.upFrames.p95).toFixed(1)} ms`);
    if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(results, null, 2));
  } finally {
    await h.stop();
  }
}

if (TRANSCRIPT) await benchTranscript();
else await benchMemories();
