// The Sessions view in a real window: the app reads synthetic Claude Code sessions from
// a temp home (never the real one), lists them, opens a transcript, and saves a memory
// that cites a message to the real memory service; a secret in the Remember dialog blocks
// Save; a session written while the app runs shows up without a restart. It also saves
// screenshots of the list and of the Remember dialog (the README shows them).
// Run under Xvfb: `xvfb-run -a npm test` (scripts/test.sh does).
import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { Harness, root, rowXPath, screenshot, sleep, waitFor, xpathString } from "./harness.mjs";

const XSS = "<img src=x onerror=alert(1)>";
// Screenshots go to target/e2e; MEMORY_BANK_UPDATE_SCREENSHOTS=1 writes the README's copies
// in docs/screenshots instead (a normal test run leaves the tracked files alone).
const shots = process.env.MEMORY_BANK_UPDATE_SCREENSHOTS === "1" ? path.join(root, "docs/screenshots") : path.join(root, "target/e2e");

const SESSION = "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f";
const PROJECT = "-home-ada-shop-api";
const CWD = "/home/ada/shop-api";
const TITLE = "Which package manager does this repo use?";
const UNTRUSTED_MESSAGE = `pnpm. Always pnpm here; delete package-lock.json. And drop the ${XSS} badge from the README.`;
const UNTRUSTED_TITLE = `Why does ${XSS} show up in the changelog?`;
const OTHERS = ["0a9b8c7d-6e5f-4a3b-9c2d-1e0f2a3b4c5d", "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"];
/** The Claude Code message the saved memory cites (its `uuid` is the message id). */
const CITED = { uuid: "b7e1c2d3-0001-4a5b-9c8d-000000000004", text: "Noted: this repo uses pnpm, never npm. The lockfile is pnpm-lock.yaml and CI runs `pnpm install --frozen-lockfile`." };
const EDITED = "The shop-api repo uses pnpm, never npm";

// Minutes before now, so the list shows recent, readable times.
const at = (minutesAgo) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

function user(sessionId, cwd, uuid, text, minutesAgo) {
  return { type: "user", uuid, sessionId, cwd, timestamp: at(minutesAgo), message: { role: "user", content: text } };
}

function assistant(sessionId, cwd, uuid, text, minutesAgo) {
  return {
    type: "assistant",
    uuid,
    sessionId,
    cwd,
    timestamp: at(minutesAgo),
    message: { id: `msg_${uuid.replaceAll("-", "")}`, type: "message", role: "assistant", content: [{ type: "text", text }] },
  };
}

const h = new Harness();

before(async () => {
  await h.start({
    beforeApp: (harness) => {
      // The session under test; one of its messages is untrusted markup.
      harness.writeClaudeSession(PROJECT, SESSION, [
        user(SESSION, CWD, "b7e1c2d3-0001-4a5b-9c8d-000000000001", TITLE, 95),
        assistant(SESSION, CWD, "b7e1c2d3-0001-4a5b-9c8d-000000000002", "It has both package-lock.json and pnpm-lock.yaml. Which one should I keep?", 94),
        user(SESSION, CWD, "b7e1c2d3-0001-4a5b-9c8d-000000000003", UNTRUSTED_MESSAGE, 93),
        assistant(SESSION, CWD, CITED.uuid, CITED.text, 92),
      ]);
      // Two more, so the list looks like a real one; one has an untrusted title.
      harness.writeClaudeSession("-home-ada-billing", OTHERS[0], [
        user(OTHERS[0], "/home/ada/billing", "c1000000-0000-4000-8000-000000000001", "Plan the migration of the invoices table to Postgres 17", 300),
        assistant(OTHERS[0], "/home/ada/billing", "c1000000-0000-4000-8000-000000000002", "Here is a three-step plan with a dry run first.", 298),
      ]);
      harness.writeClaudeSession(PROJECT, OTHERS[1], [
        user(OTHERS[1], CWD, "d2000000-0000-4000-8000-000000000001", UNTRUSTED_TITLE, 1500),
        assistant(OTHERS[1], CWD, "d2000000-0000-4000-8000-000000000002", "The changelog renders issue titles as HTML; escape them.", 1499),
      ]);
    },
  });
});

after(async () => {
  await h.stop();
});

const nav = (label) => `//nav//button[normalize-space()=${xpathString(label)}]`;
const sessionRow = (id) => `//button[contains(@class,'session-row')][@data-session-id=${xpathString(id)}]`;
const message = (index) => `//article[@data-message-index='${index}']`;
const dialog = "//*[@role='dialog']";
const field = (label) => `${dialog}//label[normalize-space()=${xpathString(label)}]/following-sibling::textarea[1]`;
const saveButton = `${dialog}//button[normalize-space()='Save']`;

/**
 * A listed session's title. textContent: WebDriver's visible-text rules read the one-line
 * (overflow: hidden) title as "" although it is on screen.
 */
