// The coding tools' own CLIs write their own session files, and `memory-bank sessions`
// reads them back. Each tool (package.json and requirements.txt, pinned) runs in a home of
// its own, with no login, against a loopback stub of its model API (stubs.mjs) that asks
// for one tool call and then answers with fixed words; a second prompt then continues the
// same session. After each turn `sessions list`, `read` and `search` (the real binary, the
// same data folder, so the second turn is an incremental refresh of the index) must show:
// the session under the tool's source and the folder it ran in, its messages exactly the
// prompts sent and the replies the stub gave, in order, the tool call and its result in
// none of them, and the replies found by search.
//   Qwen Code    `qwen --auth-type openai --yolo PROMPT`, then `--resume ID`; OPENAI_BASE_URL
//   Copilot CLI  `copilot -p PROMPT --allow-all-tools`, then `--resume=ID`; COPILOT_OFFLINE
//                with COPILOT_PROVIDER_BASE_URL (its own bring-your-own-model mode)
//   Cline        `cline auth -p openai … -b URL`, `cline task -y PROMPT`; then `cline -T ID`
//                in its terminal UI (under `script`, a pseudo-terminal), the second prompt
//                typed once it offers to resume: `task -T ID PROMPT` sends the prompt 100 ms
//                after opening the task, before the task asks for it, and waits forever
//   Amp          `amp --dangerously-allow-all -x PROMPT`, then `amp threads continue ID -x`;
//                AMP_URL → the stub, which also answers Amp's own server API
//   Aider        `aider` in a project folder in the home, the prompts typed on its standard
//                input one after the other (one Aider run is one session in its history
//                file); its history is read through `--root aider=FOLDER`
// Run: npm install --prefix tests/session-tools --no-save && npm --prefix tests/session-tools test
// Environment: MEMORY_BANK_BIN (target/debug/memory-bank); AIDER_BIN (else aider-venv.sh
// makes the venv, which needs PyPI the first time).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { here, scratchHome, sessions, strip, tool, until } from "./harness.mjs";
import { ampStub, chatCompletionsStub, textOf } from "./stubs.mjs";

const PROMPT_ONE = "Where are the deploy notes kept?";
const REPLY_ONE = "The deploy notes are in NOTES.md: run the zephyr script for staging.";
const PROMPT_TWO = "And after staging?";
const REPLY_TWO = "After staging, watch the heliotrope dashboard for ten minutes.";
// In the tool call the stub asks for, and in its result: never in a message.
const TOOL_WORD = "quokka";

/** The last user message's text in a Chat Completions or Anthropic request. */
const lastUserText = (messages) => textOf([...messages].reverse().find((m) => m.role === "user")?.content);

/**
 * The session's metadata and messages after a turn: one session, of `source`, run in
 * `workspace`, whose messages are exactly `turns` ([prompt, reply] pairs), in order.
 */
async function expectSession(s, { source, workspace, title, turns, roots = [] }) {
  const list = await sessions(s, "list", ...roots);
  assert.equal(list.total, 1, `one session: ${JSON.stringify(list)}`);
  const [session] = list.sessions;
  assert.equal(session.source, source, JSON.stringify(session));
  assert.equal(session.workspace, workspace, JSON.stringify(session));
  assert.equal(session.title, title, JSON.stringify(session));
  const expected = turns.flatMap(([prompt, reply]) => [
    { role: "user", text: prompt },
    { role: "assistant", text: reply },
  ]);
  assert.equal(session.messageCount, expected.length, JSON.stringify(session));
  const read = await sessions(s, "read", session.sessionId, "--count", "30", ...roots);
  assert.equal(read.sessionId, session.sessionId);
  assert.deepEqual(
    read.messages.map(({ index, role, text }) => ({ index, role, text })),
    expected.map((message, index) => ({ index, ...message })),
  );
  return { session, messages: read.messages };
}

/** `sessions search WORD` finds the one reply holding it, in this session. */
async function expectFound(s, word, { sessionId, source, index, roots = [] }) {
  const { hits } = await sessions(s, "search", word, ...roots);
  assert.equal(hits.length, 1, `${word}: ${JSON.stringify(hits)}`);
  assert.equal(hits[0].sessionId, sessionId);
  assert.equal(hits[0].source, source);
  assert.equal(hits[0].role, "assistant");
  assert.equal(hits[0].index, index);
  assert.ok(hits[0].snippet.includes(word), hits[0].snippet);
}

/**
 * The whole check for one tool: `first()` runs the first turn, `second(sessionId)` the
 * second; after each, what memory-bank shows. `replies` are the stub's two replies as the
 * tool keeps them (the words the model said).
 */
