// The Inbox in a real window against a real memory service: an agent (an agent token,
// which cannot confirm anything itself) proposes over HTTP, the Inbox shows it within
// 5 s, the person accepts it with an edited sentence, and the memory is in the panel and
// on the server with confirmedVia "app"; a delete proposal is rejected from the keyboard.
// Then Settings → Agents installs Memory Bank into Codex CLI's config in the temp home,
// after showing the diff. Screenshots go to target/e2e (inbox.png, agents.png, agents-review.png).
// Run under Xvfb: `xvfb-run -a npm test`.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { Harness, root, rowXPath, screenshot, waitFor, xpathString } from "./harness.mjs";

const shots = process.env.MEMORY_BANK_UPDATE_SCREENSHOTS === "1" ? path.join(root, "docs/screenshots") : path.join(root, "target/e2e");

const SESSION = "6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const MESSAGE = "e4000000-0000-4000-8000-000000000002";
const PROPOSED = "Ada prefers green tea";
const EDITED = "Ada prefers green tea, no sugar";
const OLD = "Ada lives at 12 Old Street";

const h = new Harness();

/** The proposal whose sentence is exactly `content`. */
const proposalXPath = (content) =>
  `//article[contains(@class,'proposal')][.//p[contains(@class,'row-title')][normalize-space()=${xpathString(content)}]]`;

before(async () => {
  await h.start({
    beforeApp: (harness) => {
      // The session the proposal cites, on this machine: the citation becomes a link.
      const at = (minutesAgo) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
      harness.writeClaudeSession("-home-ada-kitchen", SESSION, [
        { type: "user", uuid: "e4000000-0000-4000-8000-000000000001", sessionId: SESSION, cwd: "/home/ada/kitchen", timestamp: at(20), message: { role: "user", content: "Remember that I take my tea green." } },
        { type: "assistant", uuid: MESSAGE, sessionId: SESSION, cwd: "/home/ada/kitchen", timestamp: at(19), message: { id: "msg_e4", type: "message", role: "assistant", content: [{ type: "text", text: "Green tea it is; I will propose remembering that." }] } },
      ]);
    },
  });
  h.save(OLD);
});

after(async () => {
  await h.stop();
});

