// The tool calls between messages (session_activity), one query per loaded transcript
// page, for that page's index range. Activity is extra: an error (or an older backend
// without the command) just means none is shown.
import { useQueries, useQueryClient, type UseQueryResult } from "@tanstack/react-query";
import { useEffect, useMemo, useRef } from "react";
import { sessionActivity, type SessionActivity, type Transcript } from "../ipc";
import { activityKey, activityRoot } from "./queryKeys";

/** Tool names in call order, by the index of the message they followed (-1: before the first). */
export type ActivityMap = ReadonlyMap<number, readonly string[]>;

const EMPTY: ActivityMap = new Map();

/** The [smallest, largest] message index of each non-empty page. */
function pageRanges(pages: Transcript[]): [number, number][] {
  const ranges: [number, number][] = [];
  const seen = new Set<string>();
  for (const page of pages) {
    if (page.messages.length === 0) continue;
    const indexes = page.messages.map((m) => m.index);
    const range: [number, number] = [Math.min(...indexes), Math.max(...indexes)];
    const id = range.join(":");
    if (!seen.has(id)) {
      seen.add(id);
      ranges.push(range);
    }
  }
  return ranges;
}

/** Merges the answers that arrived; anything malformed is left out rather than trusted. */
function merge(results: UseQueryResult<SessionActivity>[]): ActivityMap {
  const map = new Map<number, string[]>();
  for (const result of results) {
    const activity = result.data?.activity;
    if (!Array.isArray(activity)) continue;
    for (const entry of activity) {
      if (!entry || !Number.isInteger(entry.afterIndex) || !Array.isArray(entry.tools)) continue;
      const tools = entry.tools.filter((tool): tool is string => typeof tool === "string");
      // Neighbouring pages both answer for the message just before the later page.
      if (tools.length > 0 && !map.has(entry.afterIndex)) map.set(entry.afterIndex, tools);
    }
  }
  return map.size === 0 ? EMPTY : map;
}

export function useActivity(sessionId: string, pages: Transcript[] | undefined, transcriptRefetching: boolean): ActivityMap {
  const client = useQueryClient();
  const ranges = useMemo(() => pageRanges(pages ?? []), [pages]);
  const activity = useQueries({
    queries: ranges.map(([fromIndex, toIndex]) => ({
      queryKey: activityKey(sessionId, fromIndex, toIndex),
      queryFn: () => sessionActivity({ sessionId, fromIndex, toIndex }),
      staleTime: 30_000, // as the transcript
      retry: false,
    })),
    combine: merge,
  });

  // When the transcript is read again, so is its activity (pages whose range moved get
  // new queries anyway).
  const wasRefetching = useRef(false);
  useEffect(() => {
    if (transcriptRefetching && !wasRefetching.current)
      void client.invalidateQueries({ queryKey: activityRoot(sessionId) }, { cancelRefetch: false });
    wasRefetching.current = transcriptRefetching;
  }, [client, sessionId, transcriptRefetching]);

  return activity;
}
