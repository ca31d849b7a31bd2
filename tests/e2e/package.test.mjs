// The installed .deb: the binary apt put in /usr/bin, its .desktop entry and icons, the
// sentence-embedding model it carries, and that binary in a real window against a real
// memory service, painting a memory saved through that service. scripts/test.sh builds
// and installs the package, runs this with MEMORY_BANK_APP=/usr/bin/memory-bank-app (and
// MEMORY_BANK_DEB, the .deb, whose size it reports), then removes the package. It is not
// in the default `npm test` list: without the package installed it fails, by design.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { gzipSync } from "node:zlib";
import { Harness, appBinary, root, rowXPath, screenshot } from "./harness.mjs";

const PACKAGE = "memory-bank";
const DESKTOP_FILE = "/usr/share/applications/Memory Bank.desktop";
const CONTENT = "Installed from the .deb: this memory came through the service";
// Where the package puts the model: <dir of /usr/bin/memory-bank-app>/../share/…, the
// last folder crates/embed's default_model_dir() looks in.
const MODEL_DIR = "/usr/share/memory-bank/model/all-minilm-l6-v2";
const MODEL_FILES = ["model.q8.safetensors", "tokenizer.json", "config.json", "1_Pooling/config.json"];
// The most the model may add to the package, compressed (the bound).
const MAX_GROWTH = 30 * 1000 * 1000;
const MB = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

/** The dpkg package that owns `file`, or null. */
function owner(file) {
  try {
    return execFileSync("dpkg-query", ["-S", file], { stdio: ["ignore", "pipe", "ignore"] }).toString().split(":")[0];
  } catch {
    return null;
  }
}

const h = new Harness();

before(async () => {
  // Checked first, so a run without the package fails here with what to do.
  const status = (() => {
    try {
      return execFileSync("dpkg-query", ["-W", "-f=${Status}", PACKAGE], { stdio: ["ignore", "pipe", "ignore"] }).toString();
    } catch {
      return "not installed";
    }
  })();
  assert.equal(status, "install ok installed", `the ${PACKAGE} package is not installed: build and install it first (scripts/test.sh does: tauri bundle --debug, apt-get install ./…deb)`);
  assert.equal(owner(appBinary), PACKAGE, `MEMORY_BANK_APP (${appBinary}) must be the binary the package installed, /usr/bin/memory-bank-app`);
  await h.start();
  h.save(CONTENT, "--tag", "package");
});

after(async () => {
  await h.stop();
});

test("the package installs the binary, a .desktop entry that starts it, and its icons", () => {
  const files = execFileSync("dpkg-query", ["-L", PACKAGE]).toString().split("\n");
  assert.ok(files.includes("/usr/bin/memory-bank-app"), "the binary is in /usr/bin");
  assert.ok(files.includes(DESKTOP_FILE), "the .desktop entry is in /usr/share/applications");
  const entry = Object.fromEntries(
    readFileSync(DESKTOP_FILE, "utf8")
      .split("\n")
      .filter((line) => line.includes("="))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  assert.equal(entry.Name, "Memory Bank");
  assert.equal(entry.Type, "Application");
  // Exec is looked up on PATH the way a desktop launcher does.
  const exec = execFileSync("sh", ["-c", `command -v ${entry.Exec.split(" ")[0]}`]).toString().trim();
  assert.equal(exec, "/usr/bin/memory-bank-app");
  for (const size of ["32x32", "128x128", "256x256@2"]) {
    const icon = `/usr/share/icons/hicolor/${size}/apps/${entry.Icon}.png`;
    assert.ok(files.includes(icon) && existsSync(icon), `${icon} is installed`);
  }
});

test("the package carries the 8-bit model where the app looks for it, readable by everyone, within 30 MB compressed", (t) => {
  const files = execFileSync("dpkg-query", ["-L", PACKAGE]).toString().split("\n");
  let installed = 0;
  let compressed = 0;
  for (const name of MODEL_FILES) {
    const file = path.join(MODEL_DIR, name);
    assert.ok(files.includes(file), `${file} belongs to the package`);
    const stat = statSync(file);
    assert.ok(stat.isFile(), `${file} is a file`);
    // A system package's file, read by whoever runs the app: 0644 (0600 is for the files
    // the app itself makes).
    assert.equal(stat.mode & 0o777, 0o644, `${file} is 0644`);
    installed += stat.size;
    compressed += gzipSync(readFileSync(file), { level: 9 }).length;
  }
  assert.equal(statSync(path.join(MODEL_DIR, "1_Pooling")).mode & 0o777, 0o755);
  // Only the 8-bit weights: the 91 MB F32 file is not shipped.
  assert.ok(!files.includes(path.join(MODEL_DIR, "model.safetensors")), "no F32 weights in the package");
  const weights = statSync(path.join(MODEL_DIR, "model.q8.safetensors")).size;
  assert.ok(weights > 20e6 && weights < 26e6, `model.q8.safetensors is ${weights} bytes, expected ≈ 23.0 MB`);
  // The tokenizer and configuration are the model's own, by the SHA-256 fetch-model.sh pins.
  const pins = readFileSync(path.join(root, "scripts/fetch-model.sh"), "utf8");
  for (const name of ["tokenizer.json", "config.json", "1_Pooling/config.json"]) {
    const pinned = pins.match(new RegExp(`\\[${name.replace(/[./]/g, "\\$&")}\\]=([0-9a-f]{64})`))?.[1];
    assert.ok(pinned, `fetch-model.sh pins ${name}`);
    const got = createHash("sha256").update(readFileSync(path.join(MODEL_DIR, name))).digest("hex");
    assert.equal(got, pinned, `${name} is the fetched one`);
  }
  assert.ok(compressed <= MAX_GROWTH, `the model adds ${MB(compressed)} compressed, more than ${MB(MAX_GROWTH)}`);
  const deb = process.env.MEMORY_BANK_DEB;
  const debSize = deb && existsSync(deb) ? `; the .deb is ${MB(statSync(deb).size)}` : "";
  const installedKiB = Number(execFileSync("dpkg-query", ["-W", "-f=${Installed-Size}", PACKAGE]).toString());
  t.diagnostic(
    `package growth from the model: ${MB(installed)} installed, ${MB(compressed)} gzip -9 ` +
      `(bound ${MB(MAX_GROWTH)}); the package installs ${MB(installedKiB * 1024)} in all${debSize}`,
  );
});

test("the installed app paints a memory saved through the service in its first list", async () => {
  const app = await h.openApp();
  try {
    const row = await app.$(rowXPath(CONTENT));
    await row.waitForDisplayed({ timeout: 20000 });
    // The window really runs /usr/bin/memory-bank-app, not a build in the work tree.
    const running = execFileSync("pgrep", ["-f", `^${appBinary}( |$)`]).toString().trim();
    assert.match(running, /^\d+$/, "the installed binary is the running app");
    await screenshot(app, path.join(root, "target/e2e", "package.png"));
  } finally {
    await app.deleteSession();
  }
});
