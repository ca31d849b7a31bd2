// Untrusted Markdown in a transcript renders inert: the XSS corpus (shared with the
// real-window test, tests/e2e/markdown.test.mjs) creates no active element, no event
// handler attribute and no link but http, https and mailto, and its literal text is shown.
import { fireEvent, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { MessageMarkdown } from "../src/sessions/markdown/MessageMarkdown";
import corpus from "./xss-corpus.json";
import { installFakeBackend } from "./fakeBackend";
import { session, transcript } from "./fakeSessions";
import { openFirstListedSession, renderApp, renderInProviders, settle, showSessions, useFakeClock } from "./render";

interface Case {
  name: string;
  markdown: string;
  visible: string[];
  links?: string[];
}
const cases: Case[] = corpus.cases;

/** Elements no message may create, whatever it says. */
const ACTIVE = "script, iframe, frame, img, svg, math, object, embed, style, link, meta, base, form, input, video, audio, source, picture";
const URL_ATTRIBUTES = ["src", "action", "formaction", "data", "xlink:href", "srcset", "poster", "background"];

function expectInert(root: Element, allowedLinks: string[] = []) {
  expect(Array.from(root.querySelectorAll(ACTIVE), (e) => e.tagName)).toEqual([]);
  const handlers = Array.from(root.querySelectorAll("*")).flatMap((element) =>
    Array.from(element.attributes, (a) => a.name).filter((name) => name.toLowerCase().startsWith("on")),
  );
  expect(handlers).toEqual([]);
  for (const attribute of URL_ATTRIBUTES) expect(root.querySelectorAll(`[${attribute.replace(":", "\\:")}]`)).toHaveLength(0);
  const hrefs = Array.from(root.querySelectorAll("[href]"), (e) => e.getAttribute("href")!);
  for (const href of hrefs) expect(new URL(href).protocol).toMatch(/^(https?|mailto):$/);
  expect(hrefs).toEqual(allowedLinks);
}

beforeEach(() => useFakeClock());

describe("XSS corpus, one message each", () => {
  it.each(cases.map((c) => [c.name, c] as const))("%s", (_name, testCase) => {
    installFakeBackend();
    const { container } = renderInProviders(
      <div className="message-text">
        <MessageMarkdown text={testCase.markdown} />
      </div>,
    );
    const text = container.querySelector(".message-text")!;
    expectInert(text, testCase.links);
    for (const visible of testCase.visible) expect(text.textContent).toContain(visible);
  });

  it("a link's click never navigates: it is prevented and handed to the opener", async () => {
    const backend = installFakeBackend();
    renderInProviders(<MessageMarkdown text="Docs: [the guide](https://example.com/guide?a=1#part)" />);
    const link = screen.getByRole("link", { name: "the guide" });
    expect(link.getAttribute("title")).toBe("https://example.com/guide?a=1#part");
    // fireEvent returns false when the handler called preventDefault.
    expect(fireEvent.click(link)).toBe(false);
    expect(fireEvent(link, new MouseEvent("auxclick", { bubbles: true, cancelable: true, button: 1 }))).toBe(false);
    await settle();
    expect(backend.callsOf("plugin:opener|open_url")).toEqual([
      { url: "https://example.com/guide?a=1#part" },
      { url: "https://example.com/guide?a=1#part" },
    ]);
  });

  it("an inert link is text: no role link, nothing opened when clicked", async () => {
    const backend = installFakeBackend();
    renderInProviders(<MessageMarkdown text="[run me](javascript:window.__xss=1)" />);
    await settle();
    const before = backend.calls.length;
    expect(screen.queryByRole("link")).toBeNull();
    fireEvent.click(screen.getByText("run me"));
    await settle();
    expect(backend.calls.slice(before)).toEqual([]);
  });
});

describe("XSS corpus in a real transcript", () => {
  it("the whole corpus as one agent message renders inert in the Sessions view", async () => {
    const all = cases.map((c) => c.markdown).join("\n\n");
    installFakeBackend({ sessions: { sessions: [session(1)], transcripts: { ses_1: transcript(2, (i) => (i === 1 ? all : "Show me")) } } });
    const app = renderApp();
    await settle();
    await showSessions(app);
    await openFirstListedSession(app);
    const message = document.querySelector('[data-message-index="1"] .message-text')!;
    expectInert(message, cases.flatMap((c) => c.links ?? []));
    for (const visible of cases.flatMap((c) => c.visible)) expect(message.textContent).toContain(visible);
    // Nothing in the transcript came from the message either (the app draws no images there).
    expect(screen.getByRole("region", { name: "Transcript" }).querySelectorAll("img, script, iframe, svg")).toHaveLength(0);
  });
});
