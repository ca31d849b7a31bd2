// The UI in Simplified Chinese in a real window, over Chinese and emoji content: switched
// the way a person does it (Account settings → Language → 简体中文), kept when the window
// is opened again. (Not through LANG=zh_CN.UTF-8: WebKitGTK takes navigator.language from
// setlocale, so that needs a generated zh_CN locale, which a fresh Debian lacks; it then
// reports "C" or "en-US".) Painted with real glyphs (scripts/test.sh installs fonts-noto-cjk
// and fonts-noto-color-emoji; without them every character is an empty box). Screenshots
// of the memory panel and the Sessions view: panel-zh.png and sessions-zh.png in
// target/e2e (docs/screenshots with MEMORY_BANK_UPDATE_SCREENSHOTS=1; the README shows them).
// Run under Xvfb: `xvfb-run -a npm test` (scripts/test.sh does).
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, test } from "node:test";
import { Harness, root, rowXPath, screenshot, xpathString } from "./harness.mjs";

const shots = process.env.MEMORY_BANK_UPDATE_SCREENSHOTS === "1" ? path.join(root, "docs/screenshots") : path.join(root, "target/e2e");

const SESSION = "7c1e2d3f-4a5b-4c6d-8e7f-8a9b0c1d2e3f";
const CWD = "/home/ada/网店-api";
// Claude Code names a project's folder after its path, every other character a "-".
const projectOf = (cwd) => cwd.replace(/[^a-zA-Z0-9]/g, "-");
const TITLE = "这个仓库用哪个包管理器？🤔";
const OTHERS = [
  { id: "1b2c3d4e-5f60-4718-8293-a4b5c6d7e8f9", cwd: "/home/ada/账单", title: "把发票表迁移到 Postgres 17 🗄️，先做一次演练", minutesAgo: 300 },
  { id: "2c3d4e5f-6071-4829-93a4-b5c6d7e8f9a0", cwd: CWD, title: "为什么更新日志里的中文标题变成了乱码？🐛", minutesAgo: 1500 },
];
// Oldest first: the panel lists the newest first, so MEMORIES[0] ends up at the bottom.
const MEMORIES = [
  ["Ada 喜欢喝绿茶 🍵，不喝咖啡", "--tag", "饮品"],
  ["周五下午不发布新版本 🚫🚀", "--tag", "发布"],
  ["代码评审至少需要两位同事批准才能合并 ✅👀", "--snippet", "至少两个人看过再合并", "--conversation-id", SESSION, "--message-id", "msg-3"],
  ["这个仓库只用 pnpm，绝不用 npm 📦", "--tag", "工具", "--tag", "pnpm"],
];

const at = (minutesAgo) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
const user = (sessionId, cwd, uuid, text, minutesAgo) => ({
  type: "user", uuid, sessionId, cwd, timestamp: at(minutesAgo), message: { role: "user", content: text },
});
const assistant = (sessionId, cwd, uuid, text, minutesAgo) => ({
  type: "assistant", uuid, sessionId, cwd, timestamp: at(minutesAgo),
  message: { id: `msg_${uuid.replaceAll("-", "")}`, type: "message", role: "assistant", content: [{ type: "text", text }] },
});

const h = new Harness();

before(async () => {
  await h.start({
    beforeApp: (harness) => {
      harness.writeClaudeSession(projectOf(CWD), SESSION, [
        user(SESSION, CWD, "e1000000-0000-4000-8000-000000000001", TITLE, 95),
        assistant(SESSION, CWD, "e1000000-0000-4000-8000-000000000002", "仓库里同时有 package-lock.json 和 pnpm-lock.yaml。要保留哪一个？", 94),
        user(SESSION, CWD, "e1000000-0000-4000-8000-000000000003", "只用 pnpm 👍 删掉 package-lock.json。", 93),
      ]);
      for (const [n, other] of OTHERS.entries()) {
        harness.writeClaudeSession(projectOf(other.cwd), other.id, [
          user(other.id, other.cwd, `f${n}000000-0000-4000-8000-000000000001`, other.title, other.minutesAgo),
          assistant(other.id, other.cwd, `f${n}000000-0000-4000-8000-000000000002`, "好的，这是一个三步计划 📝", other.minutesAgo - 1),
        ]);
      }
    },
  });
  for (const [content, ...flags] of MEMORIES) h.save(content, ...flags);
});

after(async () => {
  await h.stop();
});

const nav = (label) => `//nav//button[normalize-space()=${xpathString(label)}]`;
const sessionRow = (id) => `//button[contains(@class,'session-row')][@data-session-id=${xpathString(id)}]`;

async function click(app, selector) {
  const element = await app.$(selector);
  await element.waitForClickable({ timeout: 20000 });
  await element.click();
}

/** The UI strings that show the whole shell is in Chinese: title, tabs, `lang`. */
async function assertChineseShell(app) {
  await app.$(nav("账户设置")).waitForExist({ timeout: 10000 });
  for (const label of ["记忆", "会话"]) assert.ok(await app.$(nav(label)).isExisting(), `the ${label} tab`);
  assert.equal(await app.$("//h1").getText(), "记忆库");
  assert.equal(await app.execute(() => document.documentElement.lang), "zh-CN");
  assert.equal(await app.getTitle(), "记忆库");
}

test("Account settings → Language → 简体中文 turns the whole UI Chinese; the panel shows Chinese and emoji memories", () =>
  h.withApp("i18n-panel", async (app) => {
    // The harness starts the app with LANG=en_US.UTF-8: English until the person switches.
    await app.$(nav("Memories")).waitForExist({ timeout: 20000 });
    await click(app, nav("Account settings"));
    const language = await app.$("//select[option[@value='zh-CN']]");
    await language.waitForEnabled({ timeout: 10000 });
    await language.selectByVisibleText("简体中文");
    await assertChineseShell(app);

    await click(app, nav("记忆"));
    for (const [content] of MEMORIES) await app.$(rowXPath(content)).waitForDisplayed({ timeout: 20000 });
    assert.ok(await app.$("//input[@placeholder='搜索记忆…']").isExisting(), "the search box's Chinese placeholder");
    const remove = await app.$(`${rowXPath(MEMORIES[0][0])}//button[@aria-label='删除记忆']`).getText();
    assert.equal(remove, "删除");
    const provenance = await app.$(`${rowXPath(MEMORIES[2][0])}//p[contains(@class,'row-provenance')]`).getText();
    assert.match(provenance, /至少两个人看过再合并/);
    assert.match(provenance, /来源/);
    await screenshot(app, path.join(shots, "panel-zh.png"));
  }));

test("the choice is kept: opened again, the app is in Chinese; the Sessions view lists Chinese and emoji titles", () =>
  h.withApp("i18n-sessions", async (app) => {
    await assertChineseShell(app);
    await click(app, nav("会话"));
    await app.$(sessionRow(SESSION)).waitForDisplayed({ timeout: 20000 });
    for (const other of OTHERS) await app.$(sessionRow(other.id)).waitForDisplayed({ timeout: 5000 });
    // textContent: WebDriver's visible-text rules read the one-line title as "".
    const title = await app.$(`${sessionRow(SESSION)}//span[contains(@class,'session-title')]`).getProperty("textContent");
    assert.equal(title, TITLE);
    assert.ok(await app.$("//input[@placeholder='搜索消息…']").isExisting(), "the search box's Chinese placeholder");
    assert.match(await app.$(sessionRow(SESSION)).getProperty("textContent"), /3 条消息/);
    await screenshot(app, path.join(shots, "sessions-zh.png"));
  }));
