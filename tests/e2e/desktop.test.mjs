// The desktop app in a real window against a real memory service: the list, the XSS
// memory shown as text, and deferred deletes that survive undo, waiting, closing the
// window and SIGTERM. Run under Xvfb: `xvfb-run -a npm test` (scripts/test.sh does).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { Harness, appBinary, deleteRow, root, rowXPath, screenshot, sleep, waitFor } from "./harness.mjs";

const XSS = "<img src=x onerror=alert(1)>";
const h = new Harness();

before(async () => {
  await h.start();
  h.save("Undo keeps me on the server", "--tag", "undo");
  h.save("Deleted after waiting");
  h.save("Deleted although the window closed");
  h.save("Deleted although the app got SIGTERM");
  h.save("Prefers green tea over coffee", "--tag", "drinks", "--snippet", "I always drink tea", "--conversation-id", "sess-42", "--message-id", "msg-7");
  h.save(XSS);
});

after(async () => {
  await h.stop();
});

test("the panel lists the memories and shows the XSS one as text", async () => {
  const app = await h.openApp();
  try {
    for (const content of [XSS, "Prefers green tea over coffee", "Deleted after waiting"]) {
      await app.$(rowXPath(content)).waitForExist({ timeout: 20000 });
    }
    const images = await app.execute(() => document.querySelectorAll("img").length);
    assert.equal(images, 0, "the XSS content created no element");
    const alerted = await app.execute(() => window.__xss === true);
    assert.equal(alerted, false);
    const provenance = await app.$(`${rowXPath("Prefers green tea over coffee")}//p[contains(@class,'row-provenance')]`).getText();
    assert.match(provenance, /I always drink tea/);
    assert.match(provenance, /sess-42/);
    // Two frames, so WebKit has painted before the screenshot.
    await app.executeAsync((done) => requestAnimationFrame(() => requestAnimationFrame(() => done())));
    const shots = path.join(root, "target/e2e");
    mkdirSync(shots, { recursive: true });
    await screenshot(app, path.join(shots, "panel.png"));
  } finally {
    await app.deleteSession();
  }
});

test("the search box finds another form of a word and says the result matched words", async () => {
  const app = await h.openApp();
  try {
    await app.$(rowXPath("Prefers green tea over coffee")).waitForExist({ timeout: 20000 });
    const box = await app.$("//input[@type='search']");
    await box.setValue("preferences");
    const hit = await app.$(`${rowXPath("Prefers green tea over coffee")}//span[contains(@class,'row-matched')]`);
    await hit.waitForExist({ timeout: 20000 });
    assert.equal(await hit.getText(), "Matched words");
    assert.equal(await app.$(rowXPath("Deleted after waiting")).isExisting(), false, "only what matches");
  } finally {
    await app.deleteSession();
  }
});

test("the search box finds a memory by its meaning and says so, unobtrusively", async () => {
  const app = await h.openApp();
  try {
    await app.$(rowXPath("Prefers green tea over coffee")).waitForExist({ timeout: 20000 });
    const box = await app.$("//input[@type='search']");
    // No word of it is in the memory, its tag or its snippet: only its meaning is close.
    await box.setValue("favourite beverage");
    const hit = await app.$(`${rowXPath("Prefers green tea over coffee")}//span[contains(@class,'row-matched')]`);
    await hit.waitForExist({ timeout: 20000 });
    assert.equal(await hit.getText(), "Matched meaning");
  } finally {
    await app.deleteSession();
  }
});

test("MEMORY_BANK_DATA_DIR holds all app data, the web view's included, privately", async () => {
  const app = await h.openApp();
  try {
    await app.$(rowXPath("Prefers green tea over coffee")).waitForExist({ timeout: 20000 });
    const data = path.join(h.dir, "app");
    assert.ok(existsSync(path.join(data, "webview")), "the web view's storage is in the data folder");
    // Nothing under the default location the web view would otherwise use.
    const xdgDefault = path.join(h.homeEnv.XDG_DATA_HOME, "dev.memorybank.app");
    assert.equal(existsSync(xdgDefault), false, `${xdgDefault} exists`);
    assert.equal(statSync(data).mode & 0o777, 0o700);
    assert.equal(statSync(path.join(data, "webview")).mode & 0o777, 0o700);
  } finally {
    await app.deleteSession();
  }
});

test("the web process runs JavaScriptCore in its mini VM mode without its optimising JITs (issue 14: a smaller heap)", async () => {
  const app = await h.openApp();
  try {
    await app.$(rowXPath("Prefers green tea over coffee")).waitForExist({ timeout: 20000 });
    const pid = execFileSync("pgrep", ["-n", "-f", appBinary]).toString().trim();
    const children = execFileSync("pgrep", ["-P", pid]).toString().trim().split("\n");
    const web = children.find((c) => readFileSync(`/proc/${c}/comm`, "utf8").trim() === "WebKitWebProces");
    assert.ok(web, `no WebKitWebProcess among ${children}`);
    const environ = readFileSync(`/proc/${web}/environ`, "utf8").split("\0");
    assert.ok(environ.includes("JSC_forceMiniVMMode=true"), "the app set it for its web process");
    assert.ok(environ.includes("JSC_useDFGJIT=false"), "the app turned the DFG and FTL JITs off for its web process");
  } finally {
    await app.deleteSession();
  }
});

test("delete then Undo keeps the memory on the server", async () => {
  const app = await h.openApp();
  try {
    const content = "Undo keeps me on the server";
    await deleteRow(app, content);
    const undo = await app.$("//button[normalize-space()='Undo']");
    await undo.waitForClickable({ timeout: 3000 });
    await undo.click();
    await app.$(rowXPath(content)).waitForExist({ timeout: 3000 });
    await sleep(7000); // past the 6 s commit
    assert.ok(h.contents().includes(content), "nothing was sent");
    assert.ok(await app.$(rowXPath(content)).isExisting(), "the row is back");
  } finally {
    await app.deleteSession();
  }
});

test("delete then wait removes the memory on the server", async () => {
  const app = await h.openApp();
  try {
    const content = "Deleted after waiting";
    await deleteRow(app, content);
    assert.ok(h.contents().includes(content), "not sent before 6 s");
    await waitFor(() => !h.contents().includes(content), 10000, "the delete to reach the server");
  } finally {
    await app.deleteSession();
  }
});

test("delete then close the window within 2 s still removes it on the server", async () => {
  const app = await h.openApp();
  const content = "Deleted although the window closed";
  try {
    await deleteRow(app, content);
    // As a person would: the window manager's close message, not WebDriver's (which kills).
    execFileSync("/usr/bin/python3", [path.join(import.meta.dirname, "close-window.py"), "Memory Bank"]);
  } finally {
    await app.deleteSession().catch(() => {});
  }
  await waitFor(() => !h.contents().includes(content), 5000, "the flushed delete");
});

test("delete then SIGTERM the app still removes it on the server", async () => {
  const app = await h.openApp();
  const content = "Deleted although the app got SIGTERM";
  try {
    await deleteRow(app, content);
    const pid = execFileSync("pgrep", ["-n", "-f", appBinary]).toString().trim();
    execFileSync("kill", ["-TERM", pid]);
  } finally {
    await app.deleteSession().catch(() => {});
  }
  await waitFor(() => !h.contents().includes(content), 5000, "the delete sent at SIGTERM");
});
