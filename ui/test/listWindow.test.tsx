// The list caches a bounded window of pages (issue 14): scrolling far keeps at most
// MAX_PAGES pages in the query cache, and scrolling back fetches earlier rows again.
import type { InfiniteData } from "@tanstack/react-query";
import { fireEvent, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import type { ListResponse } from "../src/ipc";
import { listKey } from "../src/memory/queryKeys";
import { MAX_PAGES, PAGE_SIZE } from "../src/memory/useMemories";
import { installFakeBackend, memories } from "./fakeBackend";
import { renderApp, rowTitles, settle, useFakeClock } from "./render";
import { VIEWPORT_PX } from "./setup";

beforeEach(() => useFakeClock());

const PAGES = 8;
const TOTAL = PAGE_SIZE * PAGES;

async function start() {
  const backend = installFakeBackend({ memories: memories(TOTAL) });
  const app = renderApp();
  await settle();
  const scroller = screen.getByRole("region", { name: "Memories" });
  const cached = () => app.client.getQueryData<InfiniteData<ListResponse>>(listKey("org_a"))!.pages;
  const scrollTo = async (top: number) => {
    scroller.scrollTop = Math.max(0, top);
    fireEvent.scroll(scroller);
    await settle();
  };
  const totalPx = () => parseFloat((scroller.firstElementChild as HTMLElement).style.height);
  // Scrolls to the end as far as the list knows it, until the oldest memory renders.
  const scrollToOldest = async () => {
    let most = 0;
    for (let turn = 0; turn < PAGES * 4 && !rowTitles().includes(`Memory number ${TOTAL}`); turn++) {
      await scrollTo(totalPx() - VIEWPORT_PX);
      most = Math.max(most, cached().length);
    }
    expect(rowTitles()).toContain(`Memory number ${TOTAL}`);
    return most;
  };
  const firstPageFetches = () => backend.callsOf("list_memories").filter((args) => args.cursor === undefined).length;
  return { backend, scroller, cached, scrollTo, scrollToOldest, firstPageFetches };
}

describe("the list's page window", () => {
  it("keeps at most MAX_PAGES pages cached while scrolling to the oldest memory", async () => {
    const list = await start();
    const most = await list.scrollToOldest();
    expect(list.backend.callsOf("list_memories")).toHaveLength(PAGES); // each page once
    expect(most).toBeLessThanOrEqual(MAX_PAGES);
    expect(list.cached().flatMap((page) => page.memories).map((m) => m.content)).not.toContain("Memory number 1");
    expect(rowTitles()).not.toContain("Memory number 1");
  });

  it("scrolling back up screen by screen fetches the dropped pages again, newest last", async () => {
    const list = await start();
    await list.scrollToOldest();
    expect(list.firstPageFetches()).toBe(1);
    const before = list.backend.callsOf("list_memories").length;
    for (let step = 0; step < 200 && list.scroller.scrollTop > 0; step++) {
      await list.scrollTo(list.scroller.scrollTop - VIEWPORT_PX);
      expect(list.cached().length).toBeLessThanOrEqual(MAX_PAGES);
    }
    await settle();
    expect(list.scroller.scrollTop).toBe(0);
    expect(rowTitles().slice(0, 3)).toEqual(["Memory number 1", "Memory number 2", "Memory number 3"]);
    // The pages above the window came back one by one, from the remembered cursors.
    const again = list.backend.callsOf("list_memories").slice(before);
    expect(again.map((args) => args.cursor)).toEqual(
      Array.from({ length: PAGES - MAX_PAGES }, (_, i) => (i === PAGES - MAX_PAGES - 1 ? undefined : String((PAGES - MAX_PAGES - 1 - i) * PAGE_SIZE))),
    );
    expect(list.firstPageFetches()).toBe(2);
  });

  it("a jump from the bottom to the top fetches the first page directly, not every page between", async () => {
    const list = await start();
    await list.scrollToOldest();
    const before = list.backend.callsOf("list_memories").length;
    await list.scrollTo(0);
    await settle();
    expect(rowTitles().slice(0, 2)).toEqual(["Memory number 1", "Memory number 2"]);
    const again = list.backend.callsOf("list_memories").slice(before);
    expect(again[0]).toEqual({ orgId: "org_a", limit: PAGE_SIZE });
    expect(again.length).toBeLessThanOrEqual(2); // the first page, then perhaps the one below it
    expect(list.cached().length).toBeLessThanOrEqual(MAX_PAGES);
  });
});
