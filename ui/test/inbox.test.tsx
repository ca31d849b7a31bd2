// The Inbox: the tab's count, what a proposal shows, Accept (edited, with the secret
// check) and Reject, the keyboard, announcements, new proposals through `inbox-changed`,
// and how the memory panel says a memory was confirmed; in English and Chinese.
import { act, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { memory, installFakeBackend, type FakeBackend } from "./fakeBackend";
import { proposal, propose } from "./fakeInbox";
import { session, transcript } from "./fakeSessions";
import { renderApp, settle, useFakeClock } from "./render";

beforeEach(() => useFakeClock());

const KEY = "ghp_0123456789abcdefghijABCDEFGHIJ0123";

const tea = proposal(1, {
  content: "Ada prefers green tea",
  tags: ["drinks"],
  contexts: [{ snippet: "I always drink tea", citation: { conversationId: "ses_1", messageId: "msg_1" }, origin: null }],
  proposedBy: "claude-code",
});
const unknownClient = proposal(2, { content: "Deploys happen on Tuesdays", proposedBy: "my-agent" });
const removal = proposal(3, { action: "delete", content: "Ada's old address", memoryId: "mem_0001", proposedBy: "codex-mcp-client" });

async function openInbox(options: Parameters<typeof installFakeBackend>[0] = {}) {
  const backend = installFakeBackend({
    sessions: { sessions: [session(1)], transcripts: { ses_1: transcript(3) } },
    ...options,
  });
  const app = renderApp();
  await settle();
  await app.user.click(inboxTab());
  await settle();
  return { app, backend };
}

const nav = () => screen.getByRole("navigation", { name: /^(Sections|栏目)$/ });
const inboxTab = () => within(nav()).getByRole("button", { name: /^Inbox|^收件箱/ });
/** The tab's accessible name: its text without the aria-hidden badge. */
const tabName = (button: HTMLElement) =>
  Array.from(button.childNodes)
    .filter((node) => !(node instanceof HTMLElement && node.getAttribute("aria-hidden") === "true"))
    .map((node) => node.textContent)
    .join("");
const list = () => screen.getByRole("list", { name: "Proposals" });
const item = (content: string) => screen.getByText(content, { selector: ".row-title" }).closest("article") as HTMLElement;
const status = () => document.querySelector(".inbox-status")?.textContent;

describe("Inbox tab", () => {
  it("sits beside Memories with the number of pending proposals in its name", async () => {
    const backend = installFakeBackend({ proposals: [tea, unknownClient] });
    renderApp();
    await settle();
    const names = within(nav()).getAllByRole("button").map(tabName);
    expect(names).toEqual(["Memories", "Inbox, 2 proposals waiting", "Sessions", "Account settings"]);
    expect(within(nav()).getByRole("button", { name: "Inbox, 2 proposals waiting" })).toBe(inboxTab());
    expect(inboxTab().querySelector(".nav-badge")?.textContent).toBe("2");
    expect(backend.callsOf("list_proposals")).toEqual([{ orgId: "org_a" }]);
  });

  it("has no badge when nothing waits", async () => {
    installFakeBackend();
    renderApp();
    await settle();
    expect(tabName(inboxTab())).toBe("Inbox");
    expect(inboxTab().querySelector(".nav-badge")).toBeNull();
  });
});

describe("Inbox", () => {
  it("shows each proposal's sentence, tags, citation, proposing client and the memory a delete would remove", async () => {
    await openInbox({ proposals: [tea, unknownClient, removal] });
    const first = item("Ada prefers green tea");
    expect(within(first).getByText("Proposed memory")).not.toBeNull();
    expect(within(within(first).getByRole("list", { name: "Tags" })).getByText("drinks")).not.toBeNull();
    expect(first.textContent).toContain("I always drink tea");
    expect(first.textContent).toContain("session ses_1, message msg_1");
    expect(first.textContent).toContain("Proposed by an agent that calls itself Claude Code");
    // The cited session is on this machine: a link opens it at the message.
    expect(within(first).getByRole("button", { name: "Open the cited message of session ses_1" })).not.toBeNull();
    expect(item("Deploys happen on Tuesdays").textContent).toContain("Proposed by an agent that calls itself my-agent");
    const gone = item("Ada's old address");
    expect(within(gone).getByText("Asks to delete this memory")).not.toBeNull();
    expect(gone.textContent).toContain("Proposed by an agent that calls itself Codex");
  });

  it("shows both versions of a memory changed since the proposal, and accepts over the one shown", async () => {
    const changedEdit = proposal(9, {
      action: "edit",
      content: "Standup is at 10:00",
      memoryId: "mem_0001",
      proposedAgainst: { content: "Standup is at 9:30", tags: null },
      memoryNow: { content: "Standup is at 9:45", tags: ["team"] },
    });
    const changedDelete = proposal(10, {
      action: "delete",
      content: "Standup is at 9:30",
      memoryId: "mem_0001",
      proposedAgainst: { content: "Standup is at 9:30", tags: null },
      memoryNow: { content: "Standup is at 9:45", tags: ["team"] },
    });
    const { app, backend } = await openInbox({ proposals: [changedEdit, changedDelete] });
    const edit = item("Standup is at 10:00");
    const note = within(edit).getByRole("note", { name: "This memory changed after the agent proposed this" });
    expect(note.textContent).toContain("When proposedStandup is at 9:30");
    expect(note.textContent).toContain("NowStandup is at 9:45 · team");
    await app.user.click(within(edit).getByRole("button", { name: "Check and accept this proposal" }));
    await app.user.click(within(edit).getByRole("button", { name: "Save memory" }));
    await settle();
    const removal = screen.getAllByText("Standup is at 9:30", { selector: ".row-title" })[0].closest("article") as HTMLElement;
    expect(within(removal).getByRole("note").textContent).toContain("Accepting deletes the memory as it is now.");
    await app.user.click(within(removal).getByRole("button", { name: "Check and accept this proposal" }));
    await app.user.click(within(removal).getByRole("button", { name: "Delete memory" }));
    await settle();
    const seen = { content: "Standup is at 9:45", tags: ["team"] };
    expect(backend.callsOf("accept_proposal")).toEqual([
      { orgId: "org_a", id: changedEdit.id, edits: { memoryNow: seen } },
      { orgId: "org_a", id: changedDelete.id, edits: { memoryNow: seen } },
    ]);
  });

  it("says which proposals are edits of a memory", async () => {
    const reword = proposal(9, { action: "edit", content: "Ada lives in York", memoryId: "mem_0001" });
    await openInbox({ proposals: [reword] });
    expect(within(item("Ada lives in York")).getByText("Proposed new wording of a memory")).not.toBeNull();
  });

  it("Accept lets the person edit the sentence first; exactly that is saved and shown as confirmed in Memory Bank", async () => {
    const { app, backend } = await openInbox({ proposals: [tea, unknownClient] });
    const first = item("Ada prefers green tea");
    await app.user.click(within(first).getByRole("button", { name: "Check and accept this proposal" }));
    const field = within(first).getByLabelText("Memory") as HTMLTextAreaElement;
    expect(field.value).toBe("Ada prefers green tea");
    expect(document.activeElement).toBe(field);
    expect((within(first).getByLabelText("Tags (optional)") as HTMLInputElement).value).toBe("drinks");
    expect(backend.callsOf("accept_proposal")).toEqual([]);
    await app.user.clear(field);
    await app.user.type(field, "Ada prefers green tea, no sugar");
    await app.user.click(within(first).getByRole("button", { name: "Save memory" }));
    await settle();
    expect(backend.callsOf("accept_proposal")).toEqual([
      { orgId: "org_a", id: tea.id, edits: { content: "Ada prefers green tea, no sugar" } },
    ]);
    expect(status()).toBe("Saved: “Ada prefers green tea, no sugar”");
    expect(screen.queryByText("Ada prefers green tea", { selector: ".row-title" })).toBeNull();
    expect(tabName(inboxTab())).toBe("Inbox, 1 proposal waiting");
    // Focus moved on to the next proposal.
    expect(document.activeElement).toBe(item("Deploys happen on Tuesdays"));

    await app.user.click(within(nav()).getByRole("button", { name: "Memories" }));
    await settle();
    const row = screen.getByText("Ada prefers green tea, no sugar", { selector: ".row-title" }).closest("article")!;
    expect(row.textContent).toContain("Confirmed in Memory Bank · proposed by an agent that calls itself Claude Code");
  });

  it("names memories worded alike and can change one of them instead of saving a second", async () => {
    const alike = memory(7, { content: "Ada prefers black tea" });
    const withHint = { ...tea, similar: [{ id: alike.id, content: alike.content }] };
    const { app, backend } = await openInbox({ proposals: [withHint], memories: [alike] });
    const first = item("Ada prefers green tea");
    const hint = within(first).getByRole("region", { name: "You already have:" });
    expect(hint.textContent).toContain("Ada prefers black tea");
    expect(within(hint).queryByRole("button")).toBeNull(); // closed: a hint only
    await app.user.click(within(first).getByRole("button", { name: "Check and accept this proposal" }));
    const offer = within(first).getByRole("button", {
      name: "Change “Ada prefers black tea” to the new sentence instead of saving a second memory",
    });
    expect(backend.callsOf("accept_proposal")).toEqual([]);
    await app.user.click(offer);
    await settle();
    expect(backend.callsOf("accept_proposal")).toEqual([{ orgId: "org_a", id: tea.id, edits: { editInstead: alike.id } }]);
    await app.user.click(within(nav()).getByRole("button", { name: "Memories" }));
    await settle();
    expect(screen.getByText("Ada prefers green tea", { selector: ".row-title" })).not.toBeNull();
    expect(screen.queryByText("Ada prefers black tea", { selector: ".row-title" })).toBeNull();
  });

  it("an unedited Accept sends no edits; clearing the tags sends an empty list", async () => {
    const { app, backend } = await openInbox({ proposals: [tea, unknownClient] });
    await app.user.click(within(item("Deploys happen on Tuesdays")).getByRole("button", { name: "Check and accept this proposal" }));
    await app.user.click(screen.getByRole("button", { name: "Save memory" }));
    await settle();
    await app.user.click(within(item("Ada prefers green tea")).getByRole("button", { name: "Check and accept this proposal" }));
    await app.user.clear(screen.getByLabelText("Tags (optional)"));
    await app.user.click(screen.getByRole("button", { name: "Save memory" }));
    await settle();
    expect(backend.callsOf("accept_proposal")).toEqual([
      { orgId: "org_a", id: unknownClient.id },
      { orgId: "org_a", id: tea.id, edits: { tags: [] } },
    ]);
    expect(backend.memories.map((m) => [m.content, m.tags])).toEqual([
      ["Ada prefers green tea", []],
      ["Deploys happen on Tuesdays", null],
    ]);
  });

  it("highlights text that looks like a secret and blocks saving until it is edited out", async () => {
    const { app, backend } = await openInbox({ proposals: [tea] });
    const first = item("Ada prefers green tea");
    await app.user.click(within(first).getByRole("button", { name: "Check and accept this proposal" }));
    const field = within(first).getByLabelText("Memory") as HTMLTextAreaElement;
    await app.user.type(field, ` ${KEY}`);
    const warning = within(first).getByRole("alert");
    expect(warning.textContent).toContain("This looks like a secret: GitHub token. Remove it before saving.");
    expect(warning.querySelector("mark.secret")?.textContent).toBe(KEY);
    expect(field.getAttribute("aria-invalid")).toBe("true");
    const save = within(first).getByRole("button", { name: "Save memory" }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    // Ctrl+Enter does not get around it either.
    await app.user.keyboard("{Control>}{Enter}{/Control}");
    await settle();
    expect(backend.callsOf("accept_proposal")).toEqual([]);
    await app.user.type(within(first).getByLabelText("Tags (optional)"), `, ${KEY}`);
    expect(within(first).getByRole("alert").textContent).toContain("Found in “Tags (optional)”");
    await app.user.clear(field);
    await app.user.type(field, "Ada prefers green tea");
    await app.user.clear(within(first).getByLabelText("Tags (optional)"));
    expect(within(first).queryByRole("alert")).toBeNull();
    expect(save.disabled).toBe(false);
  });

  it("shows the backend's refusal when it finds a secret the UI did not", async () => {
    const { app, backend } = await openInbox({ proposals: [tea] });
    backend.failures.set("accept_proposal", { code: "looks_like_secret", message: "This looks like a secret (AWS access key in contexts[0].snippet)." });
    await app.user.click(screen.getByRole("button", { name: "Check and accept this proposal" }));
    await app.user.click(screen.getByRole("button", { name: "Save memory" }));
    await settle();
    expect(within(item("Ada prefers green tea")).getByRole("alert").textContent).toBe(
      "Could not finish: This looks like a secret (AWS access key in contexts[0].snippet).",
    );
    expect(backend.memories).toEqual([]);
  });

  it("Reject saves nothing and says so", async () => {
    const { app, backend } = await openInbox({ proposals: [tea] });
    await app.user.click(screen.getByRole("button", { name: "Reject this proposal" }));
    await settle();
    expect(backend.callsOf("reject_proposal")).toEqual([{ orgId: "org_a", id: tea.id }]);
    expect(backend.memories).toEqual([]);
    expect(status()).toBe("Rejected: “Ada prefers green tea”");
    expect(screen.getByRole("heading", { name: "Nothing waiting" })).not.toBeNull();
    expect(document.activeElement).toBe(screen.getByRole("heading", { name: "Inbox" }));
  });

  it("accepting a delete proposal asks once more, then deletes the memory", async () => {
    const { app, backend } = await openInbox({ proposals: [removal], memories: [memory(1, { content: "Ada's old address" })] });
    const target = item("Ada's old address");
    await app.user.click(within(target).getByRole("button", { name: "Check and accept this proposal" }));
    const question = within(target).getByRole("group", { name: /Delete this memory from your memory bank/ });
    expect(document.activeElement).toBe(within(question).getByRole("button", { name: "Cancel" }));
    await app.user.click(within(question).getByRole("button", { name: "Delete memory" }));
    await settle();
    expect(backend.callsOf("accept_proposal")).toEqual([{ orgId: "org_a", id: removal.id }]);
    expect(backend.memories).toEqual([]);
    expect(status()).toBe("Deleted: “Ada's old address”");
  });

  it("a proposal decided elsewhere leaves the list with a message", async () => {
    const { app, backend } = await openInbox({ proposals: [tea] });
    backend.proposals = [{ ...tea, status: "accepted" }];
    await app.user.click(screen.getByRole("button", { name: "Reject this proposal" }));
    await settle();
    expect(status()).toBe("This proposal was already decided elsewhere or has expired.");
  });
});

describe("Inbox keyboard", () => {
  it("arrows and J/K move between proposals, Enter opens the check, Escape closes it, Ctrl+Enter saves, R rejects", async () => {
    const { app, backend } = await openInbox({ proposals: [tea, unknownClient, removal] });
    expect(screen.getByText(/Up and down arrows \(or J and K\) move between proposals/)).not.toBeNull();
    expect(list().getAttribute("aria-describedby")).toBe(screen.getByText(/Up and down arrows/).id);
    // One tab stop for the list: the first proposal.
    const items = within(list()).getAllByRole("article");
    expect(items.map((el) => el.tabIndex)).toEqual([0, -1, -1]);
    await act(async () => items[0].focus());
    await app.user.keyboard("{ArrowDown}");
    expect(document.activeElement).toBe(items[1]);
    await app.user.keyboard("j");
    expect(document.activeElement).toBe(items[2]);
    await app.user.keyboard("{ArrowDown}");
    expect(document.activeElement, "stays on the last").toBe(items[2]);
    await app.user.keyboard("k");
    expect(document.activeElement).toBe(items[1]);
    expect(items.map((el) => el.tabIndex)).toEqual([-1, 0, -1]);

    await app.user.keyboard("{Enter}");
    const field = within(items[1]).getByLabelText("Memory");
    expect(document.activeElement).toBe(field);
    await app.user.keyboard("{Escape}");
    expect(within(items[1]).queryByLabelText("Memory")).toBeNull();
    expect(document.activeElement).toBe(items[1]);

    await app.user.keyboard("{Enter}");
    await app.user.keyboard(" and Thursdays{Control>}{Enter}{/Control}");
    await settle();
    expect(backend.callsOf("accept_proposal")).toEqual([
      { orgId: "org_a", id: unknownClient.id, edits: { content: "Deploys happen on Tuesdays and Thursdays" } },
    ]);
    expect(document.activeElement).toBe(item("Ada's old address"));
    await app.user.keyboard("r");
    await settle();
    expect(backend.callsOf("reject_proposal")).toEqual([{ orgId: "org_a", id: removal.id }]);
    expect(document.activeElement).toBe(item("Ada prefers green tea"));
    await app.user.keyboard("{Delete}");
    await settle();
    expect(backend.callsOf("reject_proposal").map((args) => args.id)).toEqual([removal.id, tea.id]);
  });

  it("letters typed in the editor are text, not shortcuts", async () => {
    const { app, backend } = await openInbox({ proposals: [tea] });
    await act(async () => item("Ada prefers green tea").focus());
    await app.user.keyboard("{Enter}");
    await app.user.keyboard(" rjk");
    expect((screen.getByLabelText("Memory") as HTMLTextAreaElement).value).toBe("Ada prefers green tea rjk");
    expect(backend.callsOf("reject_proposal")).toEqual([]);
  });
});

describe("new proposals", () => {
  async function arrive(backend: FakeBackend, made = proposal(9, { content: "Prefers dark mode", proposedBy: "codex" })) {
    await act(async () => propose(backend, made));
    await settle();
  }

  it("appear when Rust reports them, in the list and the badge, and are announced", async () => {
    const { backend } = await openInbox({ proposals: [tea] });
    const announcer = () => Array.from(document.querySelectorAll('[role="status"]')).map((n) => n.textContent);
    expect(announcer()).not.toContain("New proposal from Claude Code: “Ada prefers green tea”");
    await arrive(backend);
    expect(item("Prefers dark mode")).not.toBeNull();
    expect(tabName(inboxTab())).toBe("Inbox, 2 proposals waiting");
    expect(announcer()).toContain("New proposal from Codex: “Prefers dark mode”");
  });

  it("are announced while another view is shown too", async () => {
    const backend = installFakeBackend({ memories: [memory(1)] });
    renderApp();
    await settle();
    await arrive(backend);
    expect(screen.getByText("New proposal from Codex: “Prefers dark mode”")).not.toBeNull();
    expect(tabName(inboxTab())).toBe("Inbox, 1 proposal waiting");
  });
});

describe("how a memory was confirmed", () => {
  const confirmed = [
    memory(1, { content: "Via the Inbox", confirmedVia: "app", proposedBy: "claude-code" }),
    memory(2, { content: "Via Remember", confirmedVia: "app" }),
    memory(3, { content: "Via elicitation", confirmedVia: "elicitation", proposedBy: "claude-code" }),
    memory(4, { content: "Via the CLI", confirmedVia: "cli" }),
    memory(5, { content: "From before" }),
    memory(6, { content: "Via an import", confirmedVia: "import", importedFrom: { confirmedVia: "elicitation", proposedBy: "claude-code" } }),
    memory(7, { content: "Imported, claiming nothing", confirmedVia: "import" }),
    memory(8, { content: "Imported, only a proposer", confirmedVia: "import", importedFrom: { proposedBy: "claude-code" } }),
  ];
  const line = (content: string) =>
    screen.getByText(content, { selector: ".row-title" }).closest("article")!.querySelector(".row-confirmed")?.textContent ?? null;

  it("is shown in the panel", async () => {
    installFakeBackend({ memories: confirmed });
    renderApp();
    await settle();
    expect(line("Via the Inbox")).toBe("Confirmed in Memory Bank · proposed by an agent that calls itself Claude Code");
    expect(line("Via Remember")).toBe("Confirmed in Memory Bank");
    expect(line("Via elicitation")).toBe("Confirmed in Claude Code");
    expect(line("Via the CLI")).toBe("Saved from the command line");
    expect(line("From before")).toBeNull();
    // An import confirms nothing: what the file says is shown as the file's claim.
    expect(line("Via an import")).toBe("Imported · the file says: Confirmed in Claude Code");
    expect(line("Imported, claiming nothing")).toBe("Imported");
    expect(line("Imported, only a proposer")).toBe("Imported · the file says: proposed by Claude Code");
  });

  it("and in Chinese, with the Inbox", async () => {
    const { app } = await openInbox({ memories: confirmed, proposals: [tea], state: { prefs: { language: "zh-CN" } } });
    expect(tabName(inboxTab())).toBe("收件箱，1 条提议待确认");
    expect(screen.getByRole("heading", { name: "收件箱" })).not.toBeNull();
    expect(item("Ada prefers green tea").textContent).toContain("由自称 Claude Code 的智能体提议");
    expect(screen.getByRole("button", { name: "检查并接受此提议" })).not.toBeNull();
    await app.user.click(within(nav()).getByRole("button", { name: "记忆" }));
    await settle();
    expect(line("Via the Inbox")).toBe("已在记忆库中确认 · 由自称 Claude Code 的智能体提议");
    expect(line("Via elicitation")).toBe("已在 Claude Code 中确认");
    expect(line("Via the CLI")).toBe("通过命令行保存");
    expect(line("Via an import")).toBe("导入 · 文件中称：已在 Claude Code 中确认");
    expect(line("Imported, only a proposer")).toBe("导入 · 文件中称：由 Claude Code 提议");
  });
});
