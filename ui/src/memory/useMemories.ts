// Data hooks for the panel. Both read through TanStack Query; rows whose delete is
// pending are subtracted here (the veil), never removed from the cache.
//
// The list keeps only MAX_PAGES pages (a window around the viewport), so what the page
// holds does not grow with the number of memories scrolled past (BENCHMARKS.md, issue 14).
// Pages dropped at the top are fetched again when scrolled back to, through the page
// params: each one remembers the one before it, down to the first page.
import {
  useInfiniteQuery,
  useQuery,
  useQueryClient,
  type InfiniteData,
} from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef } from "react";
import { listMemories, searchMemories, type BankScope, type ListResponse, type Matched, type Memory } from "../ipc";

/** A memory as the panel lists it; a search hit also says why it was found. */
export type ShownMemory = Memory & { matched?: Matched };
import { usePendingDeletes } from "../deletes/PendingDeletes";
import { listKey, searchKey } from "./queryKeys";

/** Page size of the list (the API allows 1–100). */
export const PAGE_SIZE = 50;
/** Search results (the API allows 1–50; search has no cursor). */
export const SEARCH_LIMIT = 50;
/** Like the reference panel: a fresh list is not refetched for 30 s. */
const STALE_MS = 30_000;
/** Pages kept in the list's cache: the viewport's and its neighbours (150 rows). */
export const MAX_PAGES = 3;

/** Where a list page starts. `prev` links back to the first page, so a page dropped
 * from the window can be fetched again (the API pages forwards only). */
export interface PageParam {
  cursor: string | null;
  /** Rows listed before this page when it was fetched: its first row's index. */
  rowsBefore: number;
  prev: PageParam | null;
}

const FIRST_PAGE: PageParam = { cursor: null, rowsBefore: 0, prev: null };

type ListData = InfiniteData<ListResponse, PageParam>;

export interface MemoriesView {
  memories: ShownMemory[];
  isPending: boolean;
  isError: boolean;
  error: unknown;
  isFetching: boolean;
  refetch: () => void;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => void;
  /** Index of `memories[0]` in the whole list (rows before it are not cached now). */
  offset: number;
  hasPreviousPage: boolean;
  isFetchingPreviousPage: boolean;
  fetchPreviousPage: () => void;
  /** Replaces the cached window with the page holding row `index` (a long scroll up). */
  jumpTo: (index: number) => void;
}

function useVeiled<T extends Memory>(memories: T[] | undefined): T[] {
  const { veiled } = usePendingDeletes();
  return useMemo(
    () => (memories ?? []).filter((memory) => !veiled.has(memory.id)),
    [memories, veiled],
  );
}

/** The panel's filter: the person's own memories, the org's team bank, or both. */
const scopeArg = (scope: BankScope) => (scope === "all" ? {} : { scope });

const fetchPage = (orgId: string, scope: BankScope, param: PageParam) =>
  listMemories({ orgId, limit: PAGE_SIZE, ...(param.cursor ? { cursor: param.cursor } : {}), ...scopeArg(scope) });

export function useMemoryList(orgId: string, scope: BankScope = "all"): MemoriesView {
  const client = useQueryClient();
  const query = useInfiniteQuery<ListResponse, Error, ListData, ReturnType<typeof listKey>, PageParam>({
    queryKey: listKey(orgId, scope),
    queryFn: ({ pageParam }) => fetchPage(orgId, scope, pageParam),
    initialPageParam: FIRST_PAGE,
    getNextPageParam: (last, _pages, lastParam): PageParam | undefined =>
      last.nextCursor
        ? { cursor: last.nextCursor, rowsBefore: lastParam.rowsBefore + last.memories.length, prev: lastParam }
        : undefined,
    getPreviousPageParam: (_first, _pages, firstParam) => firstParam.prev ?? undefined,
    maxPages: MAX_PAGES,
    staleTime: STALE_MS,
  });
  const all = useMemo(() => query.data?.pages.flatMap((page) => page.memories), [query.data]);
  const memories = useVeiled(all);
  const offset = query.data?.pageParams[0]?.rowsBefore ?? 0;

  // A page fetched again above the window was fetched from a remembered cursor; if the
  // list changed since (a memory saved), it no longer ends where the next page starts.
  // Then the window is read again from its first page, which chains correctly.
  const { data, refetch, isFetching } = query;
  useEffect(() => {
    if (!data || isFetching) return;
    const broken = data.pages.some(
      (page, i) => i + 1 < data.pages.length && page.nextCursor !== data.pageParams[i + 1].cursor,
    );
    if (broken) void refetch();
  }, [data, isFetching, refetch]);

  const jumping = useRef(false);
  const jumpTo = useCallback(
    (index: number) => {
      const key = listKey(orgId, scope);
      const first = client.getQueryData<ListData>(key)?.pageParams[0];
      let target = first;
      while (target?.prev && target.rowsBefore > index) target = target.prev;
      if (!target || target === first || jumping.current) return;
      const param = target;
      jumping.current = true;
      void (async () => {
        try {
          // A fetch in flight would land on the old window after ours.
          await client.cancelQueries({ queryKey: key });
          const page = await fetchPage(orgId, scope, param);
          client.setQueryData<ListData>(key, { pages: [page], pageParams: [param] });
        } catch {
          // The window stays; the next scroll asks again.
        } finally {
          jumping.current = false;
        }
      })();
    },
    [client, orgId, scope],
  );

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
    offset,
    hasPreviousPage: query.hasPreviousPage,
    isFetchingPreviousPage: query.isFetchingPreviousPage,
    fetchPreviousPage: () => void query.fetchPreviousPage(),
    jumpTo,
  };
}

export function useMemorySearch(orgId: string, q: string, scope: BankScope = "all"): MemoriesView {
  const query = useQuery({
    queryKey: searchKey(orgId, q, scope),
    queryFn: () => searchMemories({ orgId, q, limit: SEARCH_LIMIT, ...scopeArg(scope) }),
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
    offset: 0,
    hasPreviousPage: false,
    isFetchingPreviousPage: false,
    fetchPreviousPage: () => {},
    jumpTo: () => {},
  };
}
