// The pending proposals as a query, and the `inbox-changed` listener that refetches them.
// New proposals come from Rust: it polls the service every 2 s while the app runs (so the
// desktop notification works with the window hidden or unfocused, when a web view's
// timers may be throttled) and emits `inbox-changed`; the UI polls nothing itself.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { listProposals, listTeamProposals, onInboxChanged, type AppState } from "../ipc";
import { inboxKey, inboxRoot, teamInboxKey } from "./queryKeys";

/** The org the Inbox is asked in: the active one, once signed in. */
export function inboxOrg(state: AppState | undefined): string | null {
  if (!state || state.account === null) return null;
  return state.activeOrgId;
}

export function useInbox(state: AppState | undefined) {
  const orgId = inboxOrg(state);
  return useQuery({
    queryKey: inboxKey(orgId ?? ""),
    queryFn: () => listProposals(orgId as string),
    enabled: orgId !== null,
    // The event says when it changed; no need to refetch on every mount.
    staleTime: 60_000,
  });
}

/** The org Inbox of the active org: its pending proposals for an admin or owner, a
 *  member's own team proposals (`yourRole: "member"`, pending or decided) for a member,
 *  and no data while it cannot be read (an error here never hides the person's own Inbox). */
export function useTeamInbox(state: AppState | undefined) {
  const orgId = inboxOrg(state);
  return useQuery({
    queryKey: teamInboxKey(orgId ?? ""),
    queryFn: () => listTeamProposals(orgId as string),
    enabled: orgId !== null,
    staleTime: 60_000,
  });
}

/** Refetches the Inbox whenever Rust reports that the pending proposals changed. */
export function useInboxChangedRefetch() {
  const client = useQueryClient();
  useEffect(() => {
    let active = true;
    let unlisten: (() => void) | undefined;
    void onInboxChanged(() => void client.invalidateQueries({ queryKey: inboxRoot })).then((fn) => {
      if (active) unlisten = fn;
      else fn();
    });
    return () => {
      active = false;
      unlisten?.();
    };
  }, [client]);
}