async function conversation(s, { source, workspace = s.work, title = PROMPT_ONE, roots = [], replies = [REPLY_ONE, REPLY_TWO], first, second, toolWordHidden = true }) {
  await first();
  const { session } = await expectSession(s, { source, workspace, title, roots, turns: [[PROMPT_ONE, replies[0]]] });
  await expectFound(s, "zephyr", { sessionId: session.sessionId, source, index: 1, roots });
  if (toolWordHidden) assert.deepEqual((await sessions(s, "search", TOOL_WORD, ...roots)).hits, [], "the tool call and its result are not messages");
  assert.ok(existsSync(path.join(s.data, "sessions-index.sqlite")), "the index the second turn refreshes");

  await second(session.sessionId);
  const turns = [[PROMPT_ONE, replies[0]], [PROMPT_TWO, replies[1]]];
  const after = await expectSession(s, { source, workspace, title, roots, turns });
  assert.equal(after.session.sessionId, session.sessionId, "the same session, continued");
  await expectFound(s, "heliotrope", { sessionId: session.sessionId, source, index: 3, roots });
  await expectFound(s, "zephyr", { sessionId: session.sessionId, source, index: 1, roots });
  if (toolWordHidden) assert.deepEqual((await sessions(s, "search", TOOL_WORD, ...roots)).hits, []);
}

/**
 * The script of an OpenAI-style agent's model: the first prompt gets a call of `tool`;
 * its result (a `tool` message) gets the first reply; the second prompt the second reply.
 * Anything else (a side request: a title, memory, a summary) gets words found nowhere.
 */
function chatScript(tool) {
  const state = { toolResults: [] };
  const script = (body) => {
    const messages = body.messages ?? [];
    const last = messages.at(-1) ?? {};
    if (last.role === "tool") {
      state.toolResults.push(textOf(last.content));
      return { text: REPLY_ONE };
    }
    const prompt = last.role === "user" ? textOf(last.content) : "";
    if (prompt.includes(PROMPT_TWO)) return { text: REPLY_TWO };
    if (prompt.includes(PROMPT_ONE)) return { tool };
    return { text: "A side answer." };
  };
  return { script, state };
}

test("Qwen Code: a session written by `qwen`, resumed with --resume", async (t) => {
  const { script, state } = chatScript({ name: "glob", input: { pattern: `${TOOL_WORD}*.md` } });
  const stub = await chatCompletionsStub(script);
  t.after(stub.close);
  const s = scratchHome(t, {
    OPENAI_BASE_URL: `${stub.url}/v1`,
    OPENAI_API_KEY: "sk-stub",
    OPENAI_MODEL: "stub-model",
  });
  // Usage statistics off, as a person turns them off (Settings → Privacy), so nothing
  // leaves the machine (else it posts them to Alibaba Cloud's RUM service).
  mkdirSync(path.join(s.home, ".qwen"));
  writeFileSync(path.join(s.home, ".qwen/settings.json"), JSON.stringify({ privacy: { usageStatisticsEnabled: false } }));
  const qwen = (...args) => tool(s, "qwen", ["--auth-type", "openai", "--yolo", ...args]);
  await conversation(s, {
    source: "qwen-code",
    first: async () => assert.match(await qwen(PROMPT_ONE), new RegExp(REPLY_ONE)),
    second: async (id) => assert.match(await qwen("--resume", id, PROMPT_TWO), new RegExp(REPLY_TWO)),
  });
  assert.equal(state.toolResults.length, 1, "the glob tool ran once");
  assert.match(state.toolResults[0], new RegExp(TOOL_WORD));
});

test("GitHub Copilot CLI: a session written by `copilot -p`, resumed with --resume", async (t) => {
  const { script, state } = chatScript({ name: "bash", input: { command: `echo ${TOOL_WORD}`, description: "Say the word" } });
  const stub = await chatCompletionsStub(script);
  t.after(stub.close);
  const s = scratchHome(t, {
    COPILOT_OFFLINE: "true",
    COPILOT_PROVIDER_BASE_URL: `${stub.url}/v1`,
    COPILOT_PROVIDER_API_KEY: "stub",
    COPILOT_MODEL: "stub-model",
    COPILOT_AUTO_UPDATE: "false",
  });
  const copilot = (...args) => tool(s, "copilot", [...args, "--allow-all-tools"]);
  await conversation(s, {
    source: "copilot-cli",
    first: async () => assert.match(await copilot("-p", PROMPT_ONE), new RegExp(REPLY_ONE)),
    second: async (id) => {
      const said = await copilot(`--resume=${id}`, "-p", PROMPT_TWO);
      assert.match(said, new RegExp(REPLY_TWO));
      assert.match(said, new RegExp(`--resume=${id}`));
    },
  });
  assert.equal(state.toolResults.length, 1, "the bash tool ran once");
  assert.match(state.toolResults[0], new RegExp(TOOL_WORD));
});

