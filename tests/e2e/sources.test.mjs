// The session sources beyond the first four, in a real window: one session each of Qwen
// Code, Cursor, GitHub Copilot CLI, Amp, goose, Crush, Zed, Aider, Cline and Roo Code written
// where those tools keep them in a temp home, and a
// ChatGPT and a Claude.ai export imported through Settings and the system's file dialog.
// Each is listed with its tool's name, filtered by source, and opened to its messages;
// Settings lists every source with its folders and turns one off and on again.
// Run under Xvfb: `xvfb-run -a npm test` (scripts/test.sh does).
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { Harness, root, screenshot, waitFor, xpathString } from "./harness.mjs";

const run = promisify(execFile);
// MEMORY_BANK_UPDATE_SCREENSHOTS=1 writes the README's copy in docs/screenshots.
const shots = process.env.MEMORY_BANK_UPDATE_SCREENSHOTS === "1" ? path.join(root, "docs/screenshots") : path.join(root, "target/e2e");
const answerDialog = (title, file) => run(path.join(import.meta.dirname, "answer-file-dialog.py"), [title, file]);

const now = Date.now();
const minutesAgo = (m) => now - m * 60_000;
const iso = (m) => new Date(minutesAgo(m)).toISOString();

/** One session per new source: its title (the first prompt, or the chat's name) and a reply. */
const SESSIONS = {
  "qwen-code": { name: "Qwen Code", title: "Why does the qwen build fail on arm64?", reply: "The qwen build pins an x86 toolchain; switch to the multi-arch image." },
  cursor: { name: "Cursor", title: "Cursor: split the checkout form", reply: "Split CheckoutForm into AddressStep and PaymentStep with a shared context." },
  "copilot-cli": { name: "GitHub Copilot CLI", title: "Why is the copilot cache cold after deploys?", reply: "The deploy job wipes ~/.cache; mount it as a volume instead." },
  amp: { name: "Amp", title: "Amp: trim the docker image", reply: "Use a distroless base and copy only the release binary." },
  goose: { name: "goose", title: "goose: rotate the staging certificates", reply: "Renewed both certificates and reloaded nginx on staging." },
  crush: { name: "Crush", title: "Crush: why is the lighthouse score low?", reply: "The hero image is 4 MB; serve it as AVIF at 1600 px." },
  zed: { name: "Zed", title: "Zed: explain the borrow checker error", reply: "The closure borrows config mutably while the loop still holds it." },
  aider: { name: "Aider", title: "Rename the aider config loader", reply: "Renamed load_cfg to load_config in config.py and updated the two callers." },
  cline: { name: "Cline", title: "Add a cline healthcheck endpoint", reply: "Added GET /healthz returning 200 with the build version." },
  "roo-code": { name: "Roo Code", title: "Explain the roo retry policy", reply: "Retries back off exponentially from 200 ms, five times at most." },
  chatgpt: { name: "ChatGPT", title: "Sourdough starter schedule", reply: "Feed it twice a day at a 1:1:1 ratio until it doubles within six hours." },
  "claude-ai": { name: "Claude.ai", title: "Trip plan for Kyoto", reply: "Spend the first morning at Fushimi Inari before the crowds arrive." },
};

function writeFile(file, text) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function writeQwen(home) {
  const id = "3c1f6a2e-8b4d-4e0f-9a7c-5d2b1e0f3a4c";
  const { title, reply } = SESSIONS["qwen-code"];
  const base = (uuid, parentUuid, type, m) => ({ uuid, parentUuid, sessionId: id, timestamp: iso(m), type, cwd: "/home/ada/firmware", version: "0.24.4" });
  const records = [
    { ...base("q-1", null, "user", 50), message: { role: "user", parts: [{ text: title }] } },
    { ...base("q-2", "q-1", "assistant", 49), model: "qwen3-coder-plus", message: { role: "model", parts: [{ text: reply }] } },
  ];
  writeFile(path.join(home, ".qwen/projects/-home-ada-firmware/chats", `${id}.jsonl`), records.map((r) => JSON.stringify(r)).join("\n") + "\n");
}

