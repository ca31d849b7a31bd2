// Settings → Session sources and Session folders: every source with the folders it is read
// from and a switch (session_sources, set_source_enabled), and the extra folders kept in
// prefs.sessionRoots, changed with set_session_roots (the whole list each time), over the
// fake backend at the IPC boundary.
import { screen, within } from "@testing-library/react";
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { beforeEach, describe, expect, it } from "vitest";
import * as ipc from "../src/ipc";
import type { SessionRoot } from "../src/ipc";
import { isAbsolutePath } from "../src/settings/sessionFolders";
import { installFakeBackend } from "./fakeBackend";
import { renderApp, settle, useFakeClock } from "./render";
import { expectNoViolations } from "./axe";

const OLD_CODEX: SessionRoot = { source: "codex", path: "/mnt/old-laptop/.codex" };
const OLD_CLAUDE: SessionRoot = { source: "claude-code", path: "/mnt/old-laptop/.claude" };
const BACKUP_GEMINI: SessionRoot = { source: "gemini", path: "/backup/.gemini" };

beforeEach(() => useFakeClock());

async function openSettings(roots: SessionRoot[] = []) {
  const backend = installFakeBackend({ state: { prefs: { sessionRoots: roots } } });
  const app = renderApp();
  await settle();
  await app.user.click(screen.getByRole("button", { name: "Account settings" }));
  await settle();
  return { app, backend };
}

function section() {
  return screen.getByRole("region", { name: "Session folders" });
}

function addedList() {
  return within(section()).getByRole("list", { name: "Added folders" });
}

function addedRows() {
  return within(addedList())
    .getAllByRole("listitem")
    .map((row) => row.textContent);
}

function pathField() {
  return screen.getByRole("textbox", { name: "Folder path" }) as HTMLInputElement;
}

function toolSelect() {
  return screen.getByRole("combobox", { name: "Tool" }) as HTMLSelectElement;
}

/** Focus and paste: one input event, like pasting a path. */
async function fillPath(app: ReturnType<typeof renderApp>, text: string) {
  await app.user.click(pathField());
  await app.user.paste(text);
}