test("Cline: a task written by `cline task`, resumed in its terminal UI", async (t) => {
  // Cline 2.x speaks to an OpenAI-compatible model in its XML tool format, in the text.
  const state = { toolResults: [] };
  const complete = (text) => ({ text: `<attempt_completion>\n<result>\n${text}\n</result>\n</attempt_completion>` });
  const stub = await chatCompletionsStub((body) => {
    const prompt = lastUserText(body.messages ?? []);
    if (prompt.includes(PROMPT_TWO)) return complete(REPLY_TWO);
    if (prompt.startsWith("[execute_command for")) {
      state.toolResults.push(prompt);
      return complete(REPLY_ONE);
    }
    if (prompt.includes(PROMPT_ONE)) {
      return { text: `<execute_command>\n<command>echo ${TOOL_WORD}</command>\n<requires_approval>false</requires_approval>\n</execute_command>` };
    }
    return { text: "A side answer." };
  });
  t.after(stub.close);
  const s = scratchHome(t, { CLINE_NO_AUTO_UPDATE: "1" });
  // Telemetry off, as a person turns it off, so nothing leaves the machine (else it posts
  // to Cline's PostHog and OpenTelemetry hosts).
  const data = path.join(s.home, ".cline/data");
  mkdirSync(data, { recursive: true });
  writeFileSync(path.join(data, "globalState.json"), JSON.stringify({ telemetrySetting: "disabled" }));
  await tool(s, "cline", ["auth", "-p", "openai", "-k", "stub", "-m", "stub-model", "-b", `${stub.url}/v1`]);

  const uiMessages = (id) => {
    try {
      return JSON.parse(readFileSync(path.join(data, "tasks", id, "ui_messages.json"), "utf8"));
    } catch {
      return []; // not written yet, or being rewritten
    }
  };
  await conversation(s, {
    source: "cline",
    first: async () => assert.match(await tool(s, "cline", ["task", "-y", PROMPT_ONE]), new RegExp(REPLY_ONE)),
    second: async (id) => {
      assert.deepEqual(readdirSync(path.join(data, "tasks")), [id], "the task's folder is named by the session id");
      // A terminal of 120 × 40 for the UI; `script` gives it one and passes our keys on.
      const command = `stty cols 120 rows 40; exec cline -T ${id} --tui`;
      await tool(s, "script", ["-qfec", command, "/dev/null"], {
        env: { ...s.env, TERM: "xterm-256color" },
        stdin: "pipe",
        onStart: async (child, output) => {
          try {
            await until(() => strip(output.text).includes("Resume Task"), "Cline to offer to resume the task");
            // Keys typed while the UI is still drawing are lost: typed once it has been
            // still for a second, and Enter only once the prompt shows in its input box.
            await until(() => Date.now() - output.at > 1000, "Cline's terminal UI to settle");
            const shown = output.text.length;
            child.stdin.write(PROMPT_TWO);
            await until(() => strip(output.text.slice(shown)).includes(PROMPT_TWO), "the prompt to show in Cline's input box", { timeout: 10000 });
            const typed = output.text.length;
            child.stdin.write("\r");
            // Done when Cline offers a new task (the reply is complete) and has saved the reply.
            await until(() => strip(output.text.slice(typed)).includes("Start New Task"), "Cline to complete the second turn");
            await until(() => uiMessages(id).some((m) => m.say === "completion_result" && m.text === REPLY_TWO && !m.partial), "Cline to save the second reply");
          } finally {
            child.stdin.write("\x03"); // Ctrl+C: Cline saves and exits
          }
        },
      });
    },
  });
  assert.equal(state.toolResults.length, 1, "the command ran once");
  assert.match(state.toolResults[0], new RegExp(TOOL_WORD));
});

