// Transcript messages rendered as Markdown: structure, highlighting, folded code,
// secrets, images, links (the system browser, never the web view), and "Remember…" on
// a selection of the rendered text.
import { act, fireEvent, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { MessageMarkdown } from "../src/sessions/markdown/MessageMarkdown";
import { installFakeBackend } from "./fakeBackend";
import { session, transcript } from "./fakeSessions";
import { openFirstListedSession, renderApp, renderInProviders, settle, showSessions, tick, useFakeClock } from "./render";

beforeEach(() => useFakeClock());

const KEY = "ghp_0123456789abcdefghijABCDEFGHIJ0123";

function renderMarkdown(text: string) {
  const backend = installFakeBackend();
  const rendered = renderInProviders(
    <div className="message-text" data-testid="message">
      <MessageMarkdown text={text} />
    </div>,
  );
  return { ...rendered, backend, message: screen.getByTestId("message") };
}

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`);

describe("Markdown in a message", () => {
  it("headings, emphasis, lists, tables, task lists and strikethrough are elements, not punctuation", () => {
    const { message } = renderMarkdown(
      [
        "# Plan",
        "Some **bold**, *italic* and `inline code`.",
        "- one\n- two",
        "1. first\n2. second",
        "| file | lines |\n|---|---|\n| a.ts | 12 |",
        "- [x] tests pass\n- [ ] docs",
        "~~old idea~~",
      ].join("\n\n"),
    );
    expect(within(message).getByRole("heading", { level: 3, name: "Plan" })).not.toBeNull();
    expect(message.querySelector("strong")!.textContent).toBe("bold");
    expect(message.querySelector("em")!.textContent).toBe("italic");
    expect(message.querySelector(":not(pre) > code")!.textContent).toBe("inline code");
    const lists = within(message).getAllByRole("list");
    expect(lists.map((list) => list.tagName)).toEqual(["UL", "OL", "UL"]);
    expect(within(lists[0]).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["one", "two"]);
    const table = within(message).getByRole("table");
    expect(within(table).getAllByRole("columnheader").map((th) => th.textContent)).toEqual(["file", "lines"]);
    expect(within(table).getAllByRole("cell").map((td) => td.textContent)).toEqual(["a.ts", "12"]);
    expect(within(message).getByRole("img", { name: "Done" }).closest("li")!.textContent).toContain("tests pass");
    expect(within(message).getByRole("img", { name: "Not done" }).closest("li")!.textContent).toContain("docs");
    expect(message.querySelector("del")!.textContent).toBe("old idea");
    expect(message.textContent).not.toMatch(/[*`~#|]/);
  });

  it("headings are renumbered from h3 without gaps, keeping the author's level as the look", () => {
    const { message } = renderMarkdown("## Overview\n\n#### Detail\n\n## Next");
    const headings = within(message).getAllByRole("heading");
    expect(headings.map((h) => [h.tagName, h.className, h.textContent])).toEqual([
      ["H3", "md-h2", "Overview"],
      ["H4", "md-h4", "Detail"],
      ["H3", "md-h2", "Next"],
    ]);
  });

  it("a single line break is a line break, and a one-paragraph message is its text alone", () => {
    const { message } = renderMarkdown("first line\nsecond line");
    expect(message.querySelector("p")).toBeNull();
    expect(message.querySelectorAll("br")).toHaveLength(1);
    expect(message.textContent).toBe("first line\nsecond line");
  });

  it("fenced code is highlighted for its language, named above it, with its text unchanged", () => {
    const code = 'const answer: number = 42; // why\nconsole.log("done");';
    const { message } = renderMarkdown("```ts\n" + code + "\n```");
    const pre = message.querySelector("pre")!;
    expect(pre.textContent).toBe(code);
    expect(Array.from(pre.querySelectorAll(".hljs-keyword"), (e) => e.textContent)).toContain("const");
    expect(pre.querySelector(".hljs-string")!.textContent).toBe('"done"');
    expect(pre.querySelector(".hljs-comment")!.textContent).toBe("// why");
    expect(message.querySelector(".md-code-language")!.textContent).toBe("ts");
  });

  it("code without a known language stays plain text", () => {
    const { message } = renderMarkdown("```\nconst x = 1\n```\n\n```no-such-language\nconst y = 2\n```");
    const blocks = message.querySelectorAll("pre");
    expect(Array.from(blocks, (pre) => pre.textContent)).toEqual(["const x = 1", "const y = 2"]);
    expect(message.querySelectorAll("pre span")).toHaveLength(0);
  });

  it("a block over 20 lines shows its first 10 and unfolds from the keyboard", async () => {
    const { message, user } = renderMarkdown("```\n" + lines(30).join("\n") + "\n```");
    const pre = message.querySelector("pre")!;
    expect(pre.textContent).toBe(lines(10).join("\n"));
    const toggle = within(message).getByRole("button", { name: "Show all 30 lines" });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect(toggle.getAttribute("aria-controls")).toBe(pre.id);
    toggle.focus();
    await user.keyboard("{Enter}");
    expect(message.querySelector("pre")!.textContent).toBe(lines(30).join("\n"));
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    expect(toggle.textContent).toBe("Show only the first 10 lines");
    await user.keyboard(" ");
    expect(message.querySelector("pre")!.textContent).toBe(lines(10).join("\n"));
    expect(document.activeElement).toBe(toggle);
  });

  it("a block of exactly 20 lines is shown whole, with no button", () => {
    const { message } = renderMarkdown("```\n" + lines(20).join("\n") + "\n```");
    expect(message.querySelector("pre")!.textContent).toBe(lines(20).join("\n"));
    expect(within(message).queryByRole("button")).toBeNull();
  });

  it("the fold button speaks Chinese too", async () => {
    const { message, i18n } = renderMarkdown("```\n" + lines(25).join("\n") + "\n```");
    await act(() => i18n.changeLanguage("zh-CN"));
    expect(within(message).getByRole("button").textContent).toBe("显示全部 25 行");
  });

  it("secrets are marked in prose, across emphasis, in inline code and in highlighted code", () => {
    const { message } = renderMarkdown(
      [
        `The token is ${KEY}.`,
        "Set password=**hunter2hunter2** there.",
        `Or \`${KEY}\` inline.`,
        "```bash\nexport GITHUB_TOKEN=" + KEY + "\necho done\n```",
      ].join("\n\n"),
    );
    const marks = Array.from(message.querySelectorAll("mark.secret"));
    const prose = marks.filter((mark) => !mark.closest("pre"));
    expect(prose.map((mark) => mark.textContent)).toEqual([KEY, "password=", "hunter2hunter2", KEY]);
    expect(prose[0].getAttribute("title")).toBe("Looks like a secret: GitHub token");
    expect(prose[1].getAttribute("title")).toBe("Looks like a secret: password or key assignment");
    const inCode = marks.filter((mark) => mark.closest("pre"));
    expect(inCode.map((mark) => mark.textContent).join("")).toContain(KEY);
    // Marking changes no text.
    expect(message.querySelector("pre")!.textContent).toBe(`export GITHUB_TOKEN=${KEY}\necho done`);
  });

  it("an image is never loaded: its description and address are shown as text", () => {
    const { message } = renderMarkdown("![build graph](https://ci.example/graph.png)");
    expect(message.querySelector("img")).toBeNull();
    expect(message.textContent).toBe("Image, not loaded: build graphhttps://ci.example/graph.png");
    expect(message.querySelector(".md-image-src")!.textContent).toBe("https://ci.example/graph.png");
  });

  it("footnotes keep their text, with no ids that would repeat across messages", () => {
    const { message } = renderMarkdown("Claim[^1].\n\n[^1]: The source.");
    expect(message.querySelectorAll("[id]")).toHaveLength(0);
    expect(message.querySelector(".md-footnotes-label")!.textContent).toBe("Footnotes");
    expect(message.querySelector(".footnotes")!.textContent).toContain("The source.");
    expect(message.textContent).not.toContain("↩");
  });

  it("a link opens in the system browser; when that fails, a toast says why", async () => {
    const { message, backend } = renderMarkdown("See https://example.com/docs and [mail me](mailto:ada@example.com).");
    const web = within(message).getByRole("link", { name: "https://example.com/docs" });
    const mail = within(message).getByRole("link", { name: "mail me" });
    expect(fireEvent.click(web)).toBe(false); // default (navigation) prevented
    expect(fireEvent.click(mail)).toBe(false);
    await settle();
    expect(backend.callsOf("plugin:opener|open_url")).toEqual([{ url: "https://example.com/docs" }, { url: "mailto:ada@example.com" }]);

    backend.failures.set("plugin:opener|open_url", { code: "internal", message: "no browser found" });
    fireEvent.click(web);
    await settle();
    expect(screen.getByText("Could not open the link: no browser found")).not.toBeNull();
  });
});

