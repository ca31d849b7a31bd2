// Desktop benchmark (not a test): what search by meaning costs the app's memory (issue 29).
// The app on its local bank (no account) of MEMORIES (2 000) memories without vectors, as
// a person's bank is when they first start a release with meaning: the app backfills the
// vectors in the background, which loads the model (measured just after the backfill),
// lets the model go IDLE_S (120) seconds after its last use (measured then), and a later
// start holds no model at all (at rest). Beside each, the empty Tauri app (bench/tauri-floor)
// started the same way. PSS summed over each app's processes, medians of ROUNDS (3).
//   xvfb-run -a -s "-screen 0 1280x800x24" node tests/e2e/bench-meaning-rest.mjs
// Environment: MEMORIES, ROUNDS, MEMORY_BANK_MODEL_DIR (the model; else scripts/fetch-model.sh's
// cache), MEMORY_BANK_BENCH (target/release/memory-bank-bench), TAURI_FLOOR_APP
// (target/release/tauri-floor), MEMORY_BANK_APP and MEMORY_BANK_BIN (release builds).
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { root, sleep, waitFor } from "./harness.mjs";
import { measureStartedDirectly, median, memoryOf, newestPid } from "./bench-support.mjs";

const MEMORIES = Number(process.env.MEMORIES ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const IDLE_S = 120; // crates/meaning's IDLE
// Its watcher looks every IDLE/4, at most every 15 s: the model is let go within IDLE + 15 s.
const LET_GO_S = IDLE_S + 15 + 5;
const release = (name) => path.join(root, "target/release", name);
const app = path.resolve(process.env.MEMORY_BANK_APP ?? release("memory-bank-app"));
const cli = path.resolve(process.env.MEMORY_BANK_BIN ?? release("memory-bank"));
const bench = path.resolve(process.env.MEMORY_BANK_BENCH ?? release("memory-bank-bench"));
const floor = path.resolve(process.env.TAURI_FLOOR_APP ?? release("tauri-floor"));
const modelDir = process.env.MEMORY_BANK_MODEL_DIR ?? path.join(homedir(), ".cache/memory-bank/model/all-minilm-l6-v2");

const mb = (kb) => (kb / 1024).toFixed(0);
const base = mkdtempSync(path.join(tmpdir(), "memory-bank-meaning-rest-"));

/** The environment of a person's first start: their own home, no account, no keyring. */
function envFor(dataDir) {
  const home = path.join(base, "home");
  mkdirSync(home, { recursive: true });
  return {
    ...process.env,
    HOME: home,
    XDG_DATA_HOME: path.join(home, ".local/share"),
    XDG_CONFIG_HOME: path.join(home, ".config"),
    MEMORY_BANK_DATA_DIR: dataDir,
    MEMORY_BANK_URL: "",
    MEMORY_BANK_TOKEN: "",
    MEMORY_BANK_MODEL_DIR: modelDir,
    MEMORY_BANK_LOG: "warn",
    LANG: "en_US.UTF-8",
    LANGUAGE: "en",
  };
}

/** `db status`'s meaning line for the bank in `dataDir`. */
function meaningLine(dataDir, env) {
  const out = execFileSync(cli, ["--database-url", `sqlite://${path.join(dataDir, "memory.db")}`, "db", "status"], { env }).toString();
  return out.split("\n").find((l) => l.startsWith("meaning:")) ?? out;
}

const summary = (m) => ({ pss: m.pss, app: m.processes.find((p) => p.comm.startsWith("memory-bank"))?.pss ?? 0 });

try {
  const pristine = path.join(base, "pristine");
  execFileSync(bench, ["--load-local-bank", pristine, "--memories", String(MEMORIES)], { stdio: ["ignore", "ignore", "inherit"] });
  console.log(`${MEMORIES} memories without vectors; app ${app}; floor ${floor}; model ${modelDir}`);
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const dataDir = path.join(base, `round${round}`);
    rmSync(dataDir, { recursive: true, force: true });
    cpSync(pristine, dataDir, { recursive: true });
    const env = envFor(dataDir);
    const result = {};
    result.floor = summary(await measureStartedDirectly(floor, env, 8000, memoryOf));

    // First start: the backfill loads the model and makes every vector.
    const child = spawn(app, [], { env, stdio: "ignore" });
    try {
      await waitFor(() => newestPid(app) === String(child.pid), 10000, "the app to start");
      const began = performance.now();
      // Once a second: `db status` is a process of its own, which must not slow the backfill.
      while (!meaningLine(dataDir, env).includes("every memory has its vector")) {
        if (performance.now() - began > 600000) throw new Error("the backfill took over 10 minutes");
        await sleep(1000);
      }
      result.backfillS = (performance.now() - began) / 1000;
      await sleep(2000);
      result.loaded = summary(memoryOf(String(child.pid)));
      await sleep(LET_GO_S * 1000);
      result.released = summary(memoryOf(String(child.pid)));
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", resolve)));
      await sleep(1000);
    }
    // A later start: every vector made, nothing to load until a search or a save.
    result.rest = summary(await measureStartedDirectly(app, env, 8000, memoryOf));
    rounds.push(result);
    const ratio = (m) => (m.pss / result.floor.pss).toFixed(2);
    console.log(
      `round ${round + 1}: empty Tauri app ${mb(result.floor.pss)} MB; at rest ${mb(result.rest.pss)} MB ${ratio(result.rest)}x ` +
        `(app ${mb(result.rest.app)}); model loaded ${mb(result.loaded.pss)} MB ${ratio(result.loaded)}x (app ${mb(result.loaded.app)}); ` +
        `model let go ${mb(result.released.pss)} MB ${ratio(result.released)}x (app ${mb(result.released.app)}); backfill ${result.backfillS.toFixed(1)} s`,
    );
  }
  const of = (pick) => median(rounds.map(pick));
  console.log(`medians of ${ROUNDS} rounds, PSS summed over each app's processes:`);
  console.log(`  empty Tauri app: ${mb(of((r) => r.floor.pss))} MB`);
  for (const [key, label] of [["rest", "at rest"], ["loaded", "model loaded (after the backfill)"], ["released", `model let go (${LET_GO_S} s later)`]]) {
    console.log(
      `  ${label}: ${mb(of((r) => r[key].pss))} MB, ${of((r) => r[key].pss / r.floor.pss).toFixed(2)}x (app process ${mb(of((r) => r[key].app))} MB)`,
    );
  }
  console.log(`  backfill of ${MEMORIES} in the app: ${of((r) => r.backfillS).toFixed(1)} s`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
