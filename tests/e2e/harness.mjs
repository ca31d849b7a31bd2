// Test harness: a real memory service (the `memory-bank` binary on loopback, SQLite in a
// temp folder), seeded through the CLI, and the desktop app in a real window driven by
// tauri-driver + WebKitWebDriver. The app is pointed at the service with the
// MEMORY_BANK_URL/TOKEN/ORG variables, and at a temp home of its own (HOME and every
// session tool's folder variable), so it never reads the real agent history.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { remote } from "webdriverio";

export const root = path.resolve(import.meta.dirname, "../..");
const cli = process.env.MEMORY_BANK_BIN ?? path.join(root, "target/debug/memory-bank");
export const appBinary = process.env.MEMORY_BANK_APP ?? path.join(root, "target/debug/memory-bank-app");

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";
/** A canonical `mem_…` id (a ULID at `ms`, `n` as its random part), for export files. */
export function memoryId(ms, n) {
  let time = "";
  for (let i = 0; i < 10; i++, ms = Math.floor(ms / 32)) time = CROCKFORD[ms % 32] + time;
  let rest = "";
  for (let i = 0; i < 16; i++, n = Math.floor(n / 32)) rest = CROCKFORD[n % 32] + rest;
  return `mem_${time}${rest}`;
}

export class Harness {
  /** `beforeApp(harness)` runs once the temp home exists, before the driver starts. */
  async start({ beforeApp, appEnv = {} } = {}) {
    this.dir = mkdtempSync(path.join(tmpdir(), "memory-bank-e2e-"));
    // The app's home: where it looks for Claude Code, Codex, opencode and Gemini CLI sessions.
    this.home = path.join(this.dir, "home");
    this.homeEnv = {
      HOME: this.home,
      CLAUDE_CONFIG_DIR: path.join(this.home, ".claude"),
      CODEX_HOME: path.join(this.home, ".codex"),
      XDG_DATA_HOME: path.join(this.home, ".local/share"),
      // Where xdg-open finds the default browser (fakeBrowser), never the real one's.
      XDG_CONFIG_HOME: path.join(this.home, ".config"),
      GEMINI_CLI_HOME: this.home,
    };
    mkdirSync(this.home, { recursive: true });
    await beforeApp?.(this);
    this.dbEnv = { ...process.env, MEMORY_BANK_DATABASE_URL: `sqlite://${this.dir}/service.db` };
    const admin = (...args) => this.admin(...args);
    const user = admin("user", "add", "e2e@example.com");
    this.user = user;
    this.org = admin("org", "add", "E2E");
    admin("member", "add", this.org, user);
    this.token = admin("token", "issue", user);
    this.url = await this.#serve();
    this.clientEnv = { ...process.env, MEMORY_BANK_URL: this.url, MEMORY_BANK_TOKEN: this.token, MEMORY_BANK_ORG: this.org };
    // The app's own log (and the drivers') goes to target/e2e/app.log for post-mortems.
    mkdirSync(path.join(root, "target/e2e"), { recursive: true });
    const log = openSync(path.join(root, "target/e2e/app.log"), "w");
    this.driver = await startDriver(
      {
        ...this.clientEnv,
        ...this.homeEnv,
        MEMORY_BANK_DATA_DIR: path.join(this.dir, "app"),
        MEMORY_BANK_LOG: "info",
        LANG: "en_US.UTF-8",
        LANGUAGE: "en",
        ...appEnv,
      },
      log,
    );
    this.driverPort = this.driver.port;
  }

  /** Stops the memory service (the app keeps its URL: "the server is down"). */
  async stopService() {
    const exited = new Promise((resolve) => this.service.once("exit", resolve));
    this.service.kill("SIGTERM");
    await exited;
  }

  /** Starts the memory service again on the same address, over the same database. */
  async restartService() {
    const url = await this.#serve(new URL(this.url).host);
    assert.equal(url, this.url);
  }

