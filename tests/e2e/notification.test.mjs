// The desktop notification for a new proposal, seen by a real notification server: a
// private D-Bus session with dunst on it (the freedesktop Notifications service GNOME,
// KDE and every Linux desktop offer), the app in a real window under Xvfb. While the
// window does not have the focus, an agent's proposal raises a notification naming the
// client and the sentence; while it has the focus, the Inbox announces it instead and no
// notification is raised. A screenshot of the whole screen goes to target/e2e
// (notification.png; docs/screenshots with MEMORY_BANK_UPDATE_SCREENSHOTS=1).
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { Harness, root, rowXPath, sleep, waitFor } from "./harness.mjs";

const shots = process.env.MEMORY_BANK_UPDATE_SCREENSHOTS === "1" ? path.join(root, "docs/screenshots") : path.join(root, "target/e2e");
const UNFOCUSED = "Ada's flight leaves from gate B12";
const FOCUSED = "Ada's hotel is near the station";
const SAVED = "Ada travels light";

const h = new Harness();
let dir;
let bus;
let dunst;
let busEnv;

/** The first line a child prints on stdout. */
function firstLine(child) {
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stdout.on("data", (chunk) => {
      seen += chunk;
      if (seen.includes("\n")) resolve(seen.split("\n")[0].trim());
    });
    child.on("exit", (code) => reject(new Error(`exited ${code} before printing: ${seen}`)));
  });
}

const dunstctl = (...args) => execFileSync("dunstctl", args, { env: busEnv, stdio: ["ignore", "pipe", "pipe"] }).toString();
const displayed = () => Number(dunstctl("count", "displayed").trim());
const helper = (script, ...args) => execFileSync("/usr/bin/python3", [path.join(import.meta.dirname, script), ...args]);

/** What dunst shows or showed: {summary, body, appname} of each, newest first. */
function history() {
  const reply = JSON.parse(dunstctl("history"));
  return reply.data[0].map((n) => ({ summary: n.summary.data, body: n.body.data, appname: n.appname.data }));
}

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "memory-bank-notify-"));
  // A bus that starts nothing on demand: dunst, started here, is the only notification
  // server, and the app finds no accessibility bus to wake.
  const busConfig = path.join(dir, "bus.conf");
  writeFileSync(
    busConfig,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=${dir}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
`,
  );
  bus = spawn("dbus-daemon", ["--config-file", busConfig, "--nofork", "--print-address=1"], { stdio: ["ignore", "pipe", "inherit"] });
  const address = await firstLine(bus);
  busEnv = { ...process.env, DBUS_SESSION_BUS_ADDRESS: address };
  // Notifications stay up until closed, so the screenshot catches them.
  const rc = path.join(dir, "dunstrc");
  writeFileSync(
    rc,
    [
      "[global]",
      "    font = DejaVu Sans 10",
      "    width = 380",
      "    origin = top-right",
      "    offset = 16x16",
      "    frame_width = 1",
      "    frame_color = \"#8a8f98\"",
      "    format = \"<b>%s</b>\\n%b\"",
      "[urgency_normal]",
      "    background = \"#ffffff\"",
      "    foreground = \"#1d2330\"",
      "    timeout = 0",
      "",
    ].join("\n"),
  );
  const log = openSync(path.join(root, "target/e2e/dunst.log"), "w");
  dunst = spawn("dunst", ["-config", rc], { env: busEnv, stdio: ["ignore", log, log] });
  await waitFor(() => {
    try {
      return displayed() === 0;
    } catch {
      return false;
    }
  }, 10000, "dunst on the private session bus");
  await h.start({ appEnv: { DBUS_SESSION_BUS_ADDRESS: address } });
  h.save(SAVED);
});

after(async () => {
  await h.stop();
  dunst?.kill("SIGTERM");
  bus?.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

test("a proposal raises a desktop notification while the window is not focused, and none while it is", async () => {
  const agent = h.agentToken();
  const app = await h.openApp();
  try {
    await app.$(rowXPath(SAVED)).waitForExist({ timeout: 20000 });
    await app.$("//nav//button[starts-with(normalize-space(),'Inbox')]").click();
    await app.$("//h3[normalize-space()='Nothing waiting']").waitForExist({ timeout: 5000 });

    // The person is elsewhere: the window loses the keyboard focus.
    helper("focus-window.py", "--nowhere");
    await waitFor(async () => !(await app.execute(() => document.hasFocus())), 5000, "the window to lose the focus");
    const made = await h.api("POST", "/v1/proposals", agent, { content: UNFOCUSED, proposedBy: "claude-code" });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    await waitFor(() => displayed() === 1, 10000, "the notification on screen");
    await sleep(300); // dunst draws right after it counts
    helper("screenshot-window.py", "--screen", path.join(shots, "notification.png"));
    dunstctl("close-all");
    await waitFor(() => displayed() === 0, 5000, "the notification to close");
    const shown = history();
    assert.equal(shown.length, 1, JSON.stringify(shown));
    assert.equal(shown[0].summary, "Memory Bank");
    assert.equal(shown[0].body, `Claude Code proposes a memory: “${UNFOCUSED}”`);

    // The person is back in the window: the Inbox shows the next one, no notification.
    helper("focus-window.py", "Memory Bank");
    await waitFor(async () => await app.execute(() => document.hasFocus()), 5000, "the window to take the focus");
    const second = await h.api("POST", "/v1/proposals", agent, { content: FOCUSED, proposedBy: "codex-mcp-client" });
    assert.equal(second.status, 201, JSON.stringify(second.body));
    await app.$(`//article[contains(@class,'proposal')][.//p[normalize-space()="${FOCUSED}"]]`).waitForExist({ timeout: 5000 });
    await sleep(1000); // the poll that showed it is the one that would have notified
    assert.equal(displayed(), 0);
    assert.equal(history().length, 1, "a notification was raised while the window had the focus");
  } finally {
    await app.deleteSession();
  }
});
