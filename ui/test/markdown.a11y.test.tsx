// axe-core on a transcript whose messages use all of Markdown: headings, lists, a task
// list, a table, links (openable and inert), an image shown as text, footnotes, a secret,
// a folded code block and an unfolded one. (color-contrast needs real layout.)
import { screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { installFakeBackend } from "./fakeBackend";
import { session, transcript } from "./fakeSessions";
import { expectNoViolations } from "./axe";
import { openFirstListedSession, renderApp, settle, showSessions, useFakeClock } from "./render";

const long = "```python\n" + Array.from({ length: 40 }, (_, i) => `print(${i})`).join("\n") + "\n```";
const MESSAGES = [
  "# Release plan\n\n## Steps\n\n1. Build\n2. Test\n\n### Risks\n\n- [x] backups\n- [ ] rollback",
  "| file | change |\n|---|---|\n| a.ts | +12 |\n\nSee [the docs](https://example.com/docs), [this](javascript:alert(1)) and ![chart](https://example.com/c.png).",
  "A claim[^1] with token ghp_0123456789abcdefghijABCDEFGHIJ0123.\n\n[^1]: Its source.",
  long,
  "```ts\nconst short = true;\n```\n\n> quoted\n\n---\n\n#### Deep heading only",
];

beforeEach(() => useFakeClock());

describe("accessibility of rendered Markdown (axe)", () => {
  it("a Markdown-heavy transcript, with a folded code block opened", async () => {
    installFakeBackend({
      sessions: { sessions: [session(1)], transcripts: { ses_1: transcript(MESSAGES.length, (i) => MESSAGES[i]) } },
    });
    const app = renderApp();
    await settle();
    await showSessions(app);
    await openFirstListedSession(app);
    const region = screen.getByRole("region", { name: "Transcript" });
    expect(within(region).getAllByRole("table")).toHaveLength(1);
    await app.user.click(within(region).getByRole("button", { name: "Show all 40 lines" }));
    await expectNoViolations();
  });
});
