// Settings → Data: Export… and Import… hand the file dialog and the work to Rust; the
// section shows the progress Rust reports, then what came of it, and stays usable.
import { screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import type { Language } from "../src/ipc";
import { installFakeBackend, memories } from "./fakeBackend";
import { renderApp, settle, useFakeClock } from "./render";

beforeEach(() => useFakeClock());

async function openData() {
  const app = renderApp();
  await settle();
  await app.user.click(screen.getByRole("button", { name: "Account settings" }));
  await settle();
  const section = screen.getByRole("region", { name: "Data" });
  return { app, section };
}

function gate() {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe("Settings → Data", () => {
  it("exports through Rust, shows an indeterminate bar while it runs, then where the file went", async () => {
    const backend = installFakeBackend({ memories: memories(3) });
    const held = gate();
    backend.transferGate = held.promise;
    const { app, section } = await openData();
    await app.user.click(within(section).getByRole("button", { name: "Export…" }));
    await settle();
    expect(backend.callsOf("export_memories")).toEqual([{ orgId: "org_a" }]);
    const bar = within(section).getByRole("progressbar", { name: "Progress" });
    expect(bar.getAttribute("value")).toBeNull(); // the total is unknown: indeterminate
    expect(within(section).getByRole("button", { name: "Import…" })).toHaveProperty("disabled", true);
    held.open();
    await settle();
    expect(within(section).queryByRole("progressbar")).toBeNull();
    expect(within(section).getByRole("status").textContent).toBe("Exported 3 memories to /home/me/memory-bank-export.jsonl");
  });

  it("imports with a progress bar over the file's lines and lists the lines not imported", async () => {
    const backend = installFakeBackend({ memories: memories(1) });
    backend.importFile = { lines: 5, refused: [{ line: 4, error: "looks_like_secret", message: "this looks like a secret (GitHub token)" }] };
    const held = gate();
    backend.transferGate = held.promise;
    const { app, section } = await openData();
    await app.user.click(within(section).getByRole("button", { name: "Import…" }));
    await settle();
    const bar = within(section).getByRole("progressbar", { name: "Progress" }) as HTMLProgressElement;
    expect([bar.max, bar.value]).toEqual([5, 0]);
    expect(within(section).getByText("Importing… line 0 of 5")).not.toBeNull();
    // The rest of the window answers meanwhile.
    await app.user.click(screen.getByRole("button", { name: "Memories" }));
    await settle();
    await app.user.click(screen.getByRole("button", { name: "Account settings" }));
    await settle();
    held.open();
    await settle();
    const done = screen.getByRole("region", { name: "Data" });
    expect(within(done).getByRole("status").textContent).toContain(
      "Imported from /home/me/memory-bank-export.jsonl: 4 new, 0 already there, 1 not imported",
    );
    expect(within(done).getByText("this looks like a secret (GitHub token)").closest("li")?.textContent).toBe(
      "4 this looks like a secret (GitHub token)",
    );
    await app.user.click(screen.getByRole("button", { name: "Memories" }));
    await settle();
    expect(screen.getByText("Imported 1", { selector: ".row-title" })).not.toBeNull();
  });

  it("says which lines were imported under a new id, in English and in Chinese", async () => {
    const cases: { language: Language; settings: string; data: string; import: string; says: string; listed: string }[] = [
      { language: "en", settings: "Account settings", data: "Data", import: "Import…", says: "2 lines were imported under new ids, as their own could not be kept", listed: "Lines under new ids" },
      { language: "zh-CN", settings: "账户设置", data: "数据", import: "导入…", says: "有 2 行因原有 ID 无法保留，已使用新 ID 导入", listed: "使用新 ID 的行" },
    ];
    for (const want of cases) {
      const backend = installFakeBackend({ memories: memories(1), state: { prefs: { language: want.language } } });
      backend.importFile = { lines: 3, refused: [], newIds: [{ line: 1, id: "mem_new1" }, { line: 3, id: "mem_new3" }] };
      const app = renderApp();
      await settle();
      await app.user.click(screen.getByRole("button", { name: want.settings }));
      await settle();
      const section = screen.getByRole("region", { name: want.data });
      await app.user.click(within(section).getByRole("button", { name: want.import }));
      await settle();
      const status = within(section).getByRole("status");
      expect(status.textContent).toContain(want.says);
      expect(within(status).getByText(want.listed)).not.toBeNull();
      expect(within(status).getByText("mem_new3").closest("li")?.textContent).toBe("3 mem_new3");
      app.unmount();
    }
  });

  it("a cancelled dialog changes nothing and says nothing; a failure is shown", async () => {
    const backend = installFakeBackend();
    backend.pickedFile = null;
    const { app, section } = await openData();
    await app.user.click(within(section).getByRole("button", { name: "Export…" }));
    await settle();
    expect(within(section).getByRole("status").textContent).toBe("");
    backend.failures.set("import_memories", { code: "file", message: "cannot read /home/me/x.jsonl: permission denied" });
    await app.user.click(within(section).getByRole("button", { name: "Import…" }));
    await settle();
    expect(within(section).getByRole("alert").textContent).toBe("Could not finish: cannot read /home/me/x.jsonl: permission denied");
  });
});