describe("session folders", () => {
  it("lists every source with the folders it is read from, found or not, and a switch to turn it off", async () => {
    const { app, backend } = await openSettings();
    const sources = screen.getByRole("region", { name: "Session sources" });
    const rows = within(sources).getAllByRole("listitem").filter((li) => li.classList.contains("source-row"));
    expect(rows.map((row) => row.querySelector(".source-name")?.textContent?.trim())).toEqual([
      "Claude Code", "Codex", "opencode", "Gemini CLI", "Qwen Code", "Cursor", "GitHub Copilot CLI", "Amp", "goose", "Crush", "Zed",
      "Aider", "Cline", "Roo Code", "Windsurf", "Antigravity", "ChatGPT", "Claude.ai",
    ]);
    expect(rows[1].textContent).toContain("Found on this computer");
    expect(within(rows[1]).getByText("/home/me/.codex").tagName).toBe("CODE");
    expect(rows[4].textContent).toContain("Not found on this computer");
    expect(rows[11].textContent).toContain("Aider keeps its history in each project");
    // A tool found here whose sessions are kept encrypted says so, in the person's language.
    expect(rows[14].textContent).toContain("Found on this computer, but cannot be read");
    expect(rows[14].textContent).toContain("Windsurf keeps its Cascade conversations encrypted with a key only Windsurf holds");
    const codex = within(rows[1]).getByRole("checkbox", { name: "Read Codex sessions" }) as HTMLInputElement;
    expect(codex.checked).toBe(true);
    await app.user.click(codex);
    await settle();
    expect(backend.callsOf("set_source_enabled")).toEqual([{ source: "codex", enabled: false }]);
    expect((within(screen.getByRole("region", { name: "Session sources" })).getByRole("checkbox", { name: "Read Codex sessions" }) as HTMLInputElement).checked).toBe(false);
    expect(screen.getByRole("region", { name: "Session sources" }).textContent).toContain("Turned off");
    expect(within(section()).getByText("No folders added.")).not.toBeNull();
  });

  it("lists the folders already added, each with a Remove button", async () => {
    await openSettings([OLD_CODEX, BACKUP_GEMINI]);
    expect(addedRows()).toEqual([
      "Codex/mnt/old-laptop/.codexRemove",
      "Gemini CLI/backup/.geminiRemove",
    ]);
    expect(screen.getByRole("button", { name: "Remove /mnt/old-laptop/.codex (Codex)" })).not.toBeNull();
    expect(screen.getByRole("button", { name: "Remove /backup/.gemini (Gemini CLI)" })).not.toBeNull();
    expect(screen.queryByText("No folders added.")).toBeNull();
  });

  it("adding sends the whole list with the new folder, then shows it and clears the field", async () => {
    const { app, backend } = await openSettings([OLD_CODEX]);
    await app.user.selectOptions(toolSelect(), "claude-code");
    await fillPath(app, "  /mnt/old-laptop/.claude ");
    await app.user.click(within(section()).getByRole("button", { name: "Add" }));
    await settle();
    expect(backend.callsOf("set_session_roots")).toEqual([{ roots: [OLD_CODEX, OLD_CLAUDE] }]);
    expect(addedRows()).toEqual([
      "Codex/mnt/old-laptop/.codexRemove",
      "Claude Code/mnt/old-laptop/.claudeRemove",
    ]);
    expect(pathField().value).toBe("");
    expect(within(section()).getByRole("status").textContent).toBe("Added /mnt/old-laptop/.claude.");
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("accepts Windows drive and UNC paths", async () => {
    const { app, backend } = await openSettings();
    await app.user.selectOptions(toolSelect(), "opencode");
    await fillPath(app, "C:\\Users\\me\\.local\\share\\opencode");
    await app.user.click(within(section()).getByRole("button", { name: "Add" }));
    await settle();
    expect(backend.callsOf("set_session_roots")).toEqual([
      { roots: [{ source: "opencode", path: "C:\\Users\\me\\.local\\share\\opencode" }] },
    ]);
    expect(addedRows()).toEqual(["opencodeC:\\Users\\me\\.local\\share\\opencodeRemove"]);
    expect(isAbsolutePath("C:/Users/me/.codex")).toBe(true);
    expect(isAbsolutePath("\\\\nas\\share\\.codex")).toBe(true);
    expect(isAbsolutePath("/home/me/.codex")).toBe(true);
    expect(isAbsolutePath("~/.codex")).toBe(false);
    expect(isAbsolutePath("relative/dir")).toBe(false);
    expect(isAbsolutePath("C:relative")).toBe(false);
  });

  it("removing sends the list without that folder and moves focus to the next Remove", async () => {
    const { app, backend } = await openSettings([OLD_CODEX, OLD_CLAUDE, BACKUP_GEMINI]);
    await app.user.click(screen.getByRole("button", { name: "Remove /mnt/old-laptop/.claude (Claude Code)" }));
    await settle();
    expect(backend.callsOf("set_session_roots")).toEqual([{ roots: [OLD_CODEX, BACKUP_GEMINI] }]);
    expect(addedRows()).toEqual(["Codex/mnt/old-laptop/.codexRemove", "Gemini CLI/backup/.geminiRemove"]);
    expect(document.activeElement).toBe(
      screen.getByRole("button", { name: "Remove /backup/.gemini (Gemini CLI)" }),
    );
    expect(within(section()).getByRole("status").textContent).toBe("Removed /mnt/old-laptop/.claude.");
  });

  it("a refusal from the backend is shown next to the field, and what was typed is kept", async () => {
    const { app, backend } = await openSettings([OLD_CODEX]);
    backend.failures.set("set_session_roots", {
      code: "invalid_argument",
      message: "at most 20 session folders can be added",
    });
    await fillPath(app, "/srv/more/.claude");
    await app.user.click(within(section()).getByRole("button", { name: "Add" }));
    await settle();
    expect(backend.callsOf("set_session_roots")).toEqual([
      { roots: [OLD_CODEX, { source: "claude-code", path: "/srv/more/.claude" }] },
    ]);
    const alert = within(section()).getByRole("alert");
    expect(alert.textContent).toBe("at most 20 session folders can be added");
    expect(pathField().value).toBe("/srv/more/.claude");
    expect(pathField().getAttribute("aria-invalid")).toBe("true");
    expect(pathField().getAttribute("aria-describedby")?.split(" ")).toContain(alert.id);
    expect(document.activeElement).toBe(pathField());
    expect(addedRows()).toEqual(["Codex/mnt/old-laptop/.codexRemove"]);

    // Editing the path clears the message; a second try that works goes through.
    backend.failures.delete("set_session_roots");
    await app.user.type(pathField(), "x");
    expect(within(section()).queryByRole("alert")).toBeNull();
    await app.user.keyboard("{Enter}");
    await settle();
    expect(addedRows()).toEqual([
      "Codex/mnt/old-laptop/.codexRemove",
      "Claude Code/srv/more/.claudexRemove",
    ]);
  });

  it("a failed removal keeps the row and says why", async () => {
    const { app, backend } = await openSettings([OLD_CODEX]);
    backend.failures.set("set_session_roots", { code: "internal", message: "could not save preferences" });
    const remove = screen.getByRole("button", { name: "Remove /mnt/old-laptop/.codex (Codex)" });
    await app.user.click(remove);
    await settle();
    expect(within(section()).getByRole("alert").textContent).toBe("could not save preferences");
    expect(addedRows()).toEqual(["Codex/mnt/old-laptop/.codexRemove"]);
    expect(document.activeElement).toBe(remove);
  });

  it.each(["relative/dir", "~/.codex", ".codex", "C:relative"])(
    "a path that is not absolute (%s) gets a hint and is not sent",
    async (path) => {
      const { app, backend } = await openSettings();
      await fillPath(app, path);
      await app.user.click(within(section()).getByRole("button", { name: "Add" }));
      await settle();
      expect(backend.callsOf("set_session_roots")).toEqual([]);
      expect(within(section()).getByRole("alert").textContent).toBe(
        "Give the full path, starting with / (or a drive such as C:\\ on Windows). ~ and relative paths are not accepted.",
      );
      expect(pathField().value).toBe(path);
      expect(pathField().getAttribute("aria-invalid")).toBe("true");
    },
  );

  it("an empty path or one already listed is not sent", async () => {
    const { app, backend } = await openSettings([OLD_CODEX]);
    await app.user.click(within(section()).getByRole("button", { name: "Add" }));
    expect(within(section()).getByRole("alert").textContent).toBe("Enter the folder's path.");
    await app.user.selectOptions(toolSelect(), "codex");
    await fillPath(app, OLD_CODEX.path);
    await app.user.click(within(section()).getByRole("button", { name: "Add" }));
    await settle();
    expect(within(section()).getByRole("alert").textContent).toBe("This folder is already in the list.");
    expect(backend.callsOf("set_session_roots")).toEqual([]);
  });

  it("works with the keyboard alone", async () => {
    const { app, backend } = await openSettings([OLD_CODEX]);
    (document.activeElement as HTMLElement | null)?.blur();
    // Tab from the top of the page to the Tool select.
    for (let i = 0; i < 80 && document.activeElement !== toolSelect(); i++) await app.user.tab();
    expect(document.activeElement).toBe(toolSelect());
    await app.user.tab();
    expect(document.activeElement).toBe(pathField());
    await app.user.keyboard("relative");
    await app.user.keyboard("{Enter}");
    await settle();
    expect(backend.callsOf("set_session_roots")).toEqual([]);
    expect(document.activeElement).toBe(pathField());
    await app.user.clear(pathField());
    await app.user.keyboard("/mnt/copy/.claude{Enter}");
    await settle();
    expect(backend.callsOf("set_session_roots")).toEqual([
      { roots: [OLD_CODEX, { source: "claude-code", path: "/mnt/copy/.claude" }] },
    ]);

    // Back up to the list and remove the first folder with Space, then the second with Enter.
    const firstRemove = screen.getByRole("button", { name: "Remove /mnt/old-laptop/.codex (Codex)" });
    for (let i = 0; i < 10 && document.activeElement !== firstRemove; i++) await app.user.tab({ shift: true });
    expect(document.activeElement).toBe(firstRemove);
    await app.user.keyboard(" ");
    await settle();
    expect(backend.callsOf("set_session_roots")[1]).toEqual({
      roots: [{ source: "claude-code", path: "/mnt/copy/.claude" }],
    });
    const lastRemove = screen.getByRole("button", { name: "Remove /mnt/copy/.claude (Claude Code)" });
    expect(document.activeElement).toBe(lastRemove);
    await app.user.keyboard("{Enter}");
    await settle();
    expect(backend.callsOf("set_session_roots")[2]).toEqual({ roots: [] });
    // The list is gone: focus lands on the path field rather than the page.
    expect(document.activeElement).toBe(pathField());
    expect(within(section()).getByText("No folders added.")).not.toBeNull();
  });

  it("is translated into Simplified Chinese", async () => {
    installFakeBackend({ state: { prefs: { language: "zh-CN", sessionRoots: [OLD_CODEX] } } });
    const app = renderApp();
    await settle();
    await app.user.click(screen.getByRole("button", { name: "账户设置" }));
    await settle();
    const zh = screen.getByRole("region", { name: "会话文件夹" });
    expect(screen.getByRole("region", { name: "会话来源" }).textContent).toContain("已在这台电脑上找到");
    expect(within(screen.getByRole("region", { name: "会话来源" })).getByRole("checkbox", { name: "读取 Codex 的会话" })).not.toBeNull();
    expect(within(zh).getByRole("button", { name: "移除 /mnt/old-laptop/.codex（Codex）" })).not.toBeNull();
    expect(within(zh).getByRole("textbox", { name: "文件夹路径" })).not.toBeNull();
    await app.user.click(within(zh).getByRole("textbox", { name: "文件夹路径" }));
    await app.user.paste("~/x");
    await app.user.click(within(zh).getByRole("button", { name: "添加" }));
    expect(within(zh).getByRole("alert").textContent).toContain("不支持 ~ 和相对路径");
  });

  it("has no axe violations with folders listed", async () => {
    await openSettings([OLD_CODEX, BACKUP_GEMINI]);
    await expectNoViolations();
  });

  it("has no axe violations with a refusal shown", async () => {
    const { app } = await openSettings();
    await fillPath(app, "relative/dir");
    await app.user.click(within(section()).getByRole("button", { name: "Add" }));
    await settle();
    expect(within(section()).getByRole("alert")).not.toBeNull();
    await expectNoViolations();
  });
});

it("setSessionRoots maps to set_session_roots with the whole list", async () => {
  const calls: [string, unknown][] = [];
  mockIPC((cmd, args) => {
    calls.push([cmd, args ?? {}]);
    return null;
  });
  await ipc.setSessionRoots([OLD_CODEX, OLD_CLAUDE]);
  await ipc.setSessionRoots([]);
  expect(calls).toEqual([
    ["set_session_roots", { roots: [OLD_CODEX, OLD_CLAUDE] }],
    ["set_session_roots", { roots: [] }],
  ]);
  clearMocks();
});
