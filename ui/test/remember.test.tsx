// "Remember…": prefill, selection, what save_memory gets, secrets, errors, no org.
import { act, fireEvent, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import type { AppState } from "../src/ipc";
import { appStateKey } from "../src/memory/queryKeys";
import { installFakeBackend } from "./fakeBackend";
import { session, transcript } from "./fakeSessions";
import { openFirstListedSession, renderApp, settle, showSessions, tick, useFakeClock } from "./render";

beforeEach(() => useFakeClock());

const KEY = "ghp_0123456789abcdefghijABCDEFGHIJ0123";

async function openDialogOn(text: string, state?: Partial<AppState>, selection?: string) {
  const backend = installFakeBackend({
    state,
    sessions: { sessions: [session(1, { title: "Fix the importer" })], transcripts: { ses_1: transcript(3, (i) => (i === 2 ? text : `m${i}`)) } },
  });
  const app = renderApp();
  await settle();
  await showSessions(app);
  await openFirstListedSession(app);
  const message = document.querySelector('[data-message-index="2"]') as HTMLElement;
  if (selection) {
    const node = message.querySelector(".message-text")!.firstChild as Text;
    const start = text.indexOf(selection);
    const range = document.createRange();
    range.setStart(node, start);
    range.setEnd(node, start + selection.length);
    window.getSelection()!.removeAllRanges();
    window.getSelection()!.addRange(range);
    // user-event's pointer would move the selection itself; report the mouseup only.
    fireEvent.mouseUp(message.querySelector(".message-text")!);
    await settle();
    await app.user.click(within(message).getByRole("button", { name: "Remember selection…" }));
  } else {
    await app.user.click(within(message).getByRole("button", { name: "Remember this message" }));
  }
  await tick(50);
  const dialog = screen.getByRole("dialog", { name: "Remember…" });
  const field = (name: string) => within(dialog).getByLabelText(name) as HTMLTextAreaElement;
  const save = within(dialog).getByRole("button", { name: "Save" }) as HTMLButtonElement;
  return { app, backend, dialog, field, save };
}

describe("Remember dialog", () => {
  it("prefills content and snippet from the message, shows the citation, saves nothing until Save", async () => {
    const { app, backend, dialog, field, save } = await openDialogOn("  We deploy on Tuesdays.\n ");
    expect(field("Memory").value).toBe("We deploy on Tuesdays.");
    expect(field("Excerpt kept as its source").value).toBe("We deploy on Tuesdays.");
    for (const text of ["Fix the importer", "ses_1", "msg_2", "searched_conversation"])
      expect(within(dialog).getByText(text)).not.toBeNull();
    expect(backend.callsOf("save_memory")).toEqual([]);
    await app.user.clear(field("Memory"));
    await app.user.type(field("Memory"), "Deploys happen on Tuesdays");
    await app.user.type(within(dialog).getByLabelText("Tags (optional)"), "ops, deploys");
    expect(backend.callsOf("save_memory")).toEqual([]);
    await app.user.click(save);
    await settle();
    expect(backend.callsOf("save_memory")).toEqual([
      {
        orgId: "org_a",
        content: "Deploys happen on Tuesdays",
        tags: ["ops", "deploys"],
        contexts: [{ snippet: "We deploy on Tuesdays.", conversationId: "ses_1", messageId: "msg_2", origin: "searched_conversation" }],
      },
    ]);
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(screen.getByText("Memory saved")).not.toBeNull();
    // The Memories panel lists it (its list query was invalidated).
    await app.user.click(screen.getByRole("button", { name: "Memories" }));
    await settle();
    expect(screen.getByText("Deploys happen on Tuesdays", { selector: ".row-title" })).not.toBeNull();
  });

  it("names memories worded alike once typing pauses, and can change one instead of saving a second", async () => {
    const { app, backend, dialog, field } = await openDialogOn("We deploy on Tuesdays.");
    backend.memories = [
      { ...backend.memories[0], id: "mem_old", content: "We deploy on Fridays.", createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z", tags: null, contexts: [], source: "chat", scope: "user", orgId: "org_a" },
    ];
    await app.user.clear(field("Memory"));
    await app.user.type(field("Memory"), "We deploy on Fridays and Tuesdays.");
    await tick(450);
    await settle();
    const hint = within(dialog).getByRole("region", { name: "You already have:" });
    expect(hint.textContent).toContain("We deploy on Fridays.");
    expect(backend.callsOf("find_similar").at(-1)).toEqual({ orgId: "org_a", content: "We deploy on Fridays and Tuesdays." });
    await app.user.click(within(hint).getByRole("button", { name: /^Change “We deploy on Fridays\.” to the new sentence/ }));
    await settle();
    expect(backend.callsOf("save_memory")).toEqual([]);
    expect(backend.callsOf("edit_memory")).toEqual([{ orgId: "org_a", id: "mem_old", edit: { content: "We deploy on Fridays and Tuesdays." } }]);
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(screen.getByText("Memory changed")).not.toBeNull();
  });

  it("shows no hint when nothing is alike", async () => {
    const { backend, dialog } = await openDialogOn("We deploy on Tuesdays.");
    await tick(450);
    await settle();
    expect(backend.callsOf("find_similar").length).toBeGreaterThan(0);
    expect(within(dialog).queryByRole("region", { name: "You already have:" })).toBeNull();
  });

  it("caps content at 8000 and the snippet at 4000 characters", async () => {
    const { field } = await openDialogOn("x".repeat(9000));
    expect(field("Memory").value).toHaveLength(8000);
    expect(field("Excerpt kept as its source").value).toHaveLength(4000);
  });

  it("a selection inside the message prefills both fields with the selected text", async () => {
    const { field } = await openDialogOn("Long chat. The staging DB refreshes on Sundays. More chat.", undefined, "The staging DB refreshes on Sundays.");
    expect(field("Memory").value).toBe("The staging DB refreshes on Sundays.");
    expect(field("Excerpt kept as its source").value).toBe("The staging DB refreshes on Sundays.");
  });

  it("uses the org active when Save is pressed", async () => {
    const { app, backend, save, field } = await openDialogOn("Prefers pnpm");
    act(() => app.client.setQueryData<AppState>(appStateKey, (s) => ({ ...s!, activeOrgId: "org_b" })));
    expect(field("Memory").value).toBe("Prefers pnpm");
    await app.user.click(save);
    await settle();
    expect(backend.callsOf("save_memory")[0].orgId).toBe("org_b");
  });

  it("errors show inline and keep the content", async () => {
    const { app, backend, dialog, field, save } = await openDialogOn("Prefers pnpm");
    backend.saveError = { code: "unreachable", message: "The memory service is unreachable" };
    await app.user.type(field("Memory"), " always");
    await app.user.click(save);
    await settle();
    expect(within(dialog).getByRole("alert").textContent).toBe("Could not save the memory: The memory service is unreachable");
    expect(field("Memory").value).toBe("Prefers pnpm always");
  });

  it("without an active org it says so and Save is disabled", async () => {
    const { save, dialog } = await openDialogOn("Prefers pnpm", { activeOrgId: null });
    expect(within(dialog).getByText("Sign in and choose an organization before saving memories.")).not.toBeNull();
    expect(save.disabled).toBe(true);
  });

  it("highlights secrets in <mark>, lists what was found, and blocks Save until they are removed", async () => {
    const { app, backend, dialog, field, save } = await openDialogOn(`my token is ${KEY} ok`);
    const alert = within(dialog).getByRole("alert");
    expect(alert.textContent).toContain("This looks like a secret: GitHub token. Remove it before saving.");
    expect(Array.from(alert.querySelectorAll("mark"), (m) => m.textContent)).toEqual([KEY, KEY]);
    expect(save.disabled).toBe(true);
    await app.user.clear(field("Memory"));
    await app.user.type(field("Memory"), "Uses a GitHub token for CI");
    expect(save.disabled).toBe(true); // still in the snippet
    await app.user.clear(field("Excerpt kept as its source"));
    await app.user.type(field("Excerpt kept as its source"), "my token is REDACTED ok");
    expect(within(dialog).queryByRole("alert")).toBeNull();
    expect(save.disabled).toBe(false);
    await app.user.click(save);
    await settle();
    expect(backend.callsOf("save_memory")[0].contexts).toEqual([
      { snippet: "my token is REDACTED ok", conversationId: "ses_1", messageId: "msg_2", origin: "searched_conversation" },
    ]);
  });

  it("secret text is shown as text: an XSS payload beside a key creates no element", async () => {
    const { dialog } = await openDialogOn(`<img src=x onerror=alert(1)> ${KEY}`);
    expect(dialog.querySelector("img")).toBeNull();
    expect(document.querySelector("main img")).toBeNull();
  });
});