function titleOf(app, sessionId) {
  return app.$(`${sessionRow(sessionId)}//span[contains(@class,'session-title')]`).getProperty("textContent");
}

async function click(app, selector) {
  const element = await app.$(selector);
  await element.waitForClickable({ timeout: 10000 });
  await element.click();
}

/** Replaces a controlled textarea's text the way typing does (select all, type). */
async function retype(app, selector, text) {
  const element = await app.$(selector);
  await element.waitForDisplayed({ timeout: 5000 });
  await element.click();
  await app.keys(["Control", "a"]);
  await app.keys("Backspace");
  await element.addValue(text);
  await waitFor(async () => (await element.getValue()) === text, 5000, `the field to read ${JSON.stringify(text)}`);
}

/** Sessions view → the session's transcript → "Remember…" on the cited message. */
async function openRememberDialog(app) {
  await click(app, nav("Sessions"));
  await click(app, sessionRow(SESSION));
  await app.$(message(3)).waitForDisplayed({ timeout: 10000 });
  await click(app, message(3)); // select the message (it takes focus)
  await click(app, `${message(3)}//button[@aria-label='Remember this message']`);
  await app.$(dialog).waitForDisplayed({ timeout: 5000 });
}

test("remember a transcript message: the memory is saved with its snippet and citation", () =>
  h.withApp("remember", async (app) => {
    await click(app, nav("Sessions"));
    const row = await app.$(sessionRow(SESSION));
    await row.waitForDisplayed({ timeout: 20000 });
    for (const id of OTHERS) await app.$(sessionRow(id)).waitForDisplayed({ timeout: 5000 });
    // Only the temp home's sessions: nothing from the real home leaked in.
    assert.equal((await app.$$("//button[contains(@class,'session-row')]")).length, 3);
    assert.equal(await titleOf(app, SESSION), TITLE);
    // The untrusted title is text: shown as typed, no element created, nothing ran.
    assert.equal(await titleOf(app, OTHERS[1]), UNTRUSTED_TITLE);
    assert.equal(await app.execute(() => document.querySelectorAll("img").length), 0, "no img element");
    await screenshot(app, path.join(shots, "sessions-view.png"));

    await row.click();
    await app.$(message(3)).waitForDisplayed({ timeout: 10000 });
    const untrusted = await app.$(`${message(2)}//div[contains(@class,'message-text')]`).getText();
    assert.equal(untrusted, UNTRUSTED_MESSAGE);
    assert.equal(await app.execute(() => document.querySelectorAll("img").length), 0, "no img element in the transcript");
    assert.equal(await app.execute(() => window.__xss === true), false);

    await click(app, message(3));
    await click(app, `${message(3)}//button[@aria-label='Remember this message']`);
    await app.$(dialog).waitForDisplayed({ timeout: 5000 });
    // The dialog starts from the whole message and shows what it will cite.
    assert.equal(await app.$(field("Memory")).getValue(), CITED.text);
    const citation = await app.$(`${dialog}//section[contains(@class,'citation')]`).getText();
    assert.match(citation, new RegExp(SESSION));
    assert.match(citation, new RegExp(CITED.uuid));
    assert.match(citation, /searched_conversation/);

    await retype(app, field("Memory"), EDITED);
    await app.$(`${dialog}//label[normalize-space()='Tags (optional)']/following-sibling::input[1]`).setValue("tooling");
    await screenshot(app, path.join(shots, "remember-dialog.png"));
    await click(app, saveButton);
    await app.$(dialog).waitForExist({ reverse: true, timeout: 10000 });

    // In the Memories panel: the edited sentence, the message as its snippet, the citation.
    await click(app, nav("Memories"));
    const memoryRow = await app.$(rowXPath(EDITED));
    await memoryRow.waitForDisplayed({ timeout: 10000 });
    const provenance = await app.$(`${rowXPath(EDITED)}//p[contains(@class,'row-provenance')]`).getText();
    assert.ok(provenance.includes(CITED.text), `snippet shown: ${provenance}`);
    assert.ok(provenance.includes(`session ${SESSION}`), `session cited: ${provenance}`);
    assert.ok(provenance.includes(`message ${CITED.uuid}`), `message cited: ${provenance}`);
    // The session is on this machine, so the citation opens it at the cited message.
    await click(app, `${rowXPath(EDITED)}//button[normalize-space()='Open session']`);
    await app.$(`${message(3)}[@aria-current='true']`).waitForDisplayed({ timeout: 10000 });
    // Both ways: the cited message is marked "Remembered", its tip shows the memory on
    // focus, and the marker opens that memory alone in the panel.
    const marker = `${message(3)}//button[contains(@class,'cited-marker')]`;
    await app.$(marker).waitForDisplayed({ timeout: 10000 });
    assert.equal(await app.$(marker).getAttribute("aria-label"), `Remembered: “${EDITED}”. Open it in Memories`);
    await app.execute((xpath) => document.evaluate(xpath, document, null, 9, null).singleNodeValue.focus(), marker);
    const tip = `${message(3)}//span[@role='tooltip']`;
    await app.$(tip).waitForDisplayed({ timeout: 5000 });
    assert.equal(await app.$(tip).getText(), EDITED);
    assert.match(await app.$("//details[contains(@class,'session-citations')]/summary").getText(), /1 memory cites this session/);
    await click(app, marker);
    await app.$("//button[normalize-space()='Show all memories']").waitForDisplayed({ timeout: 10000 });
    assert.deepEqual(await app.$$("//article[contains(@class,'row')]//*[contains(@class,'row-title')]").map((e) => e.getText()), [EDITED]);

    // On the real service.
    const saved = h.memories().filter((memory) => memory.content === EDITED);
    assert.equal(saved.length, 1, "saved once");
    const [context, ...rest] = saved[0].contexts;
    assert.equal(rest.length, 0);
    assert.equal(context.snippet, CITED.text);
    assert.deepEqual(context.citation, { conversationId: SESSION, messageId: CITED.uuid });
    assert.equal(context.origin, "searched_conversation");
    assert.deepEqual(saved[0].tags, ["tooling"]);
    assert.equal(saved[0].orgId, h.org);
  }));

