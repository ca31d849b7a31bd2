// Transcripts rendered as Markdown, in a real window: the XSS corpus of the UI tests
// (ui/test/xss-corpus.json) in a Claude Code session renders inert (no script ran, no
// img/script/iframe/svg in the transcript, only http, https and mailto links, the literal
// text shown), and a link opens in the system browser (a stand-in registered as the
// home's default browser through xdg-open) while the web view stays where it is; the
// Rust side refuses to navigate the window even when a script asks it to.
// Run under Xvfb: `xvfb-run -a npm test` (scripts/test.sh does).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { Harness, claudeAssistant, claudeUser, root, screenshot, sleep, waitFor, xpathString } from "./harness.mjs";

const corpus = JSON.parse(readFileSync(path.join(root, "ui/test/xss-corpus.json"), "utf8")).cases;
const SESSION = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const CWD = "/home/ada/markdown";
const GUIDE = "https://example.com/guide?from=transcript";
const MESSAGES = [
  claudeUser(SESSION, CWD, "f0000000-0000-4000-8000-000000000001", "Paste the payloads you found", 30),
  claudeAssistant(SESSION, CWD, "f0000000-0000-4000-8000-000000000002", corpus.map((c) => c.markdown).join("\n\n"), 29),
  claudeAssistant(SESSION, CWD, "f0000000-0000-4000-8000-000000000003", `## Next\n\nRead [the guide](${GUIDE}) first, then run \`make\`.`, 28),
];

const h = new Harness();
let browserOpened;

before(async () => {
  await h.start({
    beforeApp: (harness) => {
      harness.writeClaudeSession("-home-ada-markdown", SESSION, MESSAGES);
      browserOpened = harness.fakeBrowser();
    },
  });
});

after(async () => {
  await h.stop();
});

const message = (index) => `//article[@data-message-index='${index}']`;

function withTranscript(name, body) {
  return h.withApp(name, async (app) => {
    const sessions = await app.$("//nav//button[normalize-space()='Sessions']");
    await sessions.waitForClickable({ timeout: 10000 });
    await sessions.click();
    const row = await app.$(`//button[contains(@class,'session-row')][@data-session-id=${xpathString(SESSION)}]`);
    await row.waitForClickable({ timeout: 20000 });
    await row.click();
    await app.$(message(2)).waitForDisplayed({ timeout: 10000 });
    // A page that navigated away (or reloaded) would lose this.
    await app.execute(() => (window.__sameDocument = true));
    await body(app);
  });
}

test("the XSS corpus in a session renders inert in the real window", () =>
  withTranscript("markdown-xss", async (app) => {
    await app.$(message(1)).scrollIntoView();
    // Time for anything that would fire (an image's onerror, an svg's onload) to fire.
    await sleep(1000);
    const found = await app.execute(() => {
      const region = document.querySelector(".transcript-scroll");
      const text = region.querySelector("[data-message-index='1'] .message-text");
      return {
        // typeof: WebDriver answers undefined as null, which a set sentinel could also be.
        xss: typeof window.__xss,
        active: Array.from(region.querySelectorAll("img, script, iframe, frame, svg, math, object, embed, style, form, input"), (e) => e.tagName),
        handlers: Array.from(region.querySelectorAll("*")).flatMap((e) => e.getAttributeNames().filter((n) => n.startsWith("on"))),
        hrefs: Array.from(text.querySelectorAll("[href]"), (e) => e.getAttribute("href")),
        sources: text.querySelectorAll("[src], [srcset], [data], [action], [formaction]").length,
        text: text.textContent,
      };
    });
    assert.equal(found.xss, "undefined", "no payload ran");
    assert.deepEqual(found.active, [], "no active element in the transcript");
    assert.deepEqual(found.handlers, [], "no on* attribute in the transcript");
    assert.equal(found.sources, 0);
    assert.deepEqual(found.hrefs, corpus.flatMap((c) => c.links ?? []));
    for (const href of found.hrefs) assert.match(new URL(href).protocol, /^(https?|mailto):$/);
    for (const visible of corpus.flatMap((c) => c.visible)) assert.ok(found.text.includes(visible), `shown as text: ${visible}`);

    // Clicking an inert link (javascript:) runs nothing and opens nothing.
    const inert = await app.$(`${message(1)}//span[contains(@class,'md-link-inert')][normalize-space()='plain js']`);
    await inert.scrollIntoView();
    await inert.click();
    await sleep(500);
    assert.equal(await app.execute(() => typeof window.__xss), "undefined");
    assert.equal(await app.execute(() => window.__sameDocument), true);
    assert.deepEqual(browserOpened(), []);
    await screenshot(app, path.join(root, "target/e2e", "markdown-xss.png"));
  }));

test("a link opens in the system browser and the web view stays on the transcript", () =>
  withTranscript("markdown-link", async (app) => {
    const before = await app.execute(() => location.href);
    const link = await app.$(`${message(2)}//a[normalize-space()='the guide']`);
    await link.scrollIntoView();
    assert.equal(await link.getAttribute("href"), GUIDE);
    await link.click();
    await waitFor(() => browserOpened().includes(GUIDE), 10000, "the default browser to be asked for the link");
    assert.deepEqual(browserOpened(), [GUIDE], "opened once, in the browser");
    assert.equal(await app.execute(() => location.href), before, "the web view did not navigate");
    assert.equal(await app.execute(() => window.__sameDocument), true, "still the same page");
    assert.ok(await app.$(message(2)).isDisplayed(), "the transcript is still shown");
    await screenshot(app, path.join(root, "target/e2e", "markdown-transcript.png"));
  }));

test("the window refuses to navigate away from the app, even when a script asks", () =>
  withTranscript("markdown-navigation", async (app) => {
    const before = await app.execute(() => location.href);
    const opened = browserOpened().length;
    await app.execute(() => {
      location.href = "https://example.com/elsewhere";
    });
    await sleep(1500);
    assert.equal(await app.execute(() => location.href), before);
    assert.equal(await app.execute(() => window.__sameDocument), true);
    assert.equal(browserOpened().length, opened, "nor was it handed to the browser");
  }));
