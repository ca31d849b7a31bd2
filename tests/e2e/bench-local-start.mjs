// Desktop benchmark (not a test): cold start of the app on its local bank (no account),
// plaintext beside encrypted at rest (issue 17), the runs alternating between the two so
// both see the same machine. Each bank holds MEMORIES (10 000) memories of the bench
// corpus, written by `memory-bank-bench --load-local-bank`; the encrypted one is given a
// key file (MEMORY_BANK_DB_KEY_FILE), so its first start encrypts it (timed on its own),
// and the plaintext one has no key and no keyring (headless), so it stays plaintext.
//   xvfb-run -a -s "-screen 0 1280x800x24" node tests/e2e/bench-local-start.mjs
// Environment: MEMORIES (10000), COLD_RUNS (7), MEMORY_BANK_BENCH
// (target/release/memory-bank-bench), plus the harness's MEMORY_BANK_APP and MEMORY_BANK_BIN.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Harness, appBinary, root, sleep } from "./harness.mjs";
import { median, p95 } from "./bench-support.mjs";

const MEMORIES = Number(process.env.MEMORIES ?? 10000);
const COLD_RUNS = Number(process.env.COLD_RUNS ?? 7);
const benchBinary = process.env.MEMORY_BANK_BENCH ?? path.join(root, "target/release/memory-bank-bench");
const firstRow = "//article[contains(@class,'row')]";
const PLAINTEXT_HEADER = "SQLite format 3\0";

const ms = (x) => `${x.toFixed(0)} ms`;

/** WebDriver session (which launches the app) → first row painted, in ms. */
async function coldStart(h) {
  const began = performance.now();
  const app = await h.openApp();
  await app.$(firstRow).waitForExist({ timeout: 60000 });
  await app.executeAsync((done) => requestAnimationFrame(() => requestAnimationFrame(() => done())));
  const took = performance.now() - began;
  await app.deleteSession();
  await sleep(500);
  return took;
}

const base = mkdtempSync(path.join(tmpdir(), "memory-bank-local-start-"));
const variants = [];
try {
  for (const name of ["plaintext", "encrypted"]) {
    const dataDir = path.join(base, name);
    execFileSync(benchBinary, ["--load-local-bank", dataDir, "--memories", String(MEMORIES)], { stdio: ["ignore", "ignore", "inherit"] });
    const appEnv = { MEMORY_BANK_DATA_DIR: dataDir, MEMORY_BANK_URL: "", MEMORY_BANK_TOKEN: "", MEMORY_BANK_LOG: "warn" };
    if (name === "encrypted") {
      appEnv.MEMORY_BANK_DB_KEY_FILE = path.join(base, "bank.key");
      writeFileSync(appEnv.MEMORY_BANK_DB_KEY_FILE, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 });
    }
    const h = new Harness();
    await h.start({ appEnv });
    variants.push({ name, h, bank: path.join(dataDir, "memory.db"), runs: [] });
  }
  console.log(`${MEMORIES} memories per bank; app ${appBinary}`);
  // The first start of each: the encrypted one encrypts its bank then.
  for (const v of variants) console.log(`first start, ${v.name}: ${ms(await coldStart(v.h))}`);
  for (const v of variants) {
    const encrypted = readFileSync(v.bank).subarray(0, 16).toString("latin1") !== PLAINTEXT_HEADER;
    if (encrypted !== (v.name === "encrypted")) throw new Error(`the ${v.name} bank is ${encrypted ? "" : "not "}encrypted`);
  }
  for (let run = 0; run < COLD_RUNS; run++) {
    for (const v of run % 2 === 0 ? variants : [...variants].reverse()) v.runs.push(await coldStart(v.h));
  }
  for (const v of variants) {
    console.log(`cold start to first painted row, ${v.name}: median ${ms(median(v.runs))}, p95 ${ms(p95(v.runs))} (runs: ${v.runs.map((r) => r.toFixed(0)).join(", ")})`);
  }
  const [plain, encrypted] = variants;
  console.log(`encrypted ÷ plaintext: median ${(median(encrypted.runs) / median(plain.runs)).toFixed(2)}×`);
} finally {
  for (const v of variants) await v.h.stop();
  rmSync(base, { recursive: true, force: true });
}
