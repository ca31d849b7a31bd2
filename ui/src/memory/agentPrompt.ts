// The instructions "Copy prompt" puts on the clipboard for an agent that has Memory Bank's
// MCP tools (Settings → Agents → Install). It follows the UI language, so the agent also
// answers in it; tool names, arguments and statuses stay as the tools spell them, and a
// test checks that both versions name every tool and status the rules rely on.
import type { Language } from "../ipc";

const EN = `## Memory Bank
You have Memory Bank's MCP tools (server "memory-bank"). Memory Bank keeps short facts the user confirmed, and can look up the user's past sessions of Claude Code, Codex, opencode and Gemini CLI on this computer.

Searching memories:
- Call search_memories only when the user asks you to recall or look something up; never on your own. Use their words as the query, keep limit at 10 or less, and show only the relevant results. An empty result means nothing is saved about it: say so plainly.

Saving memories:
- When the user wants something remembered, draft one short, self-contained sentence and call propose_memory with it (content, a few tags, and, when it came from a session, a short snippet with its sessionId and messageId).
- Never say a memory is saved unless the status says "saved". When the status is "pending", tell the user it waits for them in Memory Bank's Inbox; later, check proposal_status with the proposalId, and call it saved only once the status is "accepted". "declined", "rejected" or "expired" means nothing was saved: do not propose it again unless the user asks.

Deleting memories:
- Delete only when the user asks, and only with delete_memory, which asks the user to confirm. It is deleted only when the status says "deleted"; "pending" means it waits in the Inbox.

Past sessions:
- Find sessions with list_sessions or search_sessions (limit 10 or less), then read only what you need with read_transcript: a small count (10 or less) and maxCharsPerMessage; page back with before only as far as needed. Never dump whole transcripts.

Never store secrets: no passwords, API keys, tokens, private keys or credentials, in the sentence or in any snippet. If something looks sensitive, leave it out and tell the user.
`;

const ZH_CN = `## 记忆库（Memory Bank）
你可以使用记忆库的 MCP 工具（服务器 "memory-bank"）。记忆库保存用户确认过的简短事实，并能查找用户在这台电脑上使用 Claude Code、Codex、opencode 和 Gemini CLI 的过往会话。

搜索记忆：
- 只有在用户要求你回忆或查找时才调用 search_memories，绝不自行查找。用用户自己的话作为 query，limit 不超过 10，只展示相关的结果。结果为空表示没有保存相关内容：请直接说明。

保存记忆：
- 当用户希望记住某件事时，起草一句简短、独立完整的句子，并用它调用 propose_memory（content、几个 tags，如果来自某个会话，再附上一小段 snippet 及其 sessionId 和 messageId）。
- 除非 status 为 "saved"，否则绝不说记忆已保存。status 为 "pending" 时，告诉用户它正在记忆库的收件箱中等待确认；之后用 proposalId 调用 proposal_status 查看，只有 status 为 "accepted" 时才说已保存。"declined"、"rejected" 或 "expired" 表示什么都没有保存：除非用户要求，不要再次提议。

删除记忆：
- 只在用户要求时删除，并且只通过 delete_memory，它会请用户确认。只有 status 为 "deleted" 时才算已删除；"pending" 表示它在收件箱中等待确认。

过往会话：
- 用 list_sessions 或 search_sessions 查找会话（limit 不超过 10），再用 read_transcript 只读取需要的部分：count 要小（不超过 10），并设置 maxCharsPerMessage；只在需要时用 before 向前翻页。绝不整段输出完整的对话记录。

绝不保存机密：句子和任何 snippet 中都不能有密码、API 密钥、令牌、私钥或其他凭据。如果内容看起来敏感，请省略并告诉用户。
`;

export const AGENT_PROMPTS: Record<Language, string> = { en: EN, "zh-CN": ZH_CN };

/** The prompt for the UI language (any Chinese gets Simplified Chinese). */
export function agentPrompt(language: string): string {
  return language.toLowerCase().startsWith("zh") ? ZH_CN : EN;
}
