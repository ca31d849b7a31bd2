// What the session-tool tests share: a home of their own for each tool (its config, its
// sessions, our index), each tool's CLI run bounded in that home, and `memory-bank sessions`
// read back with it.
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { bin, strip } from "../agents/harness.mjs";

export { bin, strip };
export const here = path.dirname(fileURLToPath(import.meta.url));
export const toolsBin = path.join(here, "node_modules/.bin");
const run = promisify(execFile);

/**
 * A home of its own (HOME, the XDG folders under it), a folder the tool is started in
 * (`work`, outside the home), and our data folder with a key file (no OS keyring here).
 * The environment is built from nothing but PATH, so no variable of the machine's (an
 * API key, a tool's home) reaches a tool.
 */
export function scratchHome(t, extraEnv = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), "memory-bank-session-tools-"));
  // SESSION_TOOLS_KEEP=1 keeps it, to look at what the tool wrote.
  if (process.env.SESSION_TOOLS_KEEP) t.diagnostic(`kept: ${dir}`);
  // Retries: a tool's child process may still be finishing a write when the test ends.
  else t.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  const home = path.join(dir, "home");
  const work = path.join(dir, "work");
  const data = path.join(dir, "memory-bank");
  for (const folder of [home, work, data]) mkdirSync(folder, { recursive: true });
  const keyFile = path.join(dir, "archive.key");
  writeFileSync(keyFile, randomBytes(32).toString("hex") + "\n", { mode: 0o600 });
  const env = {
    PATH: `${toolsBin}:${process.env.PATH}`,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local/share"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_STATE_HOME: path.join(home, ".local/state"),
    LANG: "C.UTF-8",
    NO_COLOR: "1",
    TERM: "dumb",
    ...extraEnv,
  };
  const mbEnv = { PATH: process.env.PATH, HOME: home, LANG: "C.UTF-8", MEMORY_BANK_DATA_DIR: data, MEMORY_BANK_DB_KEY_FILE: keyFile };
  return { dir, home, work, data, env, mbEnv };
}

/**
 * Runs a tool's CLI in the scratch home, stdin closed (or a pipe, `stdin: "pipe"`, for
 * `onStart(child, output)` to type into), bounded; its whole process group is ended
 * after, so nothing it started outlives the test. Resolves to what it printed; fails on a
 * non-zero exit or when `onStart` fails, with what it printed.
 */
export function tool(s, command, args, { cwd = s.work, env = s.env, timeout = 90000, stdin = "ignore", onStart } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: [stdin, "pipe", "pipe"], detached: true });
    const output = { text: "", at: Date.now() }; // what it printed, and when it last did
    const take = (chunk) => {
      output.text += chunk;
      output.at = Date.now();
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    const end = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    };
    let timedOut = false;
    let failed;
    const timer = setTimeout(() => {
      timedOut = true;
      end("SIGKILL");
    }, timeout);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      end("SIGKILL"); // helpers it started
      const said = strip(output.text);
      if (failed) reject(new Error(`${failed.message}\n${command} printed:\n${said}`, { cause: failed }));
      else if (timedOut) reject(new Error(`${command} ${args.join(" ")}: still running after ${timeout / 1000} s; it printed:\n${said}`));
      else if (code !== 0) reject(new Error(`${command} ${args.join(" ")}: exit ${code ?? signal}; it printed:\n${said}`));
      else resolve(said);
    });
    // What drives the tool while it runs (keys typed, say); if it fails, the tool is ended.
    Promise.resolve(onStart?.(child, output)).catch((error) => {
      failed = error;
      end("SIGKILL");
    });
  });
}

/** Polls `ready()` every 100 ms until it is true, for at most `timeout` ms. */
export async function until(ready, what, { timeout = 60000 } = {}) {
  const started = Date.now();
  for (;;) {
    if (await ready()) return;
    if (Date.now() - started > timeout) throw new Error(`gave up waiting for ${what} after ${timeout / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `memory-bank sessions ARGS --json` with the scratch home and data folder: its answer. */
export async function sessions(s, ...args) {
  const { stdout } = await run(bin, ["sessions", ...args, "--json"], { env: s.mbEnv, timeout: 60000, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout);
}