/** Copilot CLI's current layout: `session-state/<id>/events.jsonl`, its title in `workspace.yaml`. */
function writeCopilot(home) {
  const id = "4e3d2c1b-0a9f-4e8d-8c7b-6a5f4e3d2c1b";
  const { title, reply } = SESSIONS["copilot-cli"];
  const dir = path.join(home, ".copilot/session-state", id);
  const event = (type, n, data, m) => JSON.stringify({ type, data, id: `e-${n}`, timestamp: iso(m), parentId: n > 1 ? `e-${n - 1}` : null });
  writeFile(
    path.join(dir, "events.jsonl"),
    [
      event("session.start", 1, { sessionId: id, version: 1, producer: "copilot-agent", copilotVersion: "1.0.102", startTime: iso(60), context: { cwd: "/home/ada/infra" } }, 60),
      event("user.message", 2, { content: title, messageId: "u-1" }, 60),
      event("assistant.message", 3, { content: reply, messageId: "a-1", toolRequests: [] }, 59),
    ].join("\n") + "\n",
  );
  writeFile(path.join(dir, "workspace.yaml"), `id: ${id}\ncwd: /home/ada/infra\nname: ${title}\nuser_named: false\n`);
}

/** An Amp thread kept on disk: `~/.local/share/amp/threads/T-<id>.json`. */
function writeAmp(home) {
  const id = "T-01a247ea-9d0a-77d7-8757-b232006c0999";
  const { title, reply } = SESSIONS.amp;
  const thread = {
    v: 31,
    id,
    created: minutesAgo(55),
    title,
    env: { initial: { trees: [{ displayName: "images", uri: "file:///home/ada/images" }] } },
    messages: [
      { role: "user", messageId: 0, content: [{ type: "text", text: "Make the image smaller" }], meta: { sentAt: minutesAgo(55) } },
      { role: "assistant", messageId: 1, content: [{ type: "text", text: reply }], state: { type: "complete", stopReason: "end_turn" }, usage: { timestamp: iso(54) } },
    ],
  };
  writeFile(path.join(home, ".local/share/amp/threads", `${id}.json`), JSON.stringify(thread, null, 2));
}

/** Cursor, goose, Crush and Zed keep SQLite stores: Python's sqlite3 writes them. */
function writeSqliteStores(home) {
  const spec = {};
  for (const [source, minutes] of [["cursor", 65], ["goose", 70], ["crush", 75], ["zed", 80]]) {
    const { title, reply } = SESSIONS[source];
    const workspace = source === "crush" ? path.join(home, "src/lighthouse") : `/home/ada/${source}-work`;
    spec[source] = { title, prompt: `${title} (asked)`, reply, workspace, ms: minutesAgo(minutes) };
  }
  mkdirSync(path.join(home, "src/lighthouse"), { recursive: true });
  execFileSync("python3", [path.join(import.meta.dirname, "write-sqlite-sessions.py"), home, JSON.stringify(spec)]);
}

/** Aider run in the home folder: `~/.aider.chat.history.md`, read by default. */
function writeAider(home) {
  const { title, reply } = SESSIONS.aider;
  const started = new Date(minutesAgo(40));
  const pad = (n) => String(n).padStart(2, "0");
  const local = `${started.getFullYear()}-${pad(started.getMonth() + 1)}-${pad(started.getDate())} ${pad(started.getHours())}:${pad(started.getMinutes())}:${pad(started.getSeconds())}`;
  writeFile(
    path.join(home, ".aider.chat.history.md"),
    `\n# aider chat started at ${local}\n\n> aider --model openai/stub  \n> Aider v0.86.2  \n\n#### ${title}  \n\n${reply}\n\n> Applied edit to config.py  \n`,
  );
}

/** A Cline or Roo Code task in VS Code's extension storage. */
function writeTask(home, extension, taskId, firstSay, { title, reply }, m) {
  const ts = minutesAgo(m);
  const rows = [
    { ts, type: "say", say: firstSay, text: title, images: [], files: [] },
    { ts: ts + 30_000, type: "say", say: "text", text: reply, partial: false },
  ];
  writeFile(path.join(home, ".config/Code/User/globalStorage", extension, "tasks", taskId, "ui_messages.json"), JSON.stringify(rows));
}