  #serve(listen = "127.0.0.1:0") {
    this.service = spawn(cli, ["serve", "--listen", listen], { env: this.dbEnv, stdio: ["ignore", "ignore", "pipe"] });
    return new Promise((resolve, reject) => {
      let seen = "";
      this.service.stderr.on("data", (chunk) => {
        seen += chunk;
        // Up to the space after the address: stderr may arrive split anywhere, and a
        // chunk ending in "http://127" once gave the clients the host 0.0.0.127.
        const match = /serving (http:\/\/[\d.:]+) /.exec(seen);
        if (match) resolve(match[1]);
      });
      this.service.on("exit", (code) => reject(new Error(`memory-bank serve exited ${code}: ${seen}`)));
    });
  }

  /** `memory-bank admin …` on the service's database; its output, trimmed. */
  admin(...args) {
    return execFileSync(cli, ["admin", ...args], { env: this.dbEnv }).toString().trim();
  }

  /** A new agent token of the e2e user: it may search, list and propose, never confirm. */
  agentToken() {
    return this.admin("token", "issue", this.user, "--agent");
  }

  /** `fetch` on the service as `token` in the e2e org; the status and the JSON body. */
  async api(method, route, token, body) {
    const response = await fetch(`${this.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "x-org-id": this.org, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: await response.json() };
  }

  /** Saves a memory through the CLI (a client of the real service). */
  save(content, ...flags) {
    return execFileSync(cli, ["memory", "save", content, ...flags], { env: this.clientEnv }).toString();
  }

  /** What the server holds now, newest first. */
  contents() {
    return this.memories().map((memory) => memory.content);
  }

  /** How many memories the server holds (one export request, not a page walk). */
  memoryCount() {
    const out = execFileSync(cli, ["memory", "export"], { env: this.clientEnv, maxBuffer: 256 * 1024 * 1024 }).toString();
    return out.split("\n").filter(Boolean).length;
  }

  /** The memories on the server now (the CLI's JSON), newest first. */
  memories() {
    const out = execFileSync(cli, ["memory", "list", "--all", "--json"], { env: this.clientEnv }).toString();
    return out.split("\n").filter(Boolean).map((line) => JSON.parse(line));
  }

  /**
   * Writes a Claude Code session where the app's home keeps them:
   * `$CLAUDE_CONFIG_DIR/projects/<project>/<sessionId>.jsonl`, one JSON record per line.
   */
  writeClaudeSession(project, sessionId, records) {
    const folder = path.join(this.homeEnv.CLAUDE_CONFIG_DIR, "projects", project);
    mkdirSync(folder, { recursive: true });
    const file = path.join(folder, `${sessionId}.jsonl`);
    writeFileSync(file, records.map((record) => JSON.stringify(record)).join("\n") + "\n");
    return file;
  }

  /**
   * Makes a stand-in the default web browser and mail client of the app's home (an XDG
   * `mimeapps.list` entry and its `.desktop` file, which `xdg-open` follows as it does on a
   * desktop): it only writes each URL it is asked to open to `browser-opened.txt`. Returns
   * a function reading those URLs. Needs `XDG_CONFIG_HOME` at `$HOME/.config` (start()
   * sets it).
   */
  fakeBrowser() {
    const opened = path.join(this.dir, "browser-opened.txt");
    const script = path.join(this.dir, "fake-browser.sh");
    writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`, { mode: 0o755 });
    const applications = path.join(this.homeEnv.XDG_DATA_HOME, "applications");
    mkdirSync(applications, { recursive: true });
    writeFileSync(path.join(applications, "e2e-browser.desktop"), `[Desktop Entry]\nType=Application\nName=E2E browser\nExec=${script} %u\n`);
    mkdirSync(path.join(this.home, ".config"), { recursive: true });
    const handlers = ["http", "https", "mailto"].map((scheme) => `x-scheme-handler/${scheme}=e2e-browser.desktop`);
    writeFileSync(path.join(this.home, ".config", "mimeapps.list"), `[Default Applications]\n${handlers.join("\n")}\n`);
    return () => (existsSync(opened) ? readFileSync(opened, "utf8").split("\n").filter(Boolean) : []);
  }

  async openApp() {
    return remote({
      hostname: "127.0.0.1",
      port: this.driverPort,
      logLevel: "error",
      capabilities: {
        browserName: "wry",
        "tauri:options": { application: appBinary },
        // webdriverio 9 would ask for BiDi, which WebKitWebDriver does not offer.
        "wdio:enforceWebDriverClassic": true,
      },
    });
  }

  /** Runs `body` with the app's window open; a failure leaves `target/e2e/<name>-failed.png`. */
  async withApp(name, body) {
    const app = await this.openApp();
    try {
      await body(app);
    } catch (err) {
      await screenshot(app, path.join(root, "target/e2e", `${name}-failed.png`)).catch(() => {});
      throw err;
    } finally {
      await app.deleteSession();
    }
  }

  async stop() {
    this.driver?.kill("SIGTERM"); // SIGTERM lets tauri-driver stop WebKitWebDriver too
    this.service?.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** tauri-driver on ports of its own. One that cannot listen ("can not listen to address")
 * exits at once, so that is seen and another pair tried, rather than waited on for 20 s. */
async function startDriver(env, log) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    let nativePort = await freePort();
    while (nativePort === port) nativePort = await freePort();
    const driver = spawn("tauri-driver", ["--port", String(port), "--native-port", String(nativePort)], { env, stdio: ["ignore", log, log] });
    driver.port = port;
    const exited = () => driver.exitCode !== null || driver.signalCode !== null;
    await waitFor(async () => exited() || (await fetch(`http://127.0.0.1:${port}/status`).catch(() => null))?.ok, 20000, "tauri-driver");
    if (!exited()) return driver;
    if (attempt === 3) throw new Error(`tauri-driver exited ${attempt} times before listening; see target/e2e/app.log`);
  }
}

