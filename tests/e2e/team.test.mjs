// Team banks in a real window against a real memory service (docs/teams.md). The e2e
// user owns the org (its first member); Bob is a member. The panel's Mine / Team / All
// shows the right rows, each team memory marked and its author named; Bob's team save
// waits in the org Inbox, where the owner sees who proposed it and accepts it; Settings →
// Team lists the members with their roles, the policy and the audit log, and a role
// changed there is changed on the server. Run under Xvfb: `xvfb-run -a npm test`.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, test } from "node:test";
import { Harness, root, rowXPath, screenshot, xpathString } from "./harness.mjs";

const OWN = "My own tea is green";
const TEAM = "The team deploys on Tuesdays";
const PROPOSED = "Freeze deploys on Fridays";

const h = new Harness();
let bob;
let bobToken;

before(async () => {
  await h.start();
  bob = h.admin("user", "add", "bob@example.com");
  h.admin("member", "add", h.org, bob);
  bobToken = h.admin("token", "issue", bob);
  h.save(OWN);
  h.save(TEAM, "--team");
});

after(async () => {
  await h.stop();
});

/** The rows the panel shows now, by sentence. */
const shownRows = (app) =>
  app.execute(() => Array.from(document.querySelectorAll("article.row .row-title"), (node) => node.textContent));

async function showScope(app, label, expected) {
  await app.$(`//div[@role='radiogroup'][@aria-label='Show']//label[normalize-space()=${xpathString(label)}]`).click();
  await app.waitUntil(async () => JSON.stringify(await shownRows(app)) === JSON.stringify(expected), {
    timeout: 5000,
    timeoutMsg: `${label}: expected ${JSON.stringify(expected)}, saw ${JSON.stringify(await shownRows(app))}`,
  });
}

test("Mine / Team / All show the right rows; the org Inbox and Settings → Team work for the owner", async () => {
  // Bob, a member: his team save is a proposal in the org Inbox (202).
  const proposed = await h.api("POST", "/v1/memory", bobToken, { content: PROPOSED, scope: "org" });
  assert.equal(proposed.status, 202, JSON.stringify(proposed.body));

  await h.withApp("team", async (app) => {
    await app.$(rowXPath(TEAM)).waitForExist({ timeout: 20000 });
    assert.deepEqual(await shownRows(app), [TEAM, OWN]);
    const teamRow = app.$(rowXPath(TEAM));
    assert.equal(await teamRow.$(".//span[contains(@class,'row-team')]").getText(), "Team");
    assert.equal(await teamRow.$(".//span[contains(@class,'row-saved-by')]").getText(), "Saved by you");
    assert.equal(await app.$(rowXPath(OWN)).$$(".//span[contains(@class,'row-team')]").length, 0);

    await showScope(app, "Team", [TEAM]);
    await showScope(app, "Mine", [OWN]);
    await showScope(app, "All", [TEAM, OWN]);

    // The org Inbox, after the owner's own (empty) one: Bob's proposal, named.
    await app.$("//nav//button[starts-with(normalize-space(),'Inbox')]").click();
    const section = app.$("//section[contains(@class,'inbox-team')]");
    await section.waitForExist({ timeout: 5000 });
    assert.equal(await section.$(".//h2").getText(), "Team Inbox: E2E");
    const item = section.$(`.//article[contains(@class,'proposal')][.//p[contains(@class,'row-title')][normalize-space()=${xpathString(PROPOSED)}]]`);
    await item.waitForExist({ timeout: 5000 });
    assert.match(await item.getText(), /Proposed by bob@example\.com/);
    await item.$(".//button[@aria-label='Check and accept this proposal']").click();
    await item.$(".//button[normalize-space()='Save memory']").click();
    await section.$(".//p[normalize-space()='Nothing waits for the team.']").waitForExist({ timeout: 5000 });

    await app.$("//nav//button[normalize-space()='Memories']").click();
    const accepted = app.$(rowXPath(PROPOSED));
    await accepted.waitForExist({ timeout: 5000 });
    assert.equal(
      await accepted.$(".//span[contains(@class,'row-saved-by')]").getText(),
      "Saved by bob@example.com · confirmed by you",
    );
    await showScope(app, "Team", [PROPOSED, TEAM]);
    await screenshot(app, path.join(root, "target/e2e", "team-panel.png"));

    // Settings → Team: the owner's page.
    await app.$("//nav//button[normalize-space()='Account settings']").click();
    const team = app.$("//section[contains(@class,'team-section')]");
    await team.waitForExist({ timeout: 5000 });
    assert.equal(await team.$(".//h2").getText(), "Team: E2E");
    await team.$(".//ul[contains(@class,'member-list')]").waitForExist({ timeout: 5000 });
    const emails = await app.execute(() =>
      Array.from(document.querySelectorAll(".team-section .member-email"), (node) => node.textContent),
    );
    assert.deepEqual(emails, ["e2e@example.com (you)", "bob@example.com"]);
    assert.match(await team.getText(), /Your role: Owner/);
    assert.equal(await team.$(".//input[@type='checkbox'][following-sibling::label[normalize-space()='Memory on for this org']]").isSelected(), true);
    assert.equal(
      await team.$(".//input[@type='checkbox'][following-sibling::label[normalize-space()=\"Members' agents may propose team memories\"]]").isSelected(),
      true,
    );
    // The audit log: the save and the accept, newest first, never the text.
    const audit = team.$(".//table[contains(@class,'audit-table')]");
    await audit.waitForExist({ timeout: 5000 });
    const actions = await app.execute(() =>
      Array.from(document.querySelectorAll(".audit-table tbody tr td:nth-child(3)"), (node) => node.textContent),
    );
    // The owner's save; Bob's proposal; its accept (the decision and the save it made).
    assert.deepEqual([...actions].sort(), ["Accepted", "Proposed", "Saved", "Saved"]);
    assert.equal(actions[3], "Saved", "the first save is the oldest line");
    assert.ok(!(await audit.getText()).includes(PROPOSED), "the audit log holds no content");

    // Bob made an admin here is an admin on the server.
    await team.$(".//label[normalize-space()='Role of bob@example.com']/following-sibling::select[1]").selectByAttribute("value", "admin");
    await app.waitUntil(async () => {
      const members = await h.api("GET", `/v1/orgs/${h.org}/members`, h.token);
      return members.body.members.find((m) => m.email === "bob@example.com")?.role === "admin";
    }, { timeout: 5000, timeoutMsg: "bob is not an admin on the server" });
    await screenshot(app, path.join(root, "target/e2e", "team-settings.png"));

    // The last owner cannot step down: the server's sentence is shown.
    await team.$(".//label[normalize-space()='Role of e2e@example.com']/following-sibling::select[1]").selectByAttribute("value", "member");
    const refusal = team.$(".//p[@role='alert']");
    await refusal.waitForExist({ timeout: 5000 });
    // The org by its name, never its id.
    assert.equal(await refusal.getText(), "Refused: E2E would have no owner left; make another member its owner first.");
  });

  const team = await h.api("GET", "/v1/memory?scope=team", h.token);
  const saved = team.body.memories.find((m) => m.content === PROPOSED);
  assert.equal(saved.savedBy, bob);
  assert.equal(saved.confirmedBy, h.user);
});