describe("folded code in the transcript", () => {
  it("an unfolded block stays unfolded when its message scrolls out of view and back", async () => {
    const code = "```\n" + lines(30).join("\n") + "\n```";
    installFakeBackend({
      sessions: { sessions: [session(1)], transcripts: { ses_1: transcript(30, (i) => (i === 29 ? code : `Message ${i}`)) } },
    });
    const app = renderApp();
    await settle();
    await showSessions(app);
    await openFirstListedSession(app);
    const lastMessage = () => document.querySelector('[data-message-index="29"]');
    await app.user.click(within(lastMessage() as HTMLElement).getByRole("button", { name: "Show all 30 lines" }));
    const scroller = screen.getByRole("region", { name: "Transcript" });
    scroller.scrollTop = 0;
    fireEvent.scroll(scroller);
    await settle();
    expect(lastMessage()).toBeNull(); // unmounted by the virtual list
    scroller.scrollTop = scroller.scrollHeight;
    fireEvent.scroll(scroller);
    await settle();
    expect(lastMessage()!.querySelector("pre")!.textContent).toBe(lines(30).join("\n"));
    expect(within(lastMessage() as HTMLElement).getByRole("button", { name: "Show only the first 10 lines" }).getAttribute("aria-expanded")).toBe("true");
  });
});

