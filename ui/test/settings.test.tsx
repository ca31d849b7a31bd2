// Account settings, preferences and language.
import { screen } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { toSupported } from "../src/i18n";
import { installFakeBackend, memories } from "./fakeBackend";
import { renderApp, rowTitles, settle, useFakeClock } from "./render";

beforeEach(() => useFakeClock());

/** Focus and paste: one input event, like a password manager or a paste. */
async function fill(app: ReturnType<typeof renderApp>, field: HTMLElement, text: string) {
  await app.user.click(field);
  await app.user.paste(text);
}

async function openSettings() {
  const app = renderApp();
  await settle();
  await app.user.click(screen.getByRole("button", { name: "Account settings" }));
  await settle();
  return app;
}

describe("account settings", () => {
  it("signs in to a team server with URL and token, then clears the token field", async () => {
    const backend = installFakeBackend({ state: { account: null, user: null } });
    const app = await openSettings();
    await app.user.click(screen.getByRole("radio", { name: /Team server/ }));
    await fill(app, screen.getByLabelText("Server URL"), "https://memory.example.com");
    await fill(app, screen.getByLabelText("Access token"), "tok_secret");
    await app.user.click(screen.getByRole("button", { name: "Sign in" }));
    await settle();
    expect(backend.callsOf("sign_in_team")).toEqual([
      { url: "https://memory.example.com", token: "tok_secret" },
    ]);
    expect((screen.getByLabelText("Access token") as HTMLInputElement).value).toBe("");
    expect(screen.getByText(/Team server https:\/\/memory.example.com/)).not.toBeNull();
  });

  it("shows a sign-in failure from the backend", async () => {
    const backend = installFakeBackend({ state: { account: null, user: null } });
    const app = await openSettings();
    await app.user.click(screen.getByRole("radio", { name: /Team server/ }));
    backend.failures.set("sign_in_team", { code: "unauthorized", message: "The token was not accepted" });
    await fill(app, screen.getByLabelText("Server URL"), "https://m.example");
    await fill(app, screen.getByLabelText("Access token"), "bad");
    await app.user.click(screen.getByRole("button", { name: "Sign in" }));
    await settle();
    expect(screen.getByRole("alert").textContent).toBe("The token was not accepted");
  });

  it("switches to the local account and signs out of a team", async () => {
    const backend = installFakeBackend({
      state: { account: { kind: "team", url: "https://m.example", fromEnv: false } },
    });
    const app = await openSettings();
    await app.user.click(screen.getByRole("button", { name: "Sign out" }));
    await settle();
    expect(backend.callsOf("sign_out")).toHaveLength(1);
    expect(screen.getByText("Not signed in")).not.toBeNull();
    await app.user.click(screen.getByRole("radio", { name: /Local/ }));
    await app.user.click(screen.getByRole("button", { name: "Use the local account" }));
    await settle();
    expect(backend.callsOf("use_local_account")).toHaveLength(1);
    expect(screen.getByText("Local account")).not.toBeNull();
  });

  it("says when the local bank is not encrypted because no keyring answered, and only then", async () => {
    installFakeBackend({ state: { localBankUnencrypted: true } });
    await openSettings();
    expect(screen.getByText(/Your memories on this computer are not encrypted yet/).textContent).toContain("keyring");
  });

  it("says nothing of encryption when the local bank is encrypted", async () => {
    installFakeBackend();
    await openSettings();
    expect(screen.queryByText(/not encrypted yet/)).toBeNull();
  });

  it("locks the account choice when env variables select the server", async () => {
    installFakeBackend({ state: { account: { kind: "team", url: "https://env.example", fromEnv: true } } });
    await openSettings();
    expect(screen.getByText(/Set by environment variables/)).not.toBeNull();
    expect(screen.getByRole("radio", { name: /Local/ }).matches(":disabled")).toBe(true);
    expect(screen.queryByLabelText("Access token")).toBeNull();
  });

  it("the memory flag hides and shows the panel", async () => {
    const backend = installFakeBackend({ memories: memories(1) });
    const app = await openSettings();
    await app.user.click(screen.getByRole("checkbox", { name: "Show the memory panel" }));
    await settle();
    expect(backend.callsOf("set_prefs")).toEqual([{ memoryEnabled: false }]);
    await app.user.click(screen.getByRole("button", { name: "Memories" }));
    await settle();
    expect(rowTitles()).toEqual([]);
    await app.user.click(screen.getByRole("button", { name: "Turn it on in Account settings" }));
    await app.user.click(screen.getByRole("checkbox", { name: "Show the memory panel" }));
    await app.user.click(screen.getByRole("button", { name: "Memories" }));
    await settle();
    expect(rowTitles()).toEqual(["Memory number 1"]);
  });
});

describe("search settings", () => {
  it("search by words only is a preference the person turns on and off", async () => {
    const backend = installFakeBackend({ memories: memories(1) });
    const app = await openSettings();
    const checkbox = () => screen.getByRole("checkbox", { name: "Search by words only" }) as HTMLInputElement;
    expect(checkbox().checked).toBe(false);
    const help = document.getElementById(checkbox().getAttribute("aria-describedby") ?? "");
    expect(help?.textContent).toMatch(/sends nothing anywhere/);
    await app.user.click(checkbox());
    await settle();
    expect(backend.callsOf("set_prefs")).toEqual([{ wordsOnly: true }]);
    expect(checkbox().checked).toBe(true);
    await app.user.click(checkbox());
    await settle();
    expect(backend.callsOf("set_prefs")).toEqual([{ wordsOnly: true }, { wordsOnly: false }]);
    expect(checkbox().checked).toBe(false);
  });
});

describe("language", () => {
  it("maps OS languages: any Chinese to zh-CN, everything else to English", () => {
    expect(toSupported("zh")).toBe("zh-CN");
    expect(toSupported("zh-Hans-CN")).toBe("zh-CN");
    expect(toSupported("zh-TW")).toBe("zh-CN");
    expect(toSupported("en-GB")).toBe("en");
    expect(toSupported("fr")).toBe("en");
  });

  it("follows the OS language when prefs.language is null (English in this test env)", async () => {
    installFakeBackend({ memories: memories(1) });
    const app = renderApp();
    await settle();
    expect(app.i18n.language).toBe("en");
    expect(screen.getByRole("button", { name: "Copy prompt" })).not.toBeNull();
  });

  it("prefs.language from the backend overrides it, and settings switch it", async () => {
    const backend = installFakeBackend({
      state: { prefs: { memoryEnabled: true, language: "zh-CN" } },
      memories: memories(1),
    });
    const app = renderApp();
    await settle();
    expect(screen.getByRole("button", { name: "复制提示词" })).not.toBeNull();
    expect(document.documentElement.lang).toBe("zh-CN");

    await app.user.click(screen.getByRole("button", { name: "账户设置" }));
    await app.user.selectOptions(screen.getByRole("combobox", { name: "语言" }), "en");
    await settle();
    expect(backend.callsOf("set_prefs")).toEqual([{ language: "en" }]);
    expect(screen.getByRole("heading", { name: "Language" })).not.toBeNull();

    await app.user.selectOptions(screen.getByRole("combobox", { name: "Language" }), "system");
    await settle();
    expect(backend.callsOf("set_prefs")[1]).toEqual({ language: null });
    expect(app.i18n.language).toBe("en");
  });
});
