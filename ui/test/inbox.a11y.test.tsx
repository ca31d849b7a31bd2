// axe-core on the Inbox and Settings → Agents: no violations in any of their states.
import { screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { expectNoViolations } from "./axe";
import { installFakeBackend } from "./fakeBackend";
import { agentsOverview, proposal } from "./fakeInbox";
import { session, transcript } from "./fakeSessions";
import { renderApp, settle, tick, useFakeClock } from "./render";

beforeEach(() => useFakeClock());

const proposals = [
  proposal(1, {
    content: "<img src=x onerror=alert(1)>",
    tags: ["xss", "test"],
    contexts: [{ snippet: "a snippet", citation: { conversationId: "ses_1", messageId: "msg_1" }, origin: null }],
  }),
  proposal(2, { proposedBy: null, orgId: "org_b" }),
  proposal(3, { action: "delete", content: "Ada's old address", memoryId: "mem_0001", proposedBy: "gemini-cli" }),
];

async function openInbox(options: Parameters<typeof installFakeBackend>[0] = {}) {
  installFakeBackend({ sessions: { sessions: [session(1)], transcripts: { ses_1: transcript(2) } }, ...options });
  const app = renderApp();
  await settle();
  await app.user.click(screen.getByRole("button", { name: /^(Inbox|收件箱)/ }));
  await settle();
  return app;
}

describe("accessibility (axe): Inbox", () => {
  it("proposals of every kind", async () => {
    await openInbox({ proposals });
    expect(screen.getAllByRole("article")).toHaveLength(3);
    expect(document.querySelectorAll("img")).toHaveLength(0);
    await expectNoViolations();
  });

  it("the check of a save, with a secret highlighted", async () => {
    const app = await openInbox({ proposals });
    await app.user.click(screen.getAllByRole("button", { name: "Check and accept this proposal" })[0]);
    await app.user.type(screen.getByLabelText("Memory"), " ghp_0123456789abcdefghijABCDEFGHIJ0123");
    expect(screen.getByRole("alert")).not.toBeNull();
    await expectNoViolations();
  });

  it("the check of a delete", async () => {
    const app = await openInbox({ proposals });
    await app.user.click(screen.getAllByRole("button", { name: "Check and accept this proposal" })[2]);
    expect(screen.getByRole("group")).not.toBeNull();
    await expectNoViolations();
  });

  it("a member's own team proposals, read-only, in every status", async () => {
    const own = (n: number, status: "pending" | "accepted" | "rejected" | "expired") =>
      proposal(n, { content: `Team idea ${n}`, scope: "org", proposer: "usr_1", status });
    await openInbox({ team: { yourRole: "member", proposals: [own(1, "pending"), own(2, "accepted"), own(3, "rejected"), own(4, "expired")] } });
    expect(screen.getByRole("region", { name: "Your team proposals: Acme" })).not.toBeNull();
    expect(screen.getAllByRole("article")).toHaveLength(4);
    await expectNoViolations();
  });

  it("empty, in Chinese", async () => {
    await openInbox({ state: { prefs: { language: "zh-CN" } } });
    expect(screen.getByText("没有待处理的提议")).not.toBeNull();
    await expectNoViolations();
  });
});

describe("accessibility (axe): Settings → Agents", () => {
  async function openSettings(agents = agentsOverview({ "claude-code": { detected: true, installed: true, entryMatches: true } })) {
    installFakeBackend({ agents });
    const app = renderApp();
    await settle();
    await app.user.click(screen.getByRole("button", { name: "Account settings" }));
    await settle();
    return app;
  }

  it("the agent list", async () => {
    await openSettings();
    expect(screen.getByRole("list", { name: "Agents" })).not.toBeNull();
    await expectNoViolations();
  });

  it("the agent list without the memory-bank program", async () => {
    await openSettings(agentsOverview({ codex: { problem: "cannot read it" } }, null));
    await expectNoViolations();
  });

  it("the review of a change", async () => {
    const app = await openSettings();
    await app.user.click(screen.getByRole("button", { name: "Install in Codex CLI" }));
    await settle();
    await tick(50);
    expect(within(screen.getByRole("dialog")).getByRole("region", { name: "The change" })).not.toBeNull();
    await expectNoViolations();
  });
});
