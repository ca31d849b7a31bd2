// Data hooks of the Sessions list: the capped list, its facets, content search, and
// the `sessions-changed` listener that refetches them.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { listSessions, onSessionsChanged, searchMessages, sessionFacets, sessionSources, type SessionStatus, type Source } from "../ipc";
import { facetsKey, messageSearchKey, sessionListKey, sessionsRoot, sourcesKey } from "./queryKeys";

/** The most list_sessions returns (the API allows 1–200). */
export const LIST_LIMIT = 200;
/** Hits per content search (the API allows 1–200). */
export const HITS_LIMIT = 50;
const STALE_MS = 30_000;

export function useSessionList(source: Source | "", workspace: string, status: SessionStatus = "all") {
  return useQuery({
    queryKey: sessionListKey(source, workspace, status),
    queryFn: () =>
      listSessions({
        limit: LIST_LIMIT,
        ...(source ? { source } : {}),
        ...(workspace ? { workspace } : {}),
        ...(status !== "all" ? { status } : {}),
      }),
    staleTime: STALE_MS,
  });
}

export function useFacets() {
  return useQuery({ queryKey: facetsKey, queryFn: sessionFacets, staleTime: STALE_MS });
}

/** Every source, with its folders on this computer and whether it is read. */
export function useSessionSources() {
  return useQuery({ queryKey: sourcesKey, queryFn: sessionSources, staleTime: STALE_MS });
}

export function useMessageSearch(query: string) {
  return useQuery({
    queryKey: messageSearchKey(query),
    queryFn: () => searchMessages({ query, limit: HITS_LIMIT }),
    staleTime: STALE_MS,
    enabled: query !== "",
  });
}

/** Refetches every session list when the index picked up new or changed files. */
export function useSessionsChangedRefetch() {
  const client = useQueryClient();
  useEffect(() => {
    let active = true;
    let unlisten: (() => void) | undefined;
    void onSessionsChanged(() => void client.invalidateQueries({ queryKey: sessionsRoot })).then(
      (fn) => {
        if (active) unlisten = fn;
        else fn();
      },
    );
    return () => {
      active = false;
      unlisten?.();
    };
  }, [client]);
}