describe("Remember… on rendered Markdown", () => {
  const TEXT = "Run `pnpm install` **before** the build, then *ship*.";

  async function openTranscript() {
    const backend = installFakeBackend({
      sessions: { sessions: [session(1)], transcripts: { ses_1: transcript(2, (i) => (i === 1 ? TEXT : "How do I build?")) } },
    });
    const app = renderApp();
    await settle();
    await showSessions(app);
    await openFirstListedSession(app);
    const message = document.querySelector('[data-message-index="1"]') as HTMLElement;
    return { app, backend, message };
  }

  it("a selection across code and bold saves the text the person selected, without Markdown", async () => {
    const { app, message } = await openTranscript();
    const text = message.querySelector(".message-text")!;
    const range = document.createRange();
    range.setStart(text.querySelector("code")!.firstChild!, 0);
    range.setEnd(text.querySelector("strong")!.firstChild!, "before".length);
    window.getSelection()!.removeAllRanges();
    window.getSelection()!.addRange(range);
    fireEvent.mouseUp(text);
    await settle();
    await app.user.click(within(message).getByRole("button", { name: "Remember selection…" }));
    await tick(50);
    const dialog = screen.getByRole("dialog", { name: "Remember…" });
    expect((within(dialog).getByLabelText("Memory") as HTMLTextAreaElement).value).toBe("pnpm install before");
    expect((within(dialog).getByLabelText("Excerpt kept as its source") as HTMLTextAreaElement).value).toBe("pnpm install before");
  });

  it("the whole message is remembered as it was written", async () => {
    const { app, message } = await openTranscript();
    await app.user.click(within(message).getByRole("button", { name: "Remember this message" }));
    await tick(50);
    const dialog = screen.getByRole("dialog", { name: "Remember…" });
    expect((within(dialog).getByLabelText("Memory") as HTMLTextAreaElement).value).toBe(TEXT);
  });
});
