// What the desktop benchmarks share (not tests): percentiles, the app's process tree,
// and the seeded list they scroll.
import { execFileSync } from "node:child_process";

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