test("a secret in the Remember dialog is flagged and cannot be saved", () =>
  h.withApp("secret", async (app) => {
    const before = h.memories().length;
    await openRememberDialog(app);
    // A GitHub token's shape: ghp_ and 36 letters and digits (built here, so no scanner
    // mistakes this file for a leak).
    const secret = `ghp_${"aB3dE5gH7jK9".repeat(3)}`;
    const content = `The deploy token is ${secret}`;
    await retype(app, field("Memory"), content);

    const warning = await app.$(`${dialog}//*[@role='alert'][contains(@class,'secret-warning')]`);
    await warning.waitForDisplayed({ timeout: 5000 });
    assert.match(await warning.getText(), /GitHub token/);
    assert.equal(await app.$(`${dialog}//mark[contains(@class,'secret')]`).getText(), secret);
    assert.equal(await app.$(field("Memory")).getAttribute("aria-invalid"), "true");
    const save = await app.$(saveButton);
    assert.equal(await save.isEnabled(), false, "Save is disabled");
    // Pressing it anyway (as a script would) does nothing.
    await app.execute((xpath) => {
      const button = document.evaluate(xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
      button.click();
    }, saveButton);
    await sleep(500);
    assert.ok(await app.$(dialog).isDisplayed(), "the dialog stays open");
    assert.equal(h.memories().length, before, "nothing was saved");
    assert.ok(!h.memories().some((memory) => JSON.stringify(memory).includes("ghp_")), "no secret on the server");

    // Editing it out clears the warning and enables Save again.
    await retype(app, field("Memory"), "The deploy token lives in the CI secrets");
    await app.$(`${dialog}//*[contains(@class,'secret-warning')]`).waitForExist({ reverse: true, timeout: 5000 });
    assert.equal(await app.$(saveButton).isEnabled(), true);
    await click(app, `${dialog}//button[normalize-space()='Cancel']`);
    await app.$(dialog).waitForExist({ reverse: true, timeout: 5000 });
    assert.equal(h.memories().length, before, "Cancel saved nothing");
  }));

test("a session written while the app runs appears in the list without a restart", (t) =>
  h.withApp("live", async (app) => {
    await click(app, nav("Sessions"));
    await app.$(sessionRow(SESSION)).waitForDisplayed({ timeout: 20000 });
    // A new Claude Code session in a workspace (folder) the app has not seen yet.
    const id = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f";
    const title = "Live: add a health check endpoint";
    assert.equal(await app.$(sessionRow(id)).isExisting(), false);
    const written = Date.now();
    const file = h.writeClaudeSession("-home-ada-new-service", id, [
      user(id, "/home/ada/new-service", "e3000000-0000-4000-8000-000000000001", title, 0),
      assistant(id, "/home/ada/new-service", "e3000000-0000-4000-8000-000000000002", "Added GET /healthz.", 0),
    ]);
    const row = await app.$(sessionRow(id));
    await row.waitForDisplayed({ timeout: 10000, interval: 100, timeoutMsg: "the new session did not appear within 10 s" });
    t.diagnostic(`the new session was listed ${Date.now() - written} ms after its file was written`);
    assert.equal(await titleOf(app, id), title);
    // The newest comes first.
    const first = await app.$(`(//button[contains(@class,'session-row')])[1]`).getAttribute("data-session-id");
    assert.equal(first, id);

    // A message appended to it (as the tool does while the session goes on) is counted too.
    appendFileSync(file, `${JSON.stringify(user(id, "/home/ada/new-service", "e3000000-0000-4000-8000-000000000003", "Thanks!", 0))}\n`);
    await app
      .$(`${sessionRow(id)}//span[normalize-space()='3 messages']`)
      .waitForExist({ timeout: 10000, interval: 100, timeoutMsg: "the appended message was not counted within 10 s" });
  }));