/** A port nobody listens on, below the kernel's ephemeral range (32768 and up on Linux): an
 * outgoing connection's local port is drawn from that range, and can take a port picked
 * from it between our check and tauri-driver's listen. */
async function freePort() {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    const free = await new Promise((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

export async function waitFor(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Saves a screenshot of the window to `file` once WebKit has painted (two frames). It
 * reads the pixels from the X server: WebDriver's screenshot never answers when WebKit's
 * compositing is off, which is the app's default without a GPU (as under Xvfb). */
export async function screenshot(app, file) {
  await app.executeAsync((done) => requestAnimationFrame(() => requestAnimationFrame(() => done())));
  mkdirSync(path.dirname(file), { recursive: true });
  execFileSync("/usr/bin/python3", [path.join(import.meta.dirname, "screenshot-window.py"), "Memory Bank", file]);
}

/** A Claude Code session record: a message of the person (`minutesAgo` before now). */
export function claudeUser(sessionId, cwd, uuid, text, minutesAgo) {
  return { type: "user", uuid, sessionId, cwd, timestamp: minutesBefore(minutesAgo), message: { role: "user", content: text } };
}

/** A Claude Code session record: a text message of the agent. */
export function claudeAssistant(sessionId, cwd, uuid, text, minutesAgo) {
  return {
    type: "assistant",
    uuid,
    sessionId,
    cwd,
    timestamp: minutesBefore(minutesAgo),
    message: { id: `msg_${uuid.replaceAll("-", "")}`, type: "message", role: "assistant", content: [{ type: "text", text }] },
  };
}

const minutesBefore = (minutes) => new Date(Date.now() - minutes * 60_000).toISOString();

/** The row whose title is exactly `content`. */
export function rowXPath(content) {
  return `//article[contains(@class,'row')][.//p[contains(@class,'row-title')][normalize-space()=${xpathString(content)}]]`;
}

export function xpathString(text) {
  if (!text.includes("'")) return `'${text}'`;
  return `concat('${text.split("'").join(`', "'", '`)}')`;
}

/** Confirms deleting the row titled `content` in the app. */
export async function deleteRow(app, content) {
  const button = await app.$(`${rowXPath(content)}//button[@aria-label='Delete memory']`);
  await button.waitForClickable({ timeout: 10000 });
  await button.click();
  const confirm = await app.$("//*[@role='alertdialog']//button[contains(@class,'button-danger-solid')]");
  await confirm.waitForClickable({ timeout: 5000 });
  await confirm.click();
  await app.$(rowXPath(content)).waitForExist({ reverse: true, timeout: 3000 });
}
