// Team banks in the app (docs/teams.md): the panel's Mine / Team / All with each team
// memory marked and its author named, the org Inbox for admins and owners (nothing of it
// for a member), and Settings → Team: members and roles offered by role, the policy, the
// audit log, and refusals shown in the server's own words.
import { screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import type { AuditEntry } from "../src/ipc";
import { installFakeBackend, memory } from "./fakeBackend";
import { proposal } from "./fakeInbox";
import { member, NEEDS_OWNER } from "./fakeTeam";
import { renderApp, rowFor, rowTitles, settle, tick, useFakeClock } from "./render";

beforeEach(() => useFakeClock());

const ME = member("usr_1", "me@example.com", "owner");
const BOB = member("usr_bob", "bob@example.com", "member");
const CLEO = member("usr_cleo", "cleo@example.com", "admin");

const own = memory(1, { content: "I take my tea green" });
const shared = memory(2, { content: "The team deploys on Tuesdays", scope: "org", savedBy: "usr_bob", confirmedBy: "usr_1" });
const mineShared = memory(3, { content: "Standup is at 9:30", scope: "org", savedBy: "usr_1", confirmedBy: "usr_1" });
const fromFormer = memory(4, { content: "The wiki moved to /docs", scope: "org", savedBy: "usr_gone", confirmedBy: "usr_gone" });

async function start() {
  const app = renderApp();
  await settle();
  return app;
}

const scopeRadio = (name: string) =>
  within(screen.getByRole("radiogroup", { name: "Show" })).getByRole("radio", { name });

describe("the panel's Mine / Team / All", () => {
  it("shows both banks by default, marks team memories and names who saved them", async () => {
    installFakeBackend({ memories: [own, shared, mineShared, fromFormer], team: { members: [ME, BOB] } });
    await start();
    expect((scopeRadio("All") as HTMLInputElement).checked).toBe(true);
    expect(rowTitles()).toEqual([own.content, shared.content, mineShared.content, fromFormer.content]);
    expect(rowFor(own.content).querySelector(".row-team")).toBeNull();
    const team = rowFor(shared.content);
    expect(team.querySelector(".row-team")?.textContent).toBe("Team");
    expect(team.querySelector(".row-saved-by")?.textContent).toBe("Saved by bob@example.com · confirmed by you");
    expect(rowFor(mineShared.content).querySelector(".row-saved-by")?.textContent).toBe("Saved by you");
    expect(rowFor(fromFormer.content).querySelector(".row-saved-by")?.textContent).toBe("Saved by a former member");
  });

  it("a member, who sees no members list, reads an author's id: never a guess", async () => {
    installFakeBackend({ memories: [shared], team: { yourRole: "member", members: [ME, BOB] } });
    await start();
    expect(rowFor(shared.content).querySelector(".row-saved-by")?.textContent).toBe("Saved by usr_bob · confirmed by you");
  });

  it("switches the list and the search between the banks, and keeps the choice", async () => {
    const backend = installFakeBackend({ memories: [own, shared, mineShared], team: { members: [ME, BOB] } });
    const app = await start();
    await app.user.click(scopeRadio("Team"));
    await settle();
    expect(rowTitles()).toEqual([shared.content, mineShared.content]);
    expect(backend.callsOf("list_memories").at(-1)).toEqual({ orgId: "org_a", limit: 50, scope: "team" });
    expect(backend.callsOf("set_prefs")).toEqual([{ memoryScope: "team" }]);

    await app.user.click(scopeRadio("Mine"));
    await settle();
    expect(rowTitles()).toEqual([own.content]);
    expect(backend.callsOf("list_memories").at(-1)).toEqual({ orgId: "org_a", limit: 50, scope: "mine" });

    await app.user.type(screen.getByRole("searchbox", { name: "Search memories" }), "t");
    await tick(250);
    await settle();
    expect(backend.callsOf("search_memories").at(-1)).toEqual({ orgId: "org_a", q: "t", limit: 50, scope: "mine" });
    expect(rowTitles()).toEqual([own.content]);
    await app.user.click(scopeRadio("All"));
    await settle();
    expect(backend.callsOf("search_memories").at(-1)).toEqual({ orgId: "org_a", q: "t", limit: 50 });
    expect(rowTitles()).toEqual([own.content, shared.content, mineShared.content]);
  });

  it("starts with the filter the person chose last, and says when one bank is empty", async () => {
    installFakeBackend({ memories: [own], state: { prefs: { memoryScope: "team" } } });
    await start();
    expect((scopeRadio("Team") as HTMLInputElement).checked).toBe(true);
    expect(screen.getByText("No team memories in this organization yet.")).not.toBeNull();
  });

  it("is translated", async () => {
    installFakeBackend({ memories: [shared], state: { prefs: { language: "zh-CN" } }, team: { members: [ME, BOB] } });
    await start();
    expect(within(screen.getByRole("radiogroup", { name: "显示" })).getAllByRole("radio").map((r) => r.parentElement?.textContent)).toEqual([
      "我的",
      "团队",
      "全部",
    ]);
    expect(rowFor(shared.content).querySelector(".row-team")?.textContent).toBe("团队");
    expect(rowFor(shared.content).querySelector(".row-saved-by")?.textContent).toBe("由bob@example.com保存 · 由你确认");
  });
});

const teamProposal = proposal(7, { content: "Freeze deploys on Fridays", scope: "org", proposer: "usr_bob", proposedBy: null });
const agentTeamProposal = proposal(8, { content: "Use pnpm", scope: "org", proposer: "usr_bob", proposedBy: "claude-code" });

async function openInbox() {
  const app = await start();
  await app.user.click(screen.getByRole("button", { name: /^Inbox/ }));
  await settle();
  return app;
}

describe("the org Inbox", () => {
  it("follows the person's own Inbox for an owner, names each proposer, and decides with the same commands", async () => {
    const backend = installFakeBackend({
      proposals: [proposal(1, { content: "Ada prefers tea" })],
      team: { members: [ME, BOB], proposals: [teamProposal, agentTeamProposal] },
    });
    const app = await openInbox();
    expect(screen.getByRole("button", { name: "Inbox, 3 proposals waiting" })).not.toBeNull();
    const section = screen.getByRole("region", { name: "Team Inbox: Acme" });
    const list = within(section).getByRole("list", { name: "Team proposals" });
    const first = within(list).getByText(teamProposal.content).closest("article") as HTMLElement;
    expect(first.textContent).toContain("Proposed by bob@example.com");
    const second = within(list).getByText(agentTeamProposal.content).closest("article") as HTMLElement;
    expect(second.textContent).toContain("Proposed by bob@example.com through an agent that calls itself Claude Code");
    // The person's own Inbox is still there, first.
    expect(within(screen.getByRole("list", { name: "Proposals" })).getByText("Ada prefers tea")).not.toBeNull();

    await app.user.click(within(second).getByRole("button", { name: "Reject this proposal" }));
    await settle();
    await app.user.click(within(first).getByRole("button", { name: "Check and accept this proposal" }));
    await app.user.click(within(first).getByRole("button", { name: "Save memory" }));
    await settle();
    expect(backend.callsOf("reject_proposal")).toEqual([{ orgId: "org_a", id: agentTeamProposal.id }]);
    expect(backend.callsOf("accept_proposal")).toEqual([{ orgId: "org_a", id: teamProposal.id }]);
    expect(within(section).getByText("Nothing waits for the team.")).not.toBeNull();
  });

  it("shows a member only the team proposals they made, with what became of each, and nothing to decide", async () => {
    const mine = [
      proposal(11, { content: "Deploys freeze on Fridays", scope: "org", proposer: "usr_1", proposedBy: null }),
      proposal(12, { content: "Use pnpm", scope: "org", proposer: "usr_1", proposedBy: "claude-code", status: "accepted" }),
      proposal(13, { content: "Tabs, not spaces", scope: "org", proposer: "usr_1", proposedBy: null, status: "rejected" }),
    ];
    const backend = installFakeBackend({ team: { yourRole: "member", proposals: [...mine, teamProposal] } });
    await openInbox();
    expect(backend.callsOf("list_team_proposals")).toEqual([{ orgId: "org_a" }]);
    // Not counted as waiting: they are not the member's to decide.
    expect(screen.getByRole("button", { name: "Inbox" })).not.toBeNull();
    expect(screen.queryByRole("region", { name: /Team Inbox/ })).toBeNull();
    const section = screen.getByRole("region", { name: "Your team proposals: Acme" });
    const items = within(within(section).getByRole("list", { name: "Your team proposals" })).getAllByRole("article");
    expect(items.map((item) => [item.querySelector(".row-title")?.textContent, item.querySelector(".proposal-status")?.textContent])).toEqual([
      ["Deploys freeze on Fridays", "Waiting for an admin"],
      ["Use pnpm", "Accepted"],
      ["Tabs, not spaces", "Rejected"],
    ]);
    expect(items[1].textContent).toContain("Proposed by an agent that calls itself Claude Code");
    expect(section.textContent).not.toContain(teamProposal.content);
    expect(within(section).queryByRole("button")).toBeNull();
    expect(screen.queryByRole("alert")).toBeNull();
    // The person's own Inbox is still there, first.
    expect(screen.getByText("Nothing waiting")).not.toBeNull();
  });

  it("renders a member's proposal as text, never as HTML", async () => {
    const hostile = '<img src=x onerror="alert(1)"><b>bold</b>';
    installFakeBackend({ team: { yourRole: "member", proposals: [proposal(11, { content: hostile, scope: "org", proposer: "usr_1", proposedBy: "<i>x</i>" })] } });
    await openInbox();
    const section = screen.getByRole("region", { name: "Your team proposals: Acme" });
    expect(section.querySelector("img, b, i")).toBeNull();
    expect(section.querySelector(".row-title")?.textContent).toBe(hostile);
  });

  it("says so when a member has proposed nothing to the team", async () => {
    installFakeBackend({ team: { yourRole: "member", proposals: [teamProposal] } });
    await openInbox();
    const section = screen.getByRole("region", { name: "Your team proposals: Acme" });
    expect(section.textContent).toContain("You have not proposed anything to the team.");
  });

  it("shows a refusal in the server's words", async () => {
    const backend = installFakeBackend({ team: { members: [ME, BOB], proposals: [teamProposal] } });
    const app = await openInbox();
    // The person was made a member meanwhile: the server refuses, and says why.
    backend.team.yourRole = "member";
    const item = screen.getByText(teamProposal.content).closest("article") as HTMLElement;
    await app.user.click(within(item).getByRole("button", { name: "Reject this proposal" }));
    await settle();
    expect(item.textContent).toContain(
      "Could not finish: Only the org's admins and owners can do this to its team memories; propose it instead, or ask an admin.",
    );
  });
});

function audit(n: number, extra: Partial<AuditEntry> = {}): AuditEntry {
  return { seq: n, at: `2026-01-0${n}T10:00:00Z`, actorId: "usr_bob", action: "proposed", proposalId: `prop_${n}`, contentChars: 20 + n, ...extra };
}

async function openTeamSettings() {
  const app = await start();
  await app.user.click(screen.getByRole("button", { name: "Account settings" }));
  await settle();
  return { app, section: screen.getByRole("region", { name: "Team: Acme" }) };
}

describe("Settings → Team", () => {
  it("lets an owner change roles, remove members, set the policy and page the audit log", async () => {
    const backend = installFakeBackend({
      team: {
        members: [ME, CLEO, BOB],
        audit: [audit(3, { action: "accepted", actorId: "usr_1", memoryId: "mem_9" }), audit(2), audit(1, { actorId: "usr_gone" })],
      },
    });
    const { app, section } = await openTeamSettings();
    expect(section.textContent).toContain("Your role: Owner");
    const rows = within(within(section).getByRole("list", { name: "Members" })).getAllByRole("listitem");
    expect(rows.map((row) => row.querySelector(".member-email")?.textContent)).toEqual([
      "me@example.com (you)",
      "cleo@example.com",
      "bob@example.com",
    ]);
    const bobRole = within(section).getByRole("combobox", { name: "Role of bob@example.com" }) as HTMLSelectElement;
    expect(Array.from(bobRole.options, (o) => o.value)).toEqual(["owner", "admin", "member"]);
    await app.user.selectOptions(bobRole, "admin");
    await settle();
    expect(backend.callsOf("change_member_role")).toEqual([{ orgId: "org_a", userId: "usr_bob", role: "admin" }]);
    expect((within(section).getByRole("combobox", { name: "Role of bob@example.com" }) as HTMLSelectElement).value).toBe("admin");

    await app.user.click(within(section).getByRole("button", { name: "Remove cleo@example.com from the org" }));
    await app.user.click(within(section).getByRole("button", { name: "Remove cleo@example.com" }));
    await settle();
    expect(backend.callsOf("remove_member")).toEqual([{ orgId: "org_a", userId: "usr_cleo" }]);
    expect(section.textContent).not.toContain("cleo@example.com");
    expect(within(section).queryByRole("button", { name: /Remove me@example.com/ })).toBeNull();

    // The policy.
    await app.user.click(within(section).getByRole("checkbox", { name: "Members' agents may propose team memories" }));
    await app.user.type(within(section).getByRole("textbox", { name: "Most team memories" }), "500");
    await app.user.click(within(section).getByRole("button", { name: "Save policy" }));
    await settle();
    expect(backend.callsOf("set_org_policy")).toEqual([
      { orgId: "org_a", policy: { memoryEnabled: true, agentsMayPropose: false, maxMemories: 500 } },
    ]);
    expect(within(section).getByRole("status").textContent).toBe("Policy saved.");

    // The audit log: newest first, ids and lengths, never content; older pages on demand.
    const table = within(section).getByRole("table", { name: "Audit log" });
    const lines = () => within(table).getAllByRole("row").slice(1).map((row) => Array.from((row as HTMLTableRowElement).cells, (c) => c.textContent));
    expect(lines()).toEqual([
      [expect.stringMatching(/2026/), "you", "Accepted", "mem_9", "prop_3", "23 characters"],
      [expect.stringMatching(/2026/), "bob@example.com", "Proposed", "—", "prop_2", "22 characters"],
    ]);
    await app.user.click(within(section).getByRole("button", { name: "Show older" }));
    await settle();
    expect(lines()[2].slice(1)).toEqual(["a former member", "Proposed", "—", "prop_1", "21 characters"]);
    expect(backend.callsOf("org_audit")).toEqual([{ orgId: "org_a" }, { orgId: "org_a", before: 2 }]);
    expect(within(section).queryByRole("button", { name: "Show older" })).toBeNull();
  });

  it("shows the server's sentence when it refuses: the last owner cannot step down", async () => {
    const backend = installFakeBackend({ team: { members: [ME, BOB] } });
    const { app, section } = await openTeamSettings();
    await app.user.selectOptions(within(section).getByRole("combobox", { name: "Role of me@example.com" }), "member");
    await settle();
    expect(backend.callsOf("change_member_role")).toEqual([{ orgId: "org_a", userId: "usr_1", role: "member" }]);
    expect(within(section).getByRole("alert").textContent).toBe(
      "Refused: Acme would have no owner left; make another member its owner first.",
    );
    expect(section.textContent).toContain("Your role: Owner");
  });

  it("offers an admin only what admins may do, and no policy change", async () => {
    installFakeBackend({ team: { yourRole: "admin", members: [member("usr_o", "olga@example.com", "owner"), { ...CLEO, userId: "usr_1", email: "me@example.com" }, BOB] } });
    const { section } = await openTeamSettings();
    expect(section.textContent).toContain("Your role: Admin");
    // An owner's role is not theirs to change, nor may they remove an owner.
    expect(within(section).queryByRole("combobox", { name: "Role of olga@example.com" })).toBeNull();
    expect(within(section).queryByRole("button", { name: "Remove olga@example.com from the org" })).toBeNull();
    const bob = within(section).getByRole("combobox", { name: "Role of bob@example.com" }) as HTMLSelectElement;
    expect(Array.from(bob.options, (o) => o.value)).toEqual(["admin", "member"]);
    expect(within(section).getByRole("button", { name: "Remove bob@example.com from the org" })).not.toBeNull();
    expect(within(section).getByText("Only the org's owners can change its policy.")).not.toBeNull();
    expect((within(section).getByRole("checkbox", { name: "Memory on for this org" }) as HTMLInputElement).disabled).toBe(true);
    expect(within(section).queryByRole("button", { name: "Save policy" })).toBeNull();
    expect(within(section).getByRole("heading", { name: "Audit log" })).not.toBeNull();
  });

  it("shows a member their role and the policy, no members list and no audit log", async () => {
    const backend = installFakeBackend({ team: { yourRole: "member", members: [ME, BOB] } });
    const { section } = await openTeamSettings();
    expect(section.textContent).toContain("Your role: Member");
    expect(within(section).getByText("Only the org's admins and owners see its members.")).not.toBeNull();
    expect(within(section).queryByRole("list", { name: "Members" })).toBeNull();
    expect(within(section).queryByRole("heading", { name: "Audit log" })).toBeNull();
    expect(backend.callsOf("org_audit")).toEqual([]);
    expect((within(section).getByRole("checkbox", { name: "Members' agents may propose team memories" }) as HTMLInputElement).checked).toBe(true);
    expect(within(section).queryByRole("alert")).toBeNull();
  });

  it("says the local bank is a team of one the person owns", async () => {
    installFakeBackend();
    const { section } = await openTeamSettings();
    expect(section.textContent).toContain("Your role: Owner");
    expect(section.textContent).toContain("Your local bank is a team of one, and you own it.");
  });

  it("shows a refused policy change in the server's words", async () => {
    const backend = installFakeBackend({ team: { members: [ME] } });
    const { app, section } = await openTeamSettings();
    // Demoted elsewhere after the page was shown: the server says no, and why.
    backend.team.yourRole = "admin";
    await app.user.click(within(section).getByRole("checkbox", { name: "Memory on for this org" }));
    expect(within(section).getByText(/no memory route answers in this org/)).not.toBeNull();
    await app.user.click(within(section).getByRole("button", { name: "Save policy" }));
    await settle();
    expect(within(section).getByRole("alert").textContent).toBe(`Refused: ${NEEDS_OWNER}`);
  });

  it("renders what members and the audit say as text, never as HTML", async () => {
    installFakeBackend({ team: { members: [ME, member("usr_x", "<img src=x onerror=alert(1)>@example.com", "member")] } });
    const { section } = await openTeamSettings();
    expect(section.querySelector("img")).toBeNull();
    expect(section.textContent).toContain("<img src=x onerror=alert(1)>@example.com");
  });
});