test("a proposal from an agent token shows in the Inbox within 5 s and Accept with an edit saves it as confirmed in the app", async () => {
  const agent = h.agentToken();
  await h.withApp("inbox", async (app) => {
    await app.$(rowXPath(OLD)).waitForExist({ timeout: 20000 });
    await app.$("//nav//button[starts-with(normalize-space(),'Inbox')]").click();
    await app.$("//h3[normalize-space()='Nothing waiting']").waitForExist({ timeout: 5000 });

    // The agent's token may propose, but not accept its own proposal.
    const oldId = h.memories().find((m) => m.content === OLD).id;
    const removal = await h.api("POST", "/v1/proposals", agent, { action: "delete", memoryId: oldId });
    assert.equal(removal.status, 201, JSON.stringify(removal.body));
    const proposedAt = Date.now();
    const made = await h.api("POST", "/v1/proposals", agent, {
      content: PROPOSED,
      tags: ["drinks"],
      contexts: [{ snippet: "Remember that I take my tea green.", conversationId: SESSION, messageId: MESSAGE }],
      proposedBy: "claude-code",
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const refused = await h.api("POST", `/v1/proposals/${made.body.proposal.id}/accept`, agent, {});
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, "agent_token_cannot_confirm");

    const item = app.$(proposalXPath(PROPOSED));
    await item.waitForExist({ timeout: 5000, interval: 100 });
    const shownAfter = Date.now() - proposedAt;
    assert.ok(shownAfter <= 5000, `shown after ${shownAfter} ms`);
    await app.$(proposalXPath(OLD)).waitForExist({ timeout: 3000 });
    const text = await item.getText();
    assert.match(text, /Proposed by an agent that calls itself Claude Code/);
    assert.match(text, /Remember that I take my tea green\./);
    await item.$(".//button[normalize-space()='Open session']").waitForExist({ timeout: 5000 });
    const tab = app.$("//nav//button[starts-with(normalize-space(),'Inbox')]");
    assert.equal(await tab.$(".nav-badge").getText(), "2");
    assert.equal(await tab.$(".visually-hidden").getHTML({ includeSelectorTag: false }), "Inbox, 2 proposals waiting");
    await screenshot(app, path.join(shots, "inbox.png"));

    await item.$(".//button[@aria-label='Check and accept this proposal']").click();
    const field = item.$(".//textarea");
    await field.waitForExist({ timeout: 3000 });
    await field.setValue(EDITED);
    await item.$(".//button[normalize-space()='Save memory']").click();
    await app.$(`//p[contains(@class,'inbox-status')][normalize-space()=${xpathString(`Saved: “${EDITED}”`)}]`).waitForExist({ timeout: 5000 });

    // Focus moved on to the delete proposal: R rejects it, nothing is deleted.
    const focused = await app.execute(() => document.activeElement?.querySelector(".row-title")?.textContent ?? null);
    assert.equal(focused, OLD);
    await app.keys(["r"]);
    await app.$("//h3[normalize-space()='Nothing waiting']").waitForExist({ timeout: 5000 });

    await app.$("//nav//button[normalize-space()='Memories']").click();
    const row = app.$(rowXPath(EDITED));
    await row.waitForExist({ timeout: 5000 });
    assert.match(await row.getText(), /Confirmed in Memory Bank · proposed by an agent that calls itself Claude Code/);
    assert.ok(await app.$(rowXPath(OLD)).isExisting(), "the rejected delete deleted nothing");
  });
  const saved = h.memories().find((m) => m.content === EDITED);
  assert.ok(saved, "the edited sentence is on the server");
  assert.equal(saved.confirmedVia, "app");
  assert.equal(saved.proposedBy, "claude-code");
  assert.deepEqual(saved.tags, ["drinks"]);
  assert.equal(saved.contexts[0].citation.conversationId, SESSION);
  assert.ok(!h.contents().includes(PROPOSED), "the unedited draft was not saved");
  assert.ok(h.contents().includes(OLD));
});

test("Settings → Agents shows the change to Codex CLI's config and installs it", async () => {
  const config = path.join(h.homeEnv.CODEX_HOME, "config.toml");
  await h.withApp("agents", async (app) => {
    await app.$("//nav//button[normalize-space()='Account settings']").click();
    const install = app.$("//button[@aria-label='Install in Codex CLI']");
    await install.waitForClickable({ timeout: 10000 });
    const runs = await app.$("//p[starts-with(normalize-space(),'Agents will run:')]").getText();
    assert.match(runs, /memory-bank mcp$/);
    // The Agents section at the top of the settings pane, the header still in view.
    await app.execute(() => {
      const pane = document.querySelector(".settings");
      const heading = [...document.querySelectorAll("h2")].find((h) => h.textContent === "Agents");
      if (pane && heading) pane.scrollTop += heading.getBoundingClientRect().top - pane.getBoundingClientRect().top - 8;
      window.scrollTo(0, 0);
    });
    await screenshot(app, path.join(shots, "agents.png"));
    await install.click();
    const dialog = app.$("//*[@role='dialog']");
    await dialog.$(".//*[@role='region'][@aria-label='The change']").waitForExist({ timeout: 5000 });
    assert.match(await dialog.getText(), /\[mcp_servers\.memory-bank\]/);
    assert.equal(existsSync(config), false, "nothing is written before confirming");
    await screenshot(app, path.join(shots, "agents-review.png"));
    await dialog.$(".//button[normalize-space()='Install']").click();
    await app.$("//p[starts-with(normalize-space(),'Installed in Codex CLI.')]").waitForExist({ timeout: 5000 });
    await app.$("//button[@aria-label='Remove from Codex CLI']").waitForExist({ timeout: 5000 });
    const written = readFileSync(config, "utf8");
    assert.match(written, /\[mcp_servers\.memory-bank\]/);
    assert.match(written, /args = \["mcp"\]/);
    assert.doesNotMatch(written, /mbk_/, "no token is written");

    // Recall on: the change to every installed agent is shown first, then written.
    const hooks = path.join(h.homeEnv.CODEX_HOME, "hooks.json");
    await app.$("//label[normalize-space()='Let agents look up relevant memories by themselves']").click();
    const review = app.$("//*[@role='dialog']");
    const change = review.$(".//*[@role='region'][@aria-label='The change to Codex CLI']");
    await change.waitForExist({ timeout: 5000 });
    assert.match(await change.getText(), /"--recall"/);
    assert.match(await change.getText(), /recall --agent codex/);
    assert.equal(existsSync(hooks), false, "nothing is written before confirming");
    await screenshot(app, path.join(shots, "agents-recall.png"));
    await review.$(".//button[normalize-space()='Turn on']").click();
    await app.$("//p[starts-with(normalize-space(),'Agents may now look up relevant memories')]").waitForExist({ timeout: 5000 });
    await app.$("//p[contains(normalize-space(),'run /hooks and trust')]").waitForExist({ timeout: 5000 });
  });
  assert.match(readFileSync(config, "utf8"), /args = \["mcp", "--recall"\]/);
  const hook = JSON.parse(readFileSync(path.join(h.homeEnv.CODEX_HOME, "hooks.json"), "utf8"));
  assert.match(hook.hooks.UserPromptSubmit[0].hooks[0].command, /memory-bank recall --agent codex$/);
});