test("Amp: a thread written by `amp -x`, continued with `amp threads continue`", async (t) => {
  const state = { toolResults: [] };
  const stub = await ampStub(
    (body) => {
      const last = (body.messages ?? []).at(-1) ?? {};
      const result = Array.isArray(last.content) ? last.content.find((block) => block.type === "tool_result") : undefined;
      if (result) {
        state.toolResults.push(textOf(result.content));
        return { text: REPLY_ONE };
      }
      const prompt = textOf(last.content);
      if (prompt.includes(PROMPT_TWO)) return { text: REPLY_TWO };
      if (prompt.includes(PROMPT_ONE)) return { tool: { name: "Bash", input: { cmd: `echo ${TOOL_WORD}` } } };
      return { text: "A side answer." };
    },
    { title: "Deploy notes" },
  );
  t.after(stub.close);
  const s = scratchHome(t, { AMP_URL: stub.url, AMP_API_KEY: "sgamp_stub", AMP_SKIP_UPDATE_CHECK: "1" });
  await conversation(s, {
    source: "amp",
    title: "Deploy notes", // the title Amp asked its model for
    first: async () => assert.match(await tool(s, "amp", ["--dangerously-allow-all", "-x", PROMPT_ONE]), new RegExp(REPLY_ONE)),
    second: async (id) => {
      assert.ok(existsSync(path.join(s.home, ".local/share/amp/threads", `${id}.json`)), "the thread's file is named by the session id");
      assert.match(await tool(s, "amp", ["threads", "continue", id, "-x", PROMPT_TWO]), new RegExp(REPLY_TWO));
    },
  });
  assert.equal(state.toolResults.length, 1, "the Bash tool ran once");
  assert.match(state.toolResults[0], new RegExp(TOOL_WORD));
});

test("Aider: a chat written by `aider` in a project, a second prompt in the same run", async (t) => {
  const aider = process.env.AIDER_BIN || execFileSync("bash", [path.join(here, "aider-venv.sh")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
  // Aider edits files by the model's reply (here a whole file, its "whole" edit format for
  // an unknown model): its "Applied edit" is no message, the reply holding the file is.
  const notes = "deploy: run ./deploy.sh staging\n";
  const edited = "deploy: run ./deploy.sh staging\nstaging: run the zephyr script\n";
  const replyOne = `${REPLY_ONE}\n\nNOTES.md\n\`\`\`\n${edited}\`\`\``;
  const stub = await chatCompletionsStub((body) => {
    const prompt = lastUserText(body.messages ?? []);
    if (prompt.includes(PROMPT_TWO)) return { text: REPLY_TWO };
    if (prompt.includes(PROMPT_ONE)) return { text: replyOne };
    return { text: "A side answer." };
  });
  t.after(stub.close);
  // Its price list, which it otherwise downloads: Aider's own file for models it does not know.
  const s = scratchHome(t, { LITELLM_LOCAL_MODEL_COST_MAP: "True" });
  const metadata = { max_input_tokens: 128000, max_output_tokens: 4096, input_cost_per_token: 0, output_cost_per_token: 0, litellm_provider: "openai", mode: "chat" };
  writeFileSync(path.join(s.home, ".aider.model.metadata.json"), JSON.stringify({ "openai/stub": metadata }));
  const projects = path.join(s.home, "code");
  const project = path.join(projects, "shop");
  mkdirSync(project, { recursive: true });
  writeFileSync(path.join(project, "NOTES.md"), notes);
  const history = path.join(project, ".aider.chat.history.md");
  const historyText = () => (existsSync(history) ? readFileSync(history, "utf8") : "");
  const roots = ["--root", `aider=${projects}`];

  const args = ["--openai-api-base", `${stub.url}/v1`, "--openai-api-key", "sk-stub-key", "--model", "openai/stub", "--no-git", "--yes-always"];
  args.push("--analytics-disable", "--no-check-update", "--no-show-model-warnings", "--no-show-release-notes", "--no-pretty", "NOTES.md");
  let child;
  let exited;
  const running = tool(s, aider, args, { cwd: project, stdin: "pipe", timeout: 150000, onStart: (c) => (child = c) });
  running.then(
    () => (exited = new Error("Aider exited before its input ended")),
    (error) => (exited = error),
  );
  // Aider writes a reply, then its token report: a prompt is answered once its report is in.
  const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const turn = (prompt, reply) => {
    child.stdin.write(`${prompt}\n`);
    const answered = new RegExp(`#### ${escaped(prompt)} {2}\\n\\n${escaped(reply)}\\n\\n> Tokens: [^\\n]* {2}\\n`);
    return until(() => {
      if (exited) throw exited;
      return answered.test(historyText());
    }, `Aider to answer "${prompt}"`);
  };
  try {
    await conversation(s, {
      source: "aider",
      workspace: project,
      roots,
      replies: [replyOne, REPLY_TWO],
      toolWordHidden: false, // Aider has no tool calls of the model's: its edit is in the reply
      first: async () => {
        await turn(PROMPT_ONE, replyOne);
        assert.match(historyText(), /\n> Applied edit to NOTES\.md {2}\n/);
        assert.equal(readFileSync(path.join(project, "NOTES.md"), "utf8"), edited, "Aider applied the edit");
      },
      second: () => turn(PROMPT_TWO, REPLY_TWO),
    });
  } catch (error) {
    throw new Error(`${error.message}\n--- ${history}:\n${historyText()}`, { cause: error });
  } finally {
    child.stdin.end(); // end of input: Aider exits
  }
  await running;
});