const CHATGPT_EXPORT = () => {
  const { title, reply } = SESSIONS.chatgpt;
  const seconds = (m) => minutesAgo(m) / 1000;
  const node = (id, parent, children, message) => ({ id, parent, children, message });
  const message = (id, role, text, m) => ({ id, author: { role }, create_time: seconds(m), content: { content_type: "text", parts: [text] }, recipient: "all", metadata: {} });
  return [
    {
      id: "6751a0c2-1d3e-8000-9f4a-2b7c0e5d1a90",
      title,
      create_time: seconds(30),
      update_time: seconds(29),
      current_node: "m2",
      mapping: {
        root: node("root", null, ["m1"], null),
        m1: node("m1", "root", ["m2"], message("m1", "user", "How often should I feed my starter?", 30)),
        m2: node("m2", "m1", [], message("m2", "assistant", reply, 29)),
      },
    },
  ];
};

const CLAUDE_AI_EXPORT = () => {
  const { title, reply } = SESSIONS["claude-ai"];
  const message = (uuid, sender, text, m) => ({ uuid, sender, text, content: [{ type: "text", text }], created_at: iso(m), attachments: [], files: [] });
  return [
    {
      uuid: "0b9e7f3c-2a1d-4c5e-8f6a-9d8c7b6a5e4f",
      name: title,
      created_at: iso(20),
      updated_at: iso(19),
      chat_messages: [message("c1", "human", "Three days in Kyoto: where do I start?", 20), message("c2", "assistant", reply, 19)],
    },
  ];
};

const h = new Harness();

before(async () => {
  await h.start({
    beforeApp: (harness) => {
      writeQwen(harness.home);
      writeCopilot(harness.home);
      writeAmp(harness.home);
      writeSqliteStores(harness.home);
      writeAider(harness.home);
      writeTask(harness.home, "saoudrizwan.claude-dev", String(minutesAgo(35)), "task", SESSIONS.cline, 35);
      writeTask(harness.home, "rooveterinaryinc.roo-cline", "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a", "text", SESSIONS["roo-code"], 45);
    },
  });
});

after(async () => {
  await h.stop();
});

const nav = (label) => `//nav//button[normalize-space()=${xpathString(label)}]`;
const rowOf = (title) => `//button[contains(@class,'session-row')][@title=${xpathString(title)}]`;
const sessionRows = "//button[contains(@class,'session-row')]";
const sourceFilter = "//div[@role='region']//label[starts-with(normalize-space(),'Tool')]/select";
const chatsSection = "//section[.//h2[normalize-space()='Import chats from ChatGPT or Claude.ai']]";
const sourcesSection = "//section[.//h2[normalize-space()='Session sources']]";

async function click(app, selector) {
  const element = await app.$(selector);
  await element.waitForClickable({ timeout: 10000 });
  await element.click();
}

/** Opens a listed session and checks its messages: the first prompt and the reply. */
async function openAndRead(app, source) {
  const { title, reply, name } = SESSIONS[source];
  await click(app, rowOf(title));
  const texts = "//article[@data-message-index]//div[contains(@class,'message-text')]";
  await waitFor(async () => (await app.$$(texts).map((e) => e.getText())).includes(reply), 10000, `${name}'s reply in the transcript`);
  const shown = await app.$$(texts).map((e) => e.getText());
  assert.ok(shown.some((text) => text.length > 0 && text !== reply), `${name}: the person's message is shown too (${JSON.stringify(shown)})`);
  await click(app, "//button[normalize-space()='Back to sessions']");
  await app.$(rowOf(title)).waitForDisplayed({ timeout: 10000 });
}

async function importExport(app, file, expected) {
  await click(app, nav("Account settings"));
  await click(app, `${chatsSection}//button[normalize-space()='Import chats…']`);
  await answerDialog("Import chats from ChatGPT or Claude.ai", file);
  const status = `${chatsSection}//*[@role='status']`;
  await waitFor(async () => (await app.$(status).getText()).includes(expected), 20000, `the import to report "${expected}"`);
}

