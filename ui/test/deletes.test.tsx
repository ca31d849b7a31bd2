// Every rule of the deferred, undoable delete (issue 4), on fake timers.
import { act, fireEvent, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { emit } from "@tauri-apps/api/event";
import { listKey } from "../src/memory/queryKeys";
import type { InfiniteData } from "@tanstack/react-query";
import type { ListResponse } from "../src/ipc";
import { installFakeBackend, memories, type FakeBackend } from "./fakeBackend";
import { deleteButton, renderApp, rowTitles, settle, tick, useFakeClock } from "./render";

let backend: FakeBackend;

beforeEach(() => {
  useFakeClock();
  backend = installFakeBackend({ memories: memories(3) });
});

async function startApp() {
  const app = renderApp();
  await settle();
  return app;
}

/** Opens the dialog for `content`, confirms, and lets schedule_delete answer. */
async function confirmDelete(app: ReturnType<typeof renderApp>, content: string) {
  await app.user.click(deleteButton(content));
  const dialog = screen.getByRole("alertdialog");
  await app.user.click(within(dialog).getByRole("button", { name: "Delete" }));
  await settle();
}

const undoButton = () => screen.queryByRole("button", { name: "Undo" });

describe("deferred delete", () => {
  it("veils the row at once, leaves the cache alone, and schedules in the active org", async () => {
    const app = await startApp();
    expect(rowTitles()).toEqual(["Memory number 1", "Memory number 2", "Memory number 3"]);
    await confirmDelete(app, "Memory number 2");

    expect(rowTitles()).toEqual(["Memory number 1", "Memory number 3"]);
    expect(backend.callsOf("schedule_delete")).toEqual([{ orgId: "org_a", id: "mem_0002" }]);
    const cached = app.client.getQueryData<InfiniteData<ListResponse>>(listKey("org_a"));
    expect(cached?.pages[0].memories.map((m) => m.id)).toContain("mem_0002");
    expect(undoButton()).not.toBeNull();
    expect(backend.committed).toEqual([]);
  });

  it("does not bring the row back when a refetch returns it while pending", async () => {
    const app = await startApp();
    await confirmDelete(app, "Memory number 2");
    await tick(1000);
    await app.user.click(screen.getByRole("button", { name: "Refresh" }));
    await settle();
    expect(backend.callsOf("list_memories").length).toBe(2);
    expect(rowTitles()).toEqual(["Memory number 1", "Memory number 3"]);
  });

  it("undo at 4.9 s calls undo_delete, brings the row back and commits nothing", async () => {
    const app = await startApp();
    await confirmDelete(app, "Memory number 2");
    await tick(4900);
    await app.user.click(undoButton()!);
    await settle();

    expect(backend.callsOf("undo_delete")).toEqual([{ id: "mem_0002" }]);
    expect(rowTitles()).toContain("Memory number 2");
    expect(undoButton()).toBeNull();
    await tick(10_000);
    expect(backend.committed).toEqual([]);
    expect(rowTitles()).toContain("Memory number 2");
  });

  it("commits at 6 s in the org captured at confirm time, even after switching org at 1 s", async () => {
    const app = await startApp();
    await confirmDelete(app, "Memory number 2");
    await tick(1000);
    await app.user.selectOptions(screen.getByLabelText("Organization"), "org_b");
    await settle();
    expect(backend.callsOf("set_active_org")).toEqual([{ orgId: "org_b" }]);

    await tick(4999);
    expect(backend.committed).toEqual([]);
    await tick(1);
    await settle();
    expect(backend.callsOf("schedule_delete")).toEqual([{ orgId: "org_a", id: "mem_0002" }]);
    expect(backend.committed).toEqual([{ id: "mem_0002", orgId: "org_a" }]);
    // Settled into the cache of the org it was deleted in.
    const cached = app.client.getQueryData<InfiniteData<ListResponse>>(listKey("org_a"));
    expect(cached?.pages[0].memories.map((m) => m.id)).toEqual(["mem_0001", "mem_0003"]);
  });

  it("shows the Undo toast until 5 s and never at the 6 s commit", async () => {
    const app = await startApp();
    await confirmDelete(app, "Memory number 1");
    expect(screen.getByText("Memory deleted")).not.toBeNull();
    // Announced to screen readers through a polite live region.
    await tick(40); // Radix fills the live region two frames later
    const live = [...document.querySelectorAll('[aria-live="polite"]')].map((el) => el.textContent);
    expect(live.some((text) => text?.includes("Memory deleted"))).toBe(true);
    await tick(4959);
    expect(undoButton()).not.toBeNull();
    await tick(1);
    expect(undoButton()).toBeNull();
    expect(screen.queryByText("Memory deleted")).toBeNull();
    expect(backend.committed).toEqual([]);
    await tick(1000);
    await settle();
    expect(backend.committed).toEqual([{ id: "mem_0001", orgId: "org_a" }]);
  });

  it("keeps two overlapping deletes independent: both scheduled, both settle", async () => {
    const app = await startApp();
    await confirmDelete(app, "Memory number 1");
    await tick(2000);
    await confirmDelete(app, "Memory number 3");
    expect(rowTitles()).toEqual(["Memory number 2"]);
    expect(screen.getAllByRole("button", { name: "Undo" })).toHaveLength(2);

    await tick(4000); // first commits at 6 s, on time despite the second
    await settle();
    expect(backend.committed).toEqual([{ id: "mem_0001", orgId: "org_a" }]);
    await tick(2000);
    await settle();
    expect(backend.committed.map((c) => c.id)).toEqual(["mem_0001", "mem_0003"]);
    expect(rowTitles()).toEqual(["Memory number 2"]);
  });

  it("flushes pending deletes when the panel unmounts", async () => {
    const app = await startApp();
    await confirmDelete(app, "Memory number 2");
    await tick(1000);
    await app.user.click(screen.getByRole("button", { name: "Account settings" }));
    await settle();
    expect(backend.callsOf("flush_deletes")).toHaveLength(1);
    expect(backend.committed).toEqual([{ id: "mem_0002", orgId: "org_a" }]);
    expect(undoButton()).toBeNull(); // nothing left to undo

    await app.user.click(screen.getByRole("button", { name: "Memories" }));
    await settle();
    expect(rowTitles()).toEqual(["Memory number 1", "Memory number 3"]);
  });

  it("offers no Undo when the panel was left before schedule_delete answered", async () => {
    let answer = () => {};
    backend.scheduleGate = new Promise((resolve) => (answer = resolve));
    const app = await startApp();
    await confirmDelete(app, "Memory number 2");
    await app.user.click(screen.getByRole("button", { name: "Account settings" }));
    await settle();
    expect(backend.committed).toEqual([{ id: "mem_0002", orgId: "org_a" }]);
    await act(async () => answer());
    await settle();
    expect(undoButton()).toBeNull();
  });

  it("treats a not_found settle as done: the row is removed from the cache", async () => {
    backend.outcomes.set("mem_0002", { outcome: "not_found" });
    const app = await startApp();
    await confirmDelete(app, "Memory number 2");
    await tick(6000);
    await settle();
    const cached = app.client.getQueryData<InfiniteData<ListResponse>>(listKey("org_a"));
    expect(cached?.pages[0].memories.map((m) => m.id)).toEqual(["mem_0001", "mem_0003"]);
    expect(rowTitles()).toEqual(["Memory number 1", "Memory number 3"]);
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("brings the row back with an error toast when the delete failed", async () => {
    backend.outcomes.set("mem_0002", { outcome: "failed", message: "The server is unavailable" });
    const app = await startApp();
    await confirmDelete(app, "Memory number 2");
    await tick(6000);
    await settle();
    expect(rowTitles()).toEqual(["Memory number 1", "Memory number 2", "Memory number 3"]);
    expect(
      screen.getByText("Could not delete the memory: The server is unavailable"),
    ).not.toBeNull();
  });

  it("brings the row back with an error toast when schedule_delete is refused", async () => {
    backend.failures.set("schedule_delete", { code: "no_account", message: "Not signed in" });
    const app = await startApp();
    await confirmDelete(app, "Memory number 2");
    expect(rowTitles()).toContain("Memory number 2");
    expect(undoButton()).toBeNull();
    expect(screen.getByText("Could not delete the memory: Not signed in")).not.toBeNull();
  });

  it("settles a delete reported by the backend for any org into that org's cache", async () => {
    const app = await startApp();
    await confirmDelete(app, "Memory number 3");
    // Rust may settle early (window closing, flush): the event alone is enough.
    await act(() => emit("memory-delete-settled", { id: "mem_0003", orgId: "org_a", outcome: "deleted" }));
    await settle();
    expect(undoButton()).toBeNull();
    const cached = app.client.getQueryData<InfiniteData<ListResponse>>(listKey("org_a"));
    expect(cached?.pages[0].memories.map((m) => m.id)).toEqual(["mem_0001", "mem_0002"]);
  });

  it("moves keyboard focus to the toolbar after a delete, all by keyboard", async () => {
    const app = await startApp();
    deleteButton("Memory number 2").focus();
    await app.user.keyboard("{Enter}");
    await tick(50); // the dialog moves focus in on the next frame
    const dialog = screen.getByRole("alertdialog");
    // The safe choice has the focus first.
    expect(document.activeElement).toBe(within(dialog).getByRole("button", { name: "Cancel" }));
    await app.user.tab();
    expect(document.activeElement).toBe(within(dialog).getByRole("button", { name: "Delete" }));
    await app.user.keyboard("{Enter}");
    await settle();
    await tick(50);
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole("region", { name: "Memory tools" }));
  });

  it("reaches Undo by keyboard: F8 jumps to the toasts, Enter undoes", async () => {
    const app = await startApp();
    await confirmDelete(app, "Memory number 2");
    await tick(50);
    fireEvent.keyDown(document, { key: "F8", code: "F8" });
    const region = screen.getByRole("region", { name: "Notifications (F8)" });
    expect(region.contains(document.activeElement)).toBe(true);
    await app.user.tab();
    await app.user.tab(); // the toast itself, then its Undo
    expect(document.activeElement).toBe(undoButton());
    await app.user.keyboard("{Enter}");
    await settle();
    expect(backend.callsOf("undo_delete")).toEqual([{ id: "mem_0002" }]);
    expect(rowTitles()).toContain("Memory number 2");
  });

  it("cancelling the dialog deletes nothing and returns focus to the row", async () => {
    const app = await startApp();
    const button = deleteButton("Memory number 2");
    button.focus();
    await app.user.keyboard("{Enter}");
    await tick(50);
    await app.user.keyboard("{Escape}");
    await settle();
    await tick(50);
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(backend.callsOf("schedule_delete")).toEqual([]);
    expect(rowTitles()).toContain("Memory number 2");
    expect(document.activeElement).toBe(button);
  });

  it("keeps a delete the server could not take hidden, lists it as waiting, and Cancel brings the row back", async () => {
    const app = await startApp();
    backend.outcomes.set("mem_0002", { outcome: "waiting", message: "cannot reach the memory service" });
    backend.outcomes.set("mem_0003", { outcome: "waiting", message: "cannot reach the memory service" });
    await confirmDelete(app, "Memory number 2");
    await confirmDelete(app, "Memory number 3");
    await tick(6000);
    await settle();
    expect(rowTitles()).toEqual(["Memory number 1"]);
    const waiting = screen.getByRole("region", { name: "Waiting to delete (offline): 2 memories" });
    expect(within(waiting).getByText("“Memory number 2”")).toBeTruthy();
    expect(undoButton()).toBeNull();

    await app.user.click(within(waiting).getByRole("button", { name: "Cancel deleting “Memory number 2”" }));
    await settle();
    expect(backend.callsOf("undo_delete")).toEqual([{ id: "mem_0002" }]);
    expect(rowTitles()).toEqual(["Memory number 1", "Memory number 2"]);
    expect(screen.getByRole("region", { name: "Waiting to delete (offline): 1 memory" })).toBeTruthy();

    // The server answers at last: Rust reports it deleted, the waiting list empties.
    await emit("memory-delete-settled", { id: "mem_0003", orgId: "org_a", outcome: "deleted" });
    await settle();
    expect(screen.queryByRole("region", { name: /Waiting to delete/ })).toBeNull();
    expect(rowTitles()).toEqual(["Memory number 1", "Memory number 2"]);
  });

  it("hides the deletes Rust kept from before the page started, and lists the waiting ones", async () => {
    backend = installFakeBackend({
      memories: memories(3),
      pendingDeletes: [
        { id: "mem_0001", orgId: "org_a", commitAt: Date.now() - 1000, waiting: true, message: "cannot reach the memory service" },
        { id: "mem_0003", orgId: "org_a", commitAt: Date.now() + 3000, waiting: false },
      ],
    });
    await startApp();
    expect(rowTitles()).toEqual(["Memory number 2"]);
    const waiting = screen.getByRole("region", { name: "Waiting to delete (offline): 1 memory" });
    expect(within(waiting).getByText("“Memory number 1”")).toBeTruthy();
  });
});
