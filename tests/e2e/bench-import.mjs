// Benchmark: does the window stay responsive while Settings → Data imports 10⁵ memories?
// The real app in a real window (Xvfb) against a real `memory-bank serve`, the file chosen
// in the real GTK dialog. The page records the time between animation frames; the same
// run measures the idle window first (the peer), then the window during the import.
// Reports frame median and p95 for both, the longest frame, and the import's wall time.
//
//   xvfb-run -a -s "-screen 0 1280x800x24" node tests/e2e/bench-import.mjs   (LINES=100000)
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { Harness, memoryId, sleep, waitFor, xpathString } from "./harness.mjs";
import { median, p95 } from "./bench-support.mjs";

const LINES = Number(process.env.LINES ?? 100000);
// The service's defaults would refuse a 10⁵ import (10 000 per user) and pace it (20/s).
process.env.MEMORY_BANK_RATE_LIMIT = "0";
process.env.MEMORY_BANK_MAX_MEMORIES_PER_USER = String(LINES + 1000);

const run = promisify(execFile);
const h = new Harness();
await h.start();
try {
  const file = path.join(h.dir, "bench-import.jsonl");
  const lines = Array.from({ length: LINES }, (_, i) => {
    const at = new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString();
    const content = `Imported benchmark memory ${i}: the quick brown fox jumps over the lazy dog`;
    return JSON.stringify({ id: memoryId(Date.parse(at), i), content, tags: ["bench"], createdAt: at, updatedAt: at, contexts: [], revisions: [] });
  });
  writeFileSync(file, lines.join("\n") + "\n");
  const app = await h.openApp();
  try {
    await app.$("//nav//button[normalize-space()='Account settings']").click();
    const importButton = `//section[@aria-labelledby='settings-data']//button[normalize-space()=${xpathString("Import…")}]`;
    await app.$(importButton).waitForClickable({ timeout: 10000 });
    const record = () =>
      app.execute(() => {
        window.__frames = [];
        let last = performance.now();
        const tick = (now) => {
          window.__frames.push(now - last);
          last = now;
          if (window.__recording) requestAnimationFrame(tick);
        };
        window.__recording = true;
        requestAnimationFrame(tick);
      });
    const stop = () => app.execute(() => ((window.__recording = false), window.__frames.slice(1)));

    await record();
    await sleep(5000);
    const idle = await stop();

    const began = Date.now();
    await app.$(importButton).click();
    await run(path.join(import.meta.dirname, "answer-file-dialog.py"), ["Import memories", file]);
    await record();
    const status = "//section[@aria-labelledby='settings-data']//*[@role='status']/p";
    await waitFor(async () => (await app.$(status).isExisting()) && (await app.$(status).getText()).startsWith("Imported from"), 900000, "the import");
    const busy = await stop();
    const wall = Date.now() - began;
    const summary = await app.$(status).getText();
    const line = (label, xs) =>
      `${label}: ${xs.length} frames, median ${median(xs).toFixed(1)} ms, p95 ${p95(xs).toFixed(1)} ms, longest ${Math.max(...xs).toFixed(0)} ms`;
    console.log(`import of ${LINES} memories (${(lines.join("\n").length / 1e6).toFixed(1)} MB) in ${(wall / 1000).toFixed(1)} s (dialog included): ${summary}`);
    console.log(line("idle window (peer)", idle));
    console.log(line("window during the import", busy));
  } finally {
    await app.deleteSession();
  }
} finally {
  await h.stop();
}