test("each new source's session is listed under its tool's name, filtered by source and opened; exports are imported through Settings", async () => {
  const app = await h.openApp();
  try {
    const chatgpt = path.join(h.dir, "chatgpt-export", "conversations.json");
    writeFile(chatgpt, JSON.stringify(CHATGPT_EXPORT()));
    await importExport(app, chatgpt, "ChatGPT: 1 conversation read: 1 new, 0 updated, 0 unchanged.");
    const claude = path.join(h.dir, "claude-export", "conversations.json");
    writeFile(claude, JSON.stringify(CLAUDE_AI_EXPORT()));
    await importExport(app, claude, "Claude.ai: 1 conversation read: 1 new, 0 updated, 0 unchanged.");
    // The same export again changes nothing and keeps the ids.
    await importExport(app, chatgpt, "ChatGPT: 1 conversation read: 0 new, 0 updated, 1 unchanged.");

    await click(app, nav("Sessions"));
    for (const { title } of Object.values(SESSIONS)) await app.$(rowOf(title)).waitForDisplayed({ timeout: 20000 });
    assert.equal((await app.$$(sessionRows)).length, Object.keys(SESSIONS).length, "only the temp home's sessions and the two imports");
    for (const { title, name } of Object.values(SESSIONS)) {
      const icon = await app.$(`${rowOf(title)}//*[@role='img']`).getAttribute("aria-label");
      assert.equal(icon, name, `the row of "${title}" shows its tool`);
    }
    await screenshot(app, path.join(shots, "sessions-sources.png"));

    for (const [source, { title, name }] of Object.entries(SESSIONS)) {
      await app.$(sourceFilter).selectByAttribute("value", source);
      await waitFor(async () => (await app.$$(sessionRows)).length === 1, 10000, `only ${name}'s session under the ${name} filter`);
      assert.ok(await app.$(rowOf(title)).isDisplayed());
      await openAndRead(app, source);
    }
    await app.$(sourceFilter).selectByAttribute("value", "");
    await waitFor(async () => (await app.$$(sessionRows)).length === Object.keys(SESSIONS).length, 10000, "every session again");
  } finally {
    await app.deleteSession();
  }
});

test("Settings lists every source with its folders here, and a source turned off is not read until turned on again", async () => {
  const app = await h.openApp();
  try {
    await click(app, nav("Account settings"));
    const rows = `${sourcesSection}//li[contains(@class,'source-row')]`;
    await app.$(rows).waitForDisplayed({ timeout: 10000 });
    const listed = await app.$$(rows).map((e) => e.getText());
    assert.equal(listed.length, 18, `every source the library reads: ${JSON.stringify(listed)}`);
    const aider = listed.find((text) => text.startsWith("Aider"));
    assert.match(aider, /Found on this computer/);
    assert.ok(aider.includes(path.join(h.home, ".aider.chat.history.md")), `Aider's file is shown: ${aider}`);
    assert.match(listed.find((text) => text.startsWith("Claude Code")), /Not found on this computer/);

    const aiderBox = `${sourcesSection}//label[normalize-space()='Read Aider sessions']/preceding-sibling::input[@type='checkbox']`;
    await click(app, aiderBox);
    await waitFor(async () => (await app.$(`${sourcesSection}//li[contains(@class,'source-row')][starts-with(normalize-space(),'Aider')]`).getText()).includes("Turned off"), 10000, "Aider turned off");
    await click(app, nav("Sessions"));
    await app.$(rowOf(SESSIONS.cline.title)).waitForDisplayed({ timeout: 10000 });
    await app.$(rowOf(SESSIONS.aider.title)).waitForExist({ reverse: true, timeout: 10000 });

    await click(app, nav("Account settings"));
    await click(app, aiderBox);
    await click(app, nav("Sessions"));
    await app.$(rowOf(SESSIONS.aider.title)).waitForDisplayed({ timeout: 20000 });
  } finally {
    await app.deleteSession();
  }
});
