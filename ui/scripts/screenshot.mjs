// Screenshots of the built panel (ui/dist) in Debian's chromium, with the Tauri IPC
// mocked the way @tauri-apps/api/mocks does it (window.__TAURI_INTERNALS__). The page is
// served with the app's CSP, and any CSP violation or page error fails the run, so this
// doubles as a check that the bundle works under `script-src 'self'; style-src 'self'`.
//
//   npm run build && npm run screenshot   (needs: apt-get install chromium)
import { createServer } from "node:http";
import { readFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";

const axeSource = await readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

const here = fileURLToPath(new URL(".", import.meta.url));
const dist = join(here, "..", "dist");
// MEMORY_BANK_SCREENSHOTS_DIR writes them elsewhere (e.g. target/), leaving the README's copies alone.
const outDir = process.env.MEMORY_BANK_SCREENSHOTS_DIR ?? join(here, "..", "..", "docs", "screenshots");
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src ipc: http://ipc.localhost";
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml" };

const server = createServer(async (req, res) => {
  const path = normalize(new URL(req.url, "http://x").pathname).replace(/^\/+/, "") || "index.html";
  if (path === "favicon.ico") return void res.writeHead(204).end(); // the browser asks; Tauri does not
  try {
    const body = await readFile(join(dist, path));
    res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream", "content-security-policy": CSP });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/`;

// Runs in the page before the app: a tiny backend with a few memories.
function mockTauri() {
  const minute = 60_000;
  const base = Date.UTC(2026, 10, 28, 16, 30);
  const mem = (n, content, extra = {}) => ({
    id: `mem_${n}`, content, tags: null, source: "chat", scope: "user", orgId: "org_acme",
    createdAt: new Date(base - n * 97 * minute).toISOString(), updatedAt: "", contexts: [], ...extra,
  });
  const ctx = (snippet, conversationId, messageId) => ({
    id: `mctx_${snippet.length}`, snippet, citation: { conversationId, messageId }, origin: "active_conversation", createdAt: "",
  });
  const memories = [
    mem(1, "Production deploys happen on Tuesdays and Thursdays after 14:00 UTC.", {
      tags: ["ops", "deploys"], contexts: [ctx("we only ship prod Tue/Thu afternoons", "ses_01JD8K", "msg_4F2A")] }),
    mem(2, "Prefers pnpm over npm for new JavaScript projects.", { tags: ["tooling"] }),
    mem(3, "<img src=x onerror=alert(1)>", { tags: ["xss-test"],
      contexts: [ctx("stored verbatim, shown as text", "ses_01JD9Q", "msg_77C1")] }),
    mem(4, "The staging database is refreshed from a masked production snapshot every Sunday night.", {
      contexts: [ctx("staging gets a masked copy weekly", "ses_01JC2R", "msg_0B19"), ctx("Sunday 23:00", "ses_01JC2R", "msg_0B1C")] }),
    mem(5, "Code review: at least one approval from the owning team before merging to main.", { tags: ["process"] }),
    mem(6, "喜欢在周五下午安排团队回顾会议。", { tags: ["团队"] }),
    mem(7, "Uses 4-space indentation in Python and 2 spaces in TypeScript.", { tags: ["style", "editor"] }),
    mem(8, "The on-call rotation changes every Monday at 09:00 local time."),
  ];
  const state = {
    account: { kind: "local" }, user: { id: "usr_1", email: "alex@example.com" },
    orgs: [{ id: "org_acme", name: "Acme" }, { id: "org_beta", name: "Beta Labs" }],
    activeOrgId: "org_acme", prefs: { memoryEnabled: true, language: "en", sessionRoots: [] },
  };
  const proposals = [
    { id: "prop_1", action: "save", status: "pending", content: "Release notes are written in British English.",
      tags: ["docs", "style"], contexts: [{ snippet: "we always use British spelling in the notes", citation: { conversationId: "ses_01JE2A", messageId: "msg_19D0" }, origin: "active_conversation" }],
      memoryId: null, proposedBy: "claude-code", orgId: "org_acme", createdAt: new Date(base - 3 * minute).toISOString(),
      expiresAt: new Date(base + 7 * 1440 * minute).toISOString(), decidedAt: null },
    { id: "prop_2", action: "delete", status: "pending", content: "The on-call rotation changes every Monday at 09:00 local time.",
      tags: null, contexts: [], memoryId: "mem_8", proposedBy: "codex-mcp-client", orgId: "org_acme",
      createdAt: new Date(base - 41 * minute).toISOString(), expiresAt: new Date(base + 7 * 1440 * minute).toISOString(), decidedAt: null },
  ];
  const agent = (id, name, path, extra = {}) => ({ agent: id, displayName: name, configPath: path, detected: false,
    installed: false, entryMatches: false, problem: null, ...extra });
  const agents = {
    cli: { path: "/usr/bin/memory-bank", problem: null },
    agents: [
      agent("claude-code", "Claude Code", "/home/alex/.claude.json", { detected: true, installed: true, entryMatches: true }),
      agent("codex", "Codex CLI", "/home/alex/.codex/config.toml", { detected: true }),
      agent("opencode", "opencode", "/home/alex/.config/opencode/opencode.json"),
      agent("gemini", "Gemini CLI", "/home/alex/.gemini/settings.json", { detected: true }),
    ],
  };
  const callbacks = new Map();
  const listeners = [];
  let next = 1;
  const handlers = {
    get_state: () => state,
    set_active_org: ({ orgId }) => ((state.activeOrgId = orgId), state),
    set_prefs: (prefs) => (Object.assign(state.prefs, prefs), state),
    list_memories: () => ({ memories, nextCursor: null }),
    search_memories: ({ q }) => ({ results: memories.filter((m) => m.content.includes(q)).map((m) => ({ ...m, score: 1 })) }),
    schedule_delete: ({ id }) => ({ id, commitAt: Date.now() + 6000 }),
    undo_delete: () => ({ undone: true }),
    flush_deletes: () => null,
    list_proposals: () => ({ proposals, nextCursor: null }),
    find_session: () => { throw { code: "session_not_found", message: "not on this machine" }; },
    agent_statuses: () => agents,
    plan_agent_change: ({ agent: id, action }) => ({
      agent: id, action, configPath: "/home/alex/.codex/config.toml", change: "add", changed: true,
      diff: '--- /home/alex/.codex/config.toml\n+++ /home/alex/.codex/config.toml\n@@ -1,2 +1,6 @@\n model = "o3"\n approval_policy = "on-request"\n+\n+[mcp_servers.memory-bank]\n+command = "/usr/bin/memory-bank"\n+args = ["mcp"]\n',
    }),
    "plugin:event|listen": ({ handler }) => (listeners.push(handler), handler),
    "plugin:event|unlisten": () => null,
  };
  window.__TAURI_INTERNALS__ = {
    metadata: { currentWindow: { label: "main" }, currentWebview: { windowLabel: "main", label: "main" } },
    transformCallback: (cb) => { const id = next++; callbacks.set(id, cb); return id; },
    unregisterCallback: (id) => callbacks.delete(id),
    invoke: async (cmd, args) => {
      const handler = handlers[cmd];
      if (!handler) throw { code: "internal", message: `no mock for ${cmd}` };
      return handler(args ?? {});
    },
  };
  window.__TAURI_EVENT_PLUGIN_INTERNALS__ = { unregisterListener: () => {} };
}

const profile = await mkdtemp(join(tmpdir(), "mb-shot-"));
const problems = [];
const context = await chromium.launchPersistentContext(profile, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1100, height: 760 },
  locale: "en-US",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-sync"],
});
try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (msg) => {
    if (msg.type() === "error" || /Content Security Policy/i.test(msg.text())) problems.push(msg.text());
  });
  page.on("pageerror", (error) => problems.push(String(error)));
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
  });
  await page.addInitScript(mockTauri);
  await page.goto(url);
  await page.getByText("Production deploys happen").waitFor();
  await mkdir(outDir, { recursive: true });
  await page.screenshot({ path: join(outDir, "panel.png") });
  // axe in a real browser, where it can also judge colour contrast (jsdom cannot).
  // evaluate() runs through the DevTools protocol, which the page's CSP does not govern.
  const audit = async (label) => {
    await page.evaluate(axeSource);
    const violations = await page.evaluate(async () =>
      (await window.axe.run(document, { resultTypes: ["violations"] })).violations.map(
        (v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`,
      ),
    );
    for (const violation of violations) problems.push(`axe (${label}) ${violation}`);
  };
  await audit("list");

  // The delete flow under the same CSP: dialog, then the Undo toast.
  await page.getByRole("button", { name: "Delete memory" }).nth(1).click();
  await page.getByRole("alertdialog").waitFor();
  await page.screenshot({ path: join(outDir, "panel-delete-dialog.png") });
  await audit("dialog");
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
  await page.getByRole("button", { name: "Undo" }).waitFor();
  await page.waitForTimeout(300); // let the toast's entrance animation finish
  await audit("undo toast");
  await page.screenshot({ path: join(outDir, "panel-undo.png") });

  // The Inbox: two proposals, then the check of the first with its editable sentence.
  await page.getByRole("button", { name: "Inbox, 2 proposals waiting" }).click();
  await page.getByText("Release notes are written in British English.").waitFor();
  await page.screenshot({ path: join(outDir, "inbox.png") });
  await audit("inbox");
  await page.getByRole("button", { name: "Check and accept this proposal" }).first().click();
  await page.getByLabel("Memory", { exact: true }).waitFor();
  await page.screenshot({ path: join(outDir, "inbox-accept.png") });
  await audit("inbox accept");

  // Settings → Agents, and the review of an install.
  await page.getByRole("button", { name: "Account settings" }).click();
  await page.getByRole("button", { name: "Install in Codex CLI" }).waitFor();
  await page.getByRole("heading", { name: "Agents" }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(outDir, "agents.png") });
  await audit("agents");
  await page.getByRole("button", { name: "Install in Codex CLI" }).click();
  await page.getByRole("region", { name: "The change" }).waitFor();
  await page.screenshot({ path: join(outDir, "agents-review.png") });
  await audit("agents review");

  // The XSS memory must be text, with no element created from it.
  const injected = await page.locator("main img").count();
  if (injected !== 0) problems.push(`found ${injected} <img> elements in main`);
} finally {
  await context.close();
  server.close();
  await rm(profile, { recursive: true, force: true });
}
if (problems.length) {
  console.error(`FAILED:\n${problems.join("\n")}`);
  process.exit(1);
}
console.log(
  `saved panel.png, panel-delete-dialog.png, panel-undo.png, inbox.png, inbox-accept.png, agents.png, agents-review.png in ${outDir}; no CSP violations, no axe violations`,
);
