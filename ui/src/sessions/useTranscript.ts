// One session: open_session (header, and it must exist) then read_transcript, paged
// backwards 30 messages at a time with `before` = the smallest index received.
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { openSession, readTranscript, type TranscriptMessage } from "../ipc";
import { sessionInfoKey, transcriptKey } from "./queryKeys";

/** Messages per read_transcript page (the API allows 1–30). */
export const PAGE_COUNT = 30;

export function useSessionInfo(sessionId: string, staleTime: number) {
  return useQuery({
    queryKey: sessionInfoKey(sessionId),
    queryFn: () => openSession({ sessionId }),
    staleTime,
  });
}

export function useTranscript(sessionId: string, enabled: boolean) {
  const query = useInfiniteQuery({
    queryKey: transcriptKey(sessionId),
    queryFn: ({ pageParam }) =>
      readTranscript({ sessionId, count: PAGE_COUNT, ...(pageParam === null ? {} : { before: pageParam }) }),
    initialPageParam: null as number | null,
    // Pages come newest first; the next one ends before the oldest message we have.
    getNextPageParam: (last) => {
      const oldest = last.messages[0];
      return oldest && oldest.index > 0 ? oldest.index : undefined;
    },
    enabled,
    staleTime: 30_000,
  });
  const messages = useMemo(() => {
    const byIndex = new Map<number, TranscriptMessage>();
    for (const page of query.data?.pages ?? []) for (const m of page.messages) byIndex.set(m.index, m);
    return [...byIndex.values()].sort((a, b) => a.index - b.index);
  }, [query.data]);
  return { query, messages };
}
