// Settings → Data in a real window against a real memory service: Export… and Import…
// open the system's file dialog (GTK's, answered with the keyboard through XTEST, as a
// person would), the export is the service's memories, and an import of 5 000 lines
// moves a progress bar, reports the line it refused by its number, and adds the rest.
// Screenshot: target/e2e/settings-data.png.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import { Harness, memoryId, root, screenshot, waitFor, xpathString } from "./harness.mjs";

const run = promisify(execFile);
const shots = process.env.MEMORY_BANK_UPDATE_SCREENSHOTS === "1" ? path.join(root, "docs/screenshots") : path.join(root, "target/e2e");
const answerDialog = (title, file) => run(path.join(import.meta.dirname, "answer-file-dialog.py"), [title, file]);
const h = new Harness();

before(async () => {
  await h.start();
  for (const content of ["Exported one", "Exported two", "Exported three"]) h.save(content);
});

after(async () => {
  await h.stop();
});


function importLine(n) {
  const at = new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString();
  const content = n === 4001 ? "the key is ghp_0123456789abcdefghijABCDEFGHIJ0123" : `Imported memory ${n}`;
  return JSON.stringify({ id: memoryId(Date.parse(at), n), content, tags: null, createdAt: at, updatedAt: at, contexts: [], revisions: [] });
}

const button = (label) => `//section[@aria-labelledby='settings-data']//button[normalize-space()=${xpathString(label)}]`;
const status = "//section[@aria-labelledby='settings-data']//*[@role='status']";

test("Export… writes the service's memories to the file chosen in the system dialog; Import… adds 5 000 lines with a moving progress bar", async () => {
  const app = await h.openApp();
  try {
    await app.$("//nav//button[normalize-space()='Account settings']").click();
    await app.$(button("Export…")).waitForClickable({ timeout: 10000 });

    const exported = path.join(h.dir, "exported.jsonl");
    await app.$(button("Export…")).click();
    await answerDialog("Export memories", exported);
    await waitFor(async () => (await app.$(status).getText()).startsWith("Exported 3 memories"), 15000, "the export to finish");
    assert.equal(await app.$(status).getText(), `Exported 3 memories to ${exported}`);
    const lines = readFileSync(exported, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(lines.map((m) => m.id).sort(), h.memories().map((m) => m.id).sort(), "the file holds the service's memories");

    const file = path.join(h.dir, "import.jsonl");
    writeFileSync(file, Array.from({ length: 5000 }, (_, i) => importLine(i + 1)).join("\n") + "\n");
    // Every state the bar goes through, seen by the page itself.
    await app.execute(() => {
      window.__bar = [];
      new MutationObserver(() => {
        const bar = document.querySelector(".data-progress progress");
        if (bar) window.__bar.push([bar.value, bar.max]);
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    await app.$(button("Import…")).click();
    await answerDialog("Import memories", file);
    await waitFor(async () => (await app.$(status).getText()).startsWith("Imported from"), 60000, "the import to finish");
    assert.equal(await app.$(`${status}/p`).getText(), `Imported from ${file}: 4999 new, 0 already there, 1 not imported`);
    const bar = await app.execute(() => window.__bar);
    const moving = bar.filter(([value, max]) => max === 5000 && value > 0 && value < 5000);
    assert.ok(moving.length > 0, `the bar showed progress between the ends: ${JSON.stringify(bar.slice(0, 20))}`);
    await app.$("//section[@aria-labelledby='settings-data']//summary").click();
    const refused = await app.$("//ul[contains(@class,'data-failures')]/li").getText();
    assert.match(refused, /^4001 .*looks like a secret/);
    assert.equal(h.memoryCount(), 3 + 4999, "the good lines are on the server");
    await screenshot(app, path.join(shots, "settings-data.png"));
  } finally {
    await app.deleteSession();
  }
});
