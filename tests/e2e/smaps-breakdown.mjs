// Bench helper (not a test): where a process's PSS is, from /proc/PID/smaps, summed per
// kind of mapping (BENCHMARKS.md, issue 14). smaps_rollup only gives the total; this says
// whether the web process's extra memory is malloc, JavaScript heap, JIT code, fonts,
// libraries or shared buffers.
//   node tests/e2e/smaps-breakdown.mjs PID [PID…]      (one table per process, in MB)
import { readFileSync } from "node:fs";

/** The kind of one mapping: its path for files, a size class for anonymous memory. */
function kindOf(range, perms, name) {
  const [from, to] = range.split("-").map((h) => parseInt(h, 16));
  const size = to - from;
  if (name === "[heap]") return "anon [heap] (malloc brk)";
  if (name === "[stack]") return "anon [stack]";
  if (name.startsWith("/usr/share/fonts/") || name.includes("/fonts/")) return `font ${name.split("/").pop()}`;
  if (name.startsWith("/memfd:") || name.startsWith("memfd:")) return `memfd ${name.replace(/^\/?memfd:/, "").split(" ")[0]}`;
  if (name.startsWith("/dev/shm/")) return "/dev/shm";
  if (name.startsWith("/dev/")) return name;
  if (name.startsWith("/")) {
    const file = name.replace(/ \(deleted\)$/, "");
    if (/\.so[.\d]*$/.test(file) || file.includes(".so.")) return `lib ${file.split("/").pop()}`;
    return `file ${file}`;
  }
  if (name.startsWith("[")) return `anon ${name}`;
  // Anonymous: JIT code is executable; the rest by mapping size (bmalloc/libpas and JSC
  // reserve large regions, glibc arenas are 64 MB, small ones are often JSC blocks).
  if (perms.includes("x")) return "anon executable (JIT)";
  const mb = size / 1048576;
  const cls = mb < 0.0625 ? "< 64 kB" : mb < 1 ? "64 kB – 1 MB" : mb < 16 ? "1 – 16 MB" : mb < 128 ? "16 – 128 MB" : "≥ 128 MB";
  return `anon other, mapping ${cls}`;
}

/** { kind → { pss, rss, count } } in kB for one process. */
export function breakdown(pid) {
  const text = readFileSync(`/proc/${pid}/smaps`, "utf8");
  const kinds = new Map();
  let current = null;
  for (const line of text.split("\n")) {
    const header = /^([0-9a-f]+-[0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      const kind = kindOf(header[1], header[2], header[3].trim());
      current = kinds.get(kind) ?? { pss: 0, rss: 0, count: 0 };
      current.count++;
      kinds.set(kind, current);
      continue;
    }
    const field = /^(Pss|Rss):\s+(\d+) kB/.exec(line);
    if (field && current) current[field[1].toLowerCase()] += Number(field[2]);
  }
  return kinds;
}

/** The breakdown folded into a few groups, for tables: fonts, libraries, files, anon kinds. */
export function grouped(kinds) {
  const groups = new Map();
  for (const [kind, v] of kinds) {
    const group = kind.startsWith("font ") ? "fonts" : kind.startsWith("lib ") ? "libraries" : kind.startsWith("file ") ? "other files" : kind;
    groups.set(group, (groups.get(group) ?? 0) + v.pss);
  }
  return groups;
}

export function print(pid, kinds, { top = 25 } = {}) {
  const mb = (kb) => (kb / 1024).toFixed(1).padStart(7);
  const total = [...kinds.values()].reduce((s, v) => s + v.pss, 0);
  console.log(`pid ${pid} (${readFileSync(`/proc/${pid}/comm`, "utf8").trim()}): PSS ${mb(total)} MB`);
  console.log("  groups:");
  for (const [g, pss] of [...grouped(kinds)].sort((a, b) => b[1] - a[1])) if (pss >= 256) console.log(`    ${mb(pss)}  ${g}`);
  console.log(`  top ${top} mappings by kind:`);
  for (const [kind, v] of [...kinds].sort((a, b) => b[1].pss - a[1].pss).slice(0, top)) console.log(`    ${mb(v.pss)}  ${kind} (${v.count})`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const pid of process.argv.slice(2)) print(pid, breakdown(pid));
}
