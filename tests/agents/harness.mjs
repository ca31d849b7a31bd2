// What the agent tests share: a home of their own for each test (every agent's config,
// our local bank), the real `memory-bank` binary, and Codex's app-server as a client.
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, "../..");
export const bin = path.resolve(process.env.MEMORY_BANK_BIN ?? path.join(root, "target/debug/memory-bank"));
export const agentsBin = path.join(here, "node_modules/.bin");
const run = promisify(execFile);
// Colour codes and spinners off, so the agents' answers read as plain text.
export const strip = (text) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");

/** A home of its own: every agent's config and our local bank live under it. */
export function scratchHome(t, extraEnv = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), "memory-bank-agents-"));
  // Retries: an agent's child process may still be finishing a write when the test ends.
  t.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  const home = path.join(dir, "home");
  const work = path.join(dir, "work"); // the folder each agent is started in
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  const env = {
    PATH: `${agentsBin}:${process.env.PATH}`,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local/share"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_STATE_HOME: path.join(home, ".local/state"),
    CODEX_HOME: path.join(home, ".codex"),
    LANG: "C.UTF-8",
    NO_COLOR: "1",
    TERM: "dumb",
    // No update checks, no telemetry, no login prompts: nothing here needs the network.
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    GEMINI_CLI_DISABLE_AUTOUPDATER: "1",
    ...extraEnv,
  };
  return { dir, home, work, env };
}

export async function sh(scratch, command, args, { timeout = 120000 } = {}) {
  const { stdout, stderr } = await run(command, args, { cwd: scratch.work, env: scratch.env, timeout, maxBuffer: 16 * 1024 * 1024 });
  return strip(stdout + stderr);
}

export const install = (scratch, agent, ...flags) => sh(scratch, bin, ["mcp", "install", "--agent", agent, ...flags]);

/** Codex's app-server on stdio: newline-delimited JSON-RPC. */
export function codexAppServer(s) {
  const child = spawn("codex", ["app-server"], { cwd: s.work, env: s.env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const pending = new Map();
  const notes = [];
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line);
    if (message.id !== undefined && pending.has(message.id)) {
      pending.get(message.id)(message);
      pending.delete(message.id);
    } else notes.push(message);
  });
  let next = 0;
  const call = (method, params) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      const timer = setTimeout(() => reject(new Error(`codex app-server: no answer to ${method} in 60 s; stderr: ${strip(stderr)}`)), 60000);
      pending.set(id, (message) => {
        clearTimeout(timer);
        if (message.error) reject(new Error(`${method}: ${JSON.stringify(message.error)}`));
        else resolve(message.result);
      });
      child.stdin.write(JSON.stringify({ id, method, params }) + "\n");
    });
  const notify = (method, params) => child.stdin.write(JSON.stringify(params ? { method, params } : { method }) + "\n");
  // Ended, and waited for: it writes into CODEX_HOME until it exits, and the scratch home
  // is removed right after.
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const close = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    return exited;
  };
  return { call, notify, notes, close };
}

