// Deletes that survive what the exit path never sees, in a real window against a real
// memory service: kill -9 inside the undo window, WebDriver's Close Window command
// (which ends the web view, not the way a person closes it), a server that is down when
// the delete is due and back 20 s later (no restart of the app), and an app restarted
// while the server is still down. The waiting delete is visible ("Waiting to delete
// (offline)") and cancellable. Screenshot: target/e2e/waiting-delete.png.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { after, before, test } from "node:test";
import { Harness, appBinary, deleteRow, root, rowXPath, screenshot, sleep, waitFor } from "./harness.mjs";

const shots = process.env.MEMORY_BANK_UPDATE_SCREENSHOTS === "1" ? path.join(root, "docs/screenshots") : path.join(root, "target/e2e");
const KILLED = "Deleted although the app was killed";
const OVERLAP = "Also deleted although the app was killed";
const CLOSED = "Deleted although WebDriver closed the window";
const OFFLINE = "Deleted once the server is back";
const CANCELLED = "Kept: its waiting delete was cancelled";
const RESTARTED = "Deleted after a restart while offline";

const h = new Harness();

before(async () => {
  await h.start();
  for (const content of [KILLED, OVERLAP, CLOSED, OFFLINE, CANCELLED, RESTARTED]) h.save(content);
});

after(async () => {
  await h.stop();
});

const appPid = () => execFileSync("pgrep", ["-n", "-f", appBinary]).toString().trim();
const waitingRegion = "//section[contains(@class,'waiting-deletes')]";

test("kill -9 inside the undo window: both overlapping deletes reach the server at the next start", async () => {
  const app = await h.openApp();
  try {
    await deleteRow(app, KILLED);
    await deleteRow(app, OVERLAP);
    execFileSync("kill", ["-KILL", appPid()]);
  } finally {
    await app.deleteSession().catch(() => {});
  }
  await sleep(7000); // past the 6 s the killed process would have sent them at
  assert.ok(h.contents().includes(KILLED) && h.contents().includes(OVERLAP), "nothing can have been sent by a killed process");
  const again = await h.openApp();
  try {
    await waitFor(() => !h.contents().includes(KILLED) && !h.contents().includes(OVERLAP), 10000, "both deletes after the restart");
    await again.$(rowXPath(CLOSED)).waitForExist({ timeout: 10000 });
    assert.equal(await again.$(rowXPath(KILLED)).isExisting(), false);
  } finally {
    await again.deleteSession();
  }
});

test("WebDriver's Close Window command inside the undo window loses no delete", async () => {
  const app = await h.openApp();
  try {
    await deleteRow(app, CLOSED);
    // WebdriverIO ends the session itself once the last window is gone, and says so.
    await app.closeWindow().catch((err) => assert.match(String(err), /All window handles were removed/));
  } finally {
    await app.deleteSession().catch(() => {});
  }
  // Sent by the closing app, or else from the journal at the next start: never lost.
  await sleep(7000);
  if (h.contents().includes(CLOSED)) {
    const again = await h.openApp();
    try {
      await waitFor(() => !h.contents().includes(CLOSED), 10000, "the delete after the restart");
    } finally {
      await again.deleteSession();
    }
  }
  assert.ok(!h.contents().includes(CLOSED));
});

test("a server down at commit: the delete waits visibly, can be cancelled, and goes out when the server is back", async () => {
  const app = await h.openApp();
  try {
    await deleteRow(app, OFFLINE);
    await deleteRow(app, CANCELLED);
    await h.stopService();
    const stoppedAt = Date.now();
    const region = app.$(waitingRegion);
    await region.waitForExist({ timeout: 15000 });
    await app.$(`${waitingRegion}//h2[normalize-space()='Waiting to delete (offline): 2 memories']`).waitForExist({ timeout: 5000 });
    await screenshot(app, path.join(shots, "waiting-delete.png"));
    await app.$(`${waitingRegion}//button[@aria-label='Cancel deleting “${CANCELLED}”']`).click();
    await app.$(rowXPath(CANCELLED)).waitForExist({ timeout: 5000 });
    await app.$(`${waitingRegion}//h2[normalize-space()='Waiting to delete (offline): 1 memory']`).waitForExist({ timeout: 5000 });
    await sleep(Math.max(0, 20000 - (Date.now() - stoppedAt)));
    await h.restartService();
    await waitFor(() => !h.contents().includes(OFFLINE), 15000, "the delete once the server answered");
    await region.waitForExist({ reverse: true, timeout: 5000 });
    assert.ok(h.contents().includes(CANCELLED), "the cancelled delete was sent");
  } finally {
    await app.deleteSession();
  }
});

test("a delete waiting offline survives an app restart while the server is still down", async () => {
  const app = await h.openApp();
  try {
    await deleteRow(app, RESTARTED);
    await h.stopService();
    await app.$(waitingRegion).waitForExist({ timeout: 15000 });
    execFileSync("kill", ["-TERM", appPid()]); // quitting: one more try, still unreachable
  } finally {
    await app.deleteSession().catch(() => {});
  }
  await sleep(1000);
  const again = await h.openApp();
  try {
    await sleep(3000); // started while the server is down
    await h.restartService();
    await waitFor(() => !h.contents().includes(RESTARTED), 15000, "the delete from the journal");
    assert.ok(h.contents().includes(CANCELLED));
  } finally {
    await again.deleteSession();
  }
});
