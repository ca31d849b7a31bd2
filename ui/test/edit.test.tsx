// Editing a memory in the panel (keyboard-first) and restoring an earlier version.
import { screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { installFakeBackend, memories, type FakeBackend } from "./fakeBackend";
import { renderApp, rowFor, rowTitles, settle, useFakeClock } from "./render";

let backend: FakeBackend;

beforeEach(() => {
  useFakeClock();
  backend = installFakeBackend({ memories: memories(3) });
});

async function start() {
  const app = renderApp();
  await settle();
  return app;
}

async function openEditor(app: ReturnType<typeof renderApp>, content: string) {
  await app.user.click(within(rowFor(content)).getByRole("button", { name: "Edit memory" }));
  await settle();
  return screen.getByRole("form", { name: "Edit memory" });
}

describe("editing a memory", () => {
  it("saves with Enter in the org of the panel and shows the new wording at once", async () => {
    const app = await start();
    const form = await openEditor(app, "Memory number 2");
    const field = within(form).getByRole("textbox", { name: "Memory" });
    expect(document.activeElement).toBe(field);
    await app.user.clear(field);
    await app.user.type(field, "Memory number 2, reworded");
    const tags = within(form).getByRole("textbox", { name: "Tags (comma-separated)" });
    await app.user.clear(tags);
    await app.user.type(tags, "one, two");
    await app.user.click(field);
    await app.user.keyboard("{Enter}");
    await settle();
    expect(backend.callsOf("edit_memory")).toEqual([
      { orgId: "org_a", id: "mem_0002", edit: { content: "Memory number 2, reworded", tags: ["one", "two"] } },
    ]);
    expect(rowTitles()).toEqual(["Memory number 1", "Memory number 2, reworded", "Memory number 3"]);
    expect(screen.queryByRole("form", { name: "Edit memory" })).toBeNull();
    expect(within(rowFor("Memory number 2, reworded")).getByText("one")).toBeTruthy();
  });

  it("cancels with Esc and sends nothing", async () => {
    const app = await start();
    const form = await openEditor(app, "Memory number 1");
    await app.user.type(within(form).getByRole("textbox", { name: "Memory" }), " changed");
    await app.user.keyboard("{Escape}");
    await settle();
    expect(backend.callsOf("edit_memory")).toEqual([]);
    expect(rowTitles()).toEqual(["Memory number 1", "Memory number 2", "Memory number 3"]);
  });

  it("says why an edit was refused and keeps the form and the old wording", async () => {
    const app = await start();
    backend.editError = { code: "looks_like_secret", message: "This looks like a secret (GitHub token in content)." };
    const form = await openEditor(app, "Memory number 3");
    await app.user.keyboard("{Enter}");
    await settle();
    expect(within(form).getByRole("alert").textContent).toContain("GitHub token");
    expect(screen.getByRole("form", { name: "Edit memory" })).toBe(form);
    expect(rowTitles()).toEqual(["Memory number 1", "Memory number 2"]);
  });

  it("marks an edited memory, shows its history and restores a version", async () => {
    const app = await start();
    let form = await openEditor(app, "Memory number 1");
    await app.user.clear(within(form).getByRole("textbox", { name: "Memory" }));
    await app.user.type(within(form).getByRole("textbox", { name: "Memory" }), "Second wording");
    await app.user.keyboard("{Enter}");
    await settle();
    const row = rowFor("Second wording");
    const edited = within(row).getByRole("button", { name: "Edited" });
    expect(edited.getAttribute("aria-expanded")).toBe("false");
    await app.user.click(edited);
    await settle();
    expect(edited.getAttribute("aria-expanded")).toBe("true");
    const restore = within(row).getByRole("button", { name: "Restore the version “Memory number 1”" });
    await app.user.click(restore);
    await settle();
    expect(backend.callsOf("restore_revision")).toEqual([{ orgId: "org_a", id: "mem_0001", revisionId: "mrev_1" }]);
    expect(rowTitles()[0]).toBe("Memory number 1");
    form = await openEditor(app, "Memory number 1");
    expect(within(form).getByRole("textbox", { name: "Memory" })).toBeTruthy();
  });
});
