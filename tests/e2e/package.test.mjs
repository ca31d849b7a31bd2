// The installed .deb: the binary apt put in /usr/bin, its .desktop entry and icons, and
// that binary in a real window against a real memory service, painting a memory saved
// through that service. scripts/test.sh builds and installs the package, runs this with
// MEMORY_BANK_APP=/usr/bin/memory-bank-app, then removes the package. It is not in the
// default `npm test` list: without the package installed it fails, by design.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { Harness, appBinary, root, rowXPath, screenshot } from "./harness.mjs";

const PACKAGE = "memory-bank";
const DESKTOP_FILE = "/usr/share/applications/Memory Bank.desktop";
const CONTENT = "Installed from the .deb: this memory came through the service";

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
