// Bench helper (not a test): where each app's own process spends its PSS, side by side
// (BENCHMARKS.md, issue 14). Each binary is started directly as a person would (no
// WebDriver) against one service with an empty list, left idle IDLE_MS (10000), and
// measured: PSS per process, and the app process's /proc/PID/smaps summed per kind of
// mapping (smaps-breakdown.mjs), as the mean over ROUNDS (1). Answers "which library or
// file makes our app process heavier than the empty app's", which the sums of bench.mjs
// cannot.
//   BINS='[{"name":"empty app","bin":"/path/tauri-floor"},{"name":"app","bin":"/path/memory-bank-app","env":{}}]' \
//     ROUNDS=2 TOP=30 xvfb-run -a -s "-screen 0 1280x800x24" node tests/e2e/bench-direct.mjs
import { Harness } from "./harness.mjs";
import { benchAppEnv, measureStartedDirectly, memoryOf } from "./bench-support.mjs";
import { breakdown } from "./smaps-breakdown.mjs";

const bins = JSON.parse(process.env.BINS ?? "[]");
if (bins.length === 0) throw new Error('set BINS to a JSON list of {"name", "bin", "env"?}');
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const IDLE_MS = Number(process.env.IDLE_MS ?? 10000);
const TOP = Number(process.env.TOP ?? 30);
const mb = (kb) => kb / 1024;

const h = new Harness();
await h.start();
const env = { ...process.env, ...benchAppEnv(h) };
/** name → { perProcess: [string per round], kinds: Map(kind → summed PSS kB) } */
const results = new Map(bins.map((b) => [b.name, { perProcess: [], kinds: new Map() }]));
try {
  // Round by round, so the machine's changing load hits every binary alike.
  for (let round = 0; round < ROUNDS; round++) {
    for (const b of bins) {
      const r = results.get(b.name);
      await measureStartedDirectly(b.bin, { ...env, ...(b.env ?? {}) }, IDLE_MS, (pid) => {
        r.perProcess.push(memoryOf(pid).processes.map((p) => `${p.comm} ${mb(p.pss).toFixed(1)}`).join(", "));
        for (const [kind, v] of breakdown(pid)) r.kinds.set(kind, (r.kinds.get(kind) ?? 0) + v.pss);
      });
    }
  }
} finally {
  await h.stop();
}

const names = [...results.keys()];
for (const [name, r] of results) console.log(`${name}: PSS MB per process, by round: ${r.perProcess.join(" | ")}`);
const kinds = [...new Set(names.flatMap((n) => [...results.get(n).kinds.keys()]))];
const row = (kind) => names.map((n) => mb(results.get(n).kinds.get(kind) ?? 0) / ROUNDS);
const rows = kinds.map((k) => [k, row(k)]).sort((a, b) => Math.max(...b[1]) - Math.max(...a[1]));
console.log(`\napp process, PSS MB (mean of ${ROUNDS}), largest ${TOP} kinds of mapping`);
console.log(["kind".padEnd(52), ...names.map((n) => n.padStart(12))].join(""));
for (const [kind, values] of rows.slice(0, TOP)) console.log([kind.slice(0, 51).padEnd(52), ...values.map((v) => v.toFixed(1).padStart(12))].join(""));
const totals = names.map((n) => mb([...results.get(n).kinds.values()].reduce((a, b) => a + b, 0)) / ROUNDS);
console.log(["total".padEnd(52), ...totals.map((v) => v.toFixed(1).padStart(12))].join(""));
