// axe-core on every screen of the app: no violations. (color-contrast needs real
// layout and canvas, which jsdom lacks, so axe cannot judge it here.)
import { screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { installFakeBackend, memories, memory } from "./fakeBackend";
import { deleteButton, renderApp, settle, tick, useFakeClock } from "./render";
import { expectNoViolations } from "./axe";

async function start() {
  const app = renderApp();
  await settle();
  return app;
}

const richMemory = memory(1, {
  content: "<img src=x onerror=alert(1)>",
  tags: ["xss", "test"],
  contexts: [
    { id: "c1", snippet: "a snippet", citation: { conversationId: "ses_1", messageId: "msg_1" }, origin: null, createdAt: "2026-01-01T00:00:00Z" },
  ],
});

beforeEach(() => useFakeClock());

describe("accessibility (axe)", () => {
  it("not signed in", async () => {
    installFakeBackend({ state: { account: null, user: null, orgs: [], activeOrgId: null } });
    await start();
    await expectNoViolations();
  });

  it("no active org", async () => {
    installFakeBackend({ state: { activeOrgId: null } });
    await start();
    await expectNoViolations();
  });

  it("loading", async () => {
    const backend = installFakeBackend();
    backend.listGate = new Promise(() => {});
    await start();
    expect(document.querySelector(".skeleton-row")).not.toBeNull();
    await expectNoViolations();
  });

  it("error", async () => {
    const backend = installFakeBackend();
    backend.listError = { code: "unreachable", message: "The memory service is unreachable" };
    await start();
    expect(screen.getByRole("alert")).not.toBeNull();
    await expectNoViolations();
  });

  it("empty", async () => {
    installFakeBackend({ memories: [] });
    await start();
    await expectNoViolations();
  });

  it("list, with more pages to come", async () => {
    installFakeBackend({ memories: [richMemory, ...memories(120).slice(1)] });
    await start();
    await expectNoViolations();
  });

  it("search with no results", async () => {
    installFakeBackend({ memories: memories(3) });
    const app = await start();
    await app.user.type(screen.getByRole("searchbox"), "nothing here");
    await tick(300);
    await settle();
    expect(screen.getByText(/No memories match/)).not.toBeNull();
    await expectNoViolations();
  });

  it("delete confirmation dialog", async () => {
    installFakeBackend({ memories: [richMemory] });
    const app = await start();
    await app.user.click(deleteButton(richMemory.content));
    await tick(50);
    expect(screen.getByRole("alertdialog")).not.toBeNull();
    await expectNoViolations();
  });

  it("undo toast and error toast", async () => {
    const backend = installFakeBackend({ memories: memories(2) });
    backend.outcomes.set("mem_0002", { outcome: "failed", message: "boom" });
    const app = await start();
    for (const content of ["Memory number 1", "Memory number 2"]) {
      await app.user.click(deleteButton(content));
      await tick(50);
      await app.user.click(within(screen.getByRole("alertdialog")).getByRole("button", { name: "Delete" }));
      await tick(50);
    }
    await tick(6000);
    await settle();
    expect(screen.getByText("Could not delete the memory: boom")).not.toBeNull();
    await expectNoViolations();
  });

  it("account settings", async () => {
    installFakeBackend({ state: { account: { kind: "team", url: "https://m.example", fromEnv: false } } });
    const app = await start();
    await app.user.click(screen.getByRole("button", { name: "Account settings" }));
    await settle();
    await expectNoViolations();
  });

  it("memory panel turned off", async () => {
    installFakeBackend({ state: { prefs: { memoryEnabled: false, language: null } } });
    await start();
    await expectNoViolations();
  });
});
