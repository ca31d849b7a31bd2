// The coding tools' model APIs, stubbed on loopback (built on tests/agents/model-stubs.mjs):
// each request is answered by a script the test gives, `(body, request) => answer`, and
// recorded, so a test knows exactly which words the model "said" and which tool calls it
// asked for. An answer is `{ text }`, `{ tool: { name, input } }` or both (text first).
import { notFound, sse, startStub } from "../agents/model-stubs.mjs";

/** The text of a chat message's or Anthropic message's content (a string or parts). */
export function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (part?.type === "text" || part?.type === undefined ? part?.text ?? "" : "")).join("");
  return "";
}

/** OpenAI's Chat Completions API (Qwen Code, Copilot CLI, Cline, Aider): streamed or not. */
export function chatCompletionsStub(script) {
  let n = 0;
  return startStub((req, body, res) => {
    const url = req.url.split("?")[0];
    if (req.method === "GET" && url.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ object: "list", data: [{ id: "stub-model", object: "model", created: 0, owned_by: "stub" }] }));
    }
    if (req.method !== "POST" || !url.endsWith("/chat/completions")) return notFound(res, req);
    const answer = script(body ?? {}, req);
    const id = `chatcmpl-stub-${++n}`;
    const base = { id, created: Math.floor(Date.now() / 1000), model: body?.model ?? "stub-model" };
    const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
    const calls = answer.tool
      ? [{ id: `call_stub_${n}`, type: "function", function: { name: answer.tool.name, arguments: JSON.stringify(answer.tool.input) } }]
      : undefined;
    const finish = calls ? "tool_calls" : "stop";
    if (!body?.stream) {
      const message = { role: "assistant", content: answer.text ?? null, ...(calls ? { tool_calls: calls } : {}) };
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ ...base, object: "chat.completion", choices: [{ index: 0, message, finish_reason: finish }], usage }));
    }
    const chunk = (delta, finish_reason = null) => ({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason }] });
    const events = [chunk({ role: "assistant", content: "" })];
    if (answer.text) {
      // In two pieces, as a model streams: the tool must join them.
      const half = Math.ceil(answer.text.length / 2);
      events.push(chunk({ content: answer.text.slice(0, half) }), chunk({ content: answer.text.slice(half) }));
    }
    if (calls) {
      const [call] = calls;
      events.push(
        chunk({ tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: call.function.arguments } }] }),
      );
    }
    events.push(chunk({}, finish), { ...base, object: "chat.completion.chunk", choices: [], usage });
    // Unnamed events ending in [DONE], as OpenAI streams them.
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const data of events) res.write(`data: ${JSON.stringify(data)}\n\n`);
    res.end("data: [DONE]\n\n");
  });
}

/** A value for each property of a JSON schema: what a forced tool call must carry. */
function fill(schema) {
  switch (schema?.type) {
    case "array":
      return [];
    case "boolean":
      return false;
    case "number":
    case "integer":
      return 1;
    case "object":
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, value]) => [key, fill(value)]));
    default:
      return schema?.enum?.[0] ?? "stub";
  }
}

/**
 * Amp's server (AMP_URL): its internal JSON-RPC (`POST /api/internal?<method>`, answered
 * `{ok: true, result}`: a signed-in user for `getUserInfo`, `{}` otherwise) and the
 * Anthropic Messages API it proxies (`/api/provider/anthropic/v1/messages`), streamed. A
 * request that forces a tool gets that tool's call, filled from its schema (`set_title`,
 * the thread's title, gets `title`); every other request is answered by the script.
 */
export function ampStub(script, { title = "Stub title" } = {}) {
  let n = 0;
  const user = { id: "user-stub", email: "ada@example.com", username: "ada", displayName: "Ada", avatarURL: null, siteAdmin: false, features: [], team: null, paid: true, freeTierEnabled: false };
  return startStub((req, body, res) => {
    const [route, method] = req.url.split("?");
    if (req.method === "POST" && route === "/api/internal") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ ok: true, result: method === "getUserInfo" ? user : {} }));
    }
    if (req.method !== "POST" || route !== "/api/provider/anthropic/v1/messages") return notFound(res, req);
    const forced = body?.tool_choice?.type === "tool" ? body.tool_choice.name : undefined;
    let answer;
    if (forced) {
      const tool = (body.tools ?? []).find((t) => t.name === forced);
      answer = { tool: { name: forced, input: forced === "set_title" ? { title } : fill(tool?.input_schema) } };
    } else answer = script(body ?? {}, req);
    const id = `msg_stub_${++n}`;
    const blocks = [];
    if (answer.text) blocks.push({ type: "text", text: answer.text });
    if (answer.tool) blocks.push({ type: "tool_use", id: `toolu_stub_${n}`, name: answer.tool.name, input: answer.tool.input });
    const stop = answer.tool ? "tool_use" : "end_turn";
    const usage = { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const message = { id, type: "message", role: "assistant", model: body?.model ?? "claude-stub", content: blocks, stop_reason: stop, stop_sequence: null, usage };
    if (!body?.stream) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(message));
    }
    const events = [["message_start", { type: "message_start", message: { ...message, content: [], stop_reason: null } }]];
    blocks.forEach((block, index) => {
      if (block.type === "text") {
        events.push(
          ["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }],
          ["content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } }],
        );
      } else {
        events.push(
          ["content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } }],
          ["content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } }],
        );
      }
      events.push(["content_block_stop", { type: "content_block_stop", index }]);
    });
    events.push(
      ["message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 10 } }],
      ["message_stop", { type: "message_stop" }],
    );
    sse(res, events);
  });
}
