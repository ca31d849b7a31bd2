// Data hooks for the panel. Both read through TanStack Query; rows whose delete is
// pending are subtracted here (the veil), never removed from the cache.
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { listMemories, searchMemories, type Memory } from "../ipc";
import { usePendingDeletes } from "../deletes/PendingDeletes";
import { listKey, searchKey } from "./queryKeys";

/** Page size of the list (the API allows 1–100). */
export const PAGE_SIZE = 50;
/** Search results (the API allows 1–50; search has no cursor). */
export const SEARCH_LIMIT = 50;
/** Like the reference panel: a fresh list is not refetched for 30 s. */
const STALE_MS = 30_000;

export interface MemoriesView {
  memories: Memory[];
  isPending: boolean;
  isError: boolean;
  error: unknown;
  isFetching: boolean;
  refetch: () => void;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => void;
}

function useVeiled(memories: Memory[] | undefined): Memory[] {
  const { veiled } = usePendingDeletes();
  return useMemo(
    () => (memories ?? []).filter((memory) => !veiled.has(memory.id)),
    [memories, veiled],
  );
}

export function useMemoryList(orgId: string): MemoriesView {
  const query = useInfiniteQuery({
    queryKey: listKey(orgId),
    queryFn: ({ pageParam }) =>
      listMemories({ orgId, limit: PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    staleTime: STALE_MS,
  });
  const all = useMemo(() => query.data?.pages.flatMap((page) => page.memories), [query.data]);
  const memories = useVeiled(all);
  return {
    memories,
    isPending: query.isPending,
    isError: query.isError,
    error: query.error,
    isFetching: query.isFetching,
    refetch: () => void query.refetch(),
    hasNextPage: query.hasNextPage,
    isFetchingNextPage: query.isFetchingNextPage,
    fetchNextPage: () => void query.fetchNextPage(),
  };
}

export function useMemorySearch(orgId: string, q: string): MemoriesView {
  const query = useQuery({
    queryKey: searchKey(orgId, q),
    queryFn: () => searchMemories({ orgId, q, limit: SEARCH_LIMIT }),
    staleTime: STALE_MS,
    enabled: q !== "",
  });
  const memories = useVeiled(query.data?.results);
  return {
    memories,
    isPending: query.isPending,
    isError: query.isError,
    error: query.error,
    isFetching: query.isFetching,
    refetch: () => void query.refetch(),
    hasNextPage: false,
    isFetchingNextPage: false,
    fetchNextPage: () => {},
  };
}
