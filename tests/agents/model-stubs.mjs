// The agents' model APIs, stubbed on loopback: the one boundary these tests fake. Each
// stub answers a turn with a fixed reply and records every request, so a test can read
// exactly what the agent sent its model (and so whether our recall hook's context is in it).
// Only what each CLI calls in a `-p`/`exec` turn is answered; anything else is a 404.
// tests/session-tools builds its stubs on startStub, sse and notFound.
import http from "node:http";

export const REPLY = "Stub model: use the deploy script.";

/** A loopback HTTP server answering with `handle(req, body, res)`; every request recorded. */
export async function startStub(handle) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      requests.push({ method: req.method, url: req.url, raw, body });
      handle(req, body, res);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url, requests, close };
}

export function sse(res, events, { named = true } = {}) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [event, data] of events) {
    if (named) res.write(`event: ${event}\n`);
    res.write(`data: ${JSON.stringify(data)}\n\n`);
  }
  res.end();
}

export function notFound(res, req) {
  res.writeHead(404, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { message: `stub: no ${req.method} ${req.url}` } }));
}

/** Anthropic's Messages API (Claude Code: ANTHROPIC_BASE_URL). */
export function anthropicStub() {
  let n = 0;
  return startStub((req, body, res) => {
    if (req.method !== "POST" || req.url.split("?")[0] !== "/v1/messages") return notFound(res, req);
    const id = `msg_stub_${++n}`;
    const model = body?.model ?? "claude-stub";
    const usage = { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    sse(res, [
      ["message_start", { type: "message_start", message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage } }],
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: REPLY } }],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 10 } }],
      ["message_stop", { type: "message_stop" }],
    ]);
  });
}

/** The Gemini API's streamGenerateContent (Gemini CLI: GOOGLE_GEMINI_BASE_URL). */
export function geminiStub() {
  return startStub((req, _body, res) => {
    if (req.method !== "POST" || !req.url.includes(":streamGenerateContent")) return notFound(res, req);
    const chunk = {
      candidates: [{ content: { role: "model", parts: [{ text: REPLY }] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 },
    };
    sse(res, [["", chunk]], { named: false });
  });
}

/** OpenAI's Responses API (Codex: a custom model provider's base_url). */
export function responsesStub() {
  let n = 0;
  return startStub((req, body, res) => {
    if (req.method !== "POST" || req.url.split("?")[0] !== "/v1/responses") return notFound(res, req);
    const id = `resp_stub_${++n}`;
    const itemId = `msg_stub_${n}`;
    const base = { id, object: "response", created_at: Math.floor(Date.now() / 1000), model: body?.model ?? "stub-model" };
    const item = { type: "message", id: itemId, status: "completed", role: "assistant", content: [{ type: "output_text", text: REPLY, annotations: [] }] };
    const usage = { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 110 };
    const at = { item_id: itemId, output_index: 0, content_index: 0 };
    sse(res, [
      ["response.created", { type: "response.created", sequence_number: 0, response: { ...base, status: "in_progress", output: [] } }],
      ["response.output_item.added", { type: "response.output_item.added", sequence_number: 1, output_index: 0, item: { ...item, status: "in_progress", content: [] } }],
      ["response.content_part.added", { type: "response.content_part.added", sequence_number: 2, ...at, part: { type: "output_text", text: "", annotations: [] } }],
      ["response.output_text.delta", { type: "response.output_text.delta", sequence_number: 3, ...at, delta: REPLY }],
      ["response.output_text.done", { type: "response.output_text.done", sequence_number: 4, ...at, text: REPLY }],
      ["response.content_part.done", { type: "response.content_part.done", sequence_number: 5, ...at, part: { type: "output_text", text: REPLY, annotations: [] } }],
      ["response.output_item.done", { type: "response.output_item.done", sequence_number: 6, output_index: 0, item }],
      ["response.completed", { type: "response.completed", sequence_number: 7, response: { ...base, status: "completed", output: [item], usage } }],
    ]);
  });
}
