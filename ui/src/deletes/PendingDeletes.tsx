// Deferred, undoable deletes. The timer that commits a delete lives in Rust
// (schedule_delete, 6 s), so a delete the person did not undo reaches the server even if
// the page dies. This provider only keeps what the page must show:
//  - the veil: ids hidden from every list while their delete is pending. Server data
//    minus the veil is what renders, so a background refetch cannot bring a row back,
//    and the query cache itself is untouched until the delete has settled;
//  - the Undo toast, closed by our own clock 5 s after confirm (and at least 1 s before
//    commitAt), so Undo is never on screen once undo can no longer work.
//  - the deletes waiting offline: Rust could not reach the server when they were due,
//    keeps them in its journal and retries; their rows stay veiled, and the person sees
//    them (WaitingDeletes) and may still cancel them. At start the page asks Rust for
//    every pending delete (list_pending_deletes), so a restart or a reload of the page
//    keeps them hidden too.
// It sits above the panel so a delete flushed when the panel unmounts still settles
// into the cache and the veil afterwards.
import { useQueryClient, type InfiniteData, type QueryClient } from "@tanstack/react-query";
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from "react";
import { useTranslation } from "react-i18next";
import {
  errorMessage,
  flushDeletes,
  listPendingDeletes,
  onDeleteSettled,
  scheduleDelete,
  undoDelete,
  type DeleteSettled,
  type ListResponse,
  type SearchResponse,
} from "../ipc";
import { listRoot, searchKeyPrefix } from "../memory/queryKeys";
import { useToasts } from "../toasts/Toasts";

/** How long Undo is offered; Rust commits at 6 s. */
export const UNDO_WINDOW_MS = 5000;
/** Undo closes at least this long before Rust's commitAt, whatever the clocks say. */
const COMMIT_MARGIN_MS = 1000;

/** A delete Rust could not send yet, and why. */
export interface WaitingDelete {
  id: string;
  orgId: string;
  message?: string;
}

interface PendingDeletesApi {
  veiled: ReadonlySet<string>;
  /** Deletes waiting for the server, in the order they started waiting. */
  waiting: readonly WaitingDelete[];
  /** Cancels a waiting delete: the row comes back. */
  cancelWaiting: (id: string) => Promise<void>;
  /** Veils the row and schedules its delete in `orgId`, the org active at confirm time. */
  confirmDelete: (id: string, orgId: string) => Promise<void>;
  /** Sends every pending delete now (leaving the panel); Undo is no longer possible. */
  flush: () => void;
}

const PendingDeletesContext = createContext<PendingDeletesApi | null>(null);

export function usePendingDeletes(): PendingDeletesApi {
  const api = useContext(PendingDeletesContext);
  if (!api) throw new Error("usePendingDeletes needs <PendingDeletesProvider>");
  return api;
}

const toastId = (id: string) => `memory-delete-${id}`;

/** Removes a settled delete from the caches of the org it was deleted in. */
function removeFromCache(client: QueryClient, orgId: string, id: string) {
  client.setQueriesData<InfiniteData<ListResponse>>({ queryKey: listRoot(orgId) }, (data) =>
    data
      ? {
          ...data,
          pages: data.pages.map((page) => ({
            ...page,
            memories: page.memories.filter((memory) => memory.id !== id),
          })),
        }
      : data,
  );
  client.setQueriesData<SearchResponse>({ queryKey: searchKeyPrefix(orgId) }, (data) =>
    data ? { ...data, results: data.results.filter((memory) => memory.id !== id) } : data,
  );
  // Lists are per user, not per org, so other orgs' caches may hold the row too:
  // mark them stale so they refetch when next shown, without fetching now.
  void client.invalidateQueries({ queryKey: ["memory"], refetchType: "none" });
}

export function PendingDeletesProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const toasts = useToasts();
  const [veiled, setVeiled] = useState<ReadonlySet<string>>(() => new Set());
  const [waiting, setWaiting] = useState<readonly WaitingDelete[]>([]);
  const markWaiting = useCallback((entry: WaitingDelete) => {
    setWaiting((list) => [...list.filter((w) => w.id !== entry.id), entry]);
  }, []);
  const clearWaiting = useCallback((id: string) => {
    setWaiting((list) => (list.some((w) => w.id === id) ? list.filter((w) => w.id !== id) : list));
  }, []);
  // Undo-toast closing timers, by memory id.
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  // Ids that may still be offered an Undo. A flush or a settle that lands while
  // schedule_delete is still answering removes the id, so no Undo shows up late.
  const undoable = useRef(new Set<string>());

  const veil = useCallback((id: string) => {
    setVeiled((set) => new Set(set).add(id));
  }, []);
  const unveil = useCallback((id: string) => {
    setVeiled((set) => {
      if (!set.has(id)) return set;
      const next = new Set(set);
      next.delete(id);
      return next;
    });
  }, []);
  const closeUndo = useCallback(
    (id: string) => {
      clearTimeout(timers.current.get(id));
      timers.current.delete(id);
      toasts.dismiss(toastId(id));
    },
    [toasts],
  );

  const showError = useCallback(
    (id: string, title: string) => toasts.show({ id: `error-${id}`, kind: "error", title }),
    [toasts],
  );

  const undo = useCallback(
    async (id: string) => {
      undoable.current.delete(id);
      closeUndo(id);
      try {
        const { undone } = await undoDelete(id);
        // If not undone the commit already started; its settle event decides.
        if (undone) unveil(id);
      } catch (error) {
        showError(id, t("toast.undoFailed", { message: errorMessage(error) }));
      }
    },
    [closeUndo, unveil, showError, t],
  );

  const confirmDelete = useCallback(
    async (id: string, orgId: string) => {
      const confirmedAt = Date.now();
      veil(id);
      undoable.current.add(id);
      let commitAt: number;
      try {
        ({ commitAt } = await scheduleDelete({ orgId, id }));
      } catch (error) {
        undoable.current.delete(id);
        unveil(id);
        showError(id, t("toast.deleteFailed", { message: errorMessage(error) }));
        return;
      }
      if (!undoable.current.has(id)) return; // flushed or settled meanwhile
      const now = Date.now();
      const closeIn = Math.max(
        0,
        Math.min(confirmedAt + UNDO_WINDOW_MS - now, commitAt - COMMIT_MARGIN_MS - now),
      );
      clearTimeout(timers.current.get(id));
      timers.current.set(
        id,
        setTimeout(() => closeUndo(id), closeIn),
      );
      toasts.show({
        id: toastId(id),
        kind: "success",
        title: t("toast.deleted"),
        action: { label: t("toast.undo"), altText: t("toast.undoAlt"), onAction: () => void undo(id) },
      });
    },
    [veil, unveil, closeUndo, showError, toasts, undo, t],
  );

  const cancelWaiting = useCallback(
    async (id: string) => {
      try {
        const { undone } = await undoDelete(id);
        // Not undone: a retry is out right now; its outcome decides.
        if (undone) {
          clearWaiting(id);
          unveil(id);
        }
      } catch (error) {
        showError(id, t("toast.undoFailed", { message: errorMessage(error) }));
      }
    },
    [clearWaiting, unveil, showError, t],
  );

  const flush = useCallback(() => {
    undoable.current.clear();
    for (const id of [...timers.current.keys()]) closeUndo(id);
    flushDeletes().catch((error: unknown) =>
      showError("flush", t("toast.flushFailed", { message: errorMessage(error) })),
    );
  }, [closeUndo, showError, t]);

  // Latest handler in a ref so the IPC listener is registered once for the app's life.
  const settle = useRef<(event: DeleteSettled) => void>(() => {});
  settle.current = (event) => {
    undoable.current.delete(event.id);
    closeUndo(event.id);
    if (event.outcome === "waiting") {
      veil(event.id);
      markWaiting({ id: event.id, orgId: event.orgId, message: event.message });
      return;
    }
    clearWaiting(event.id);
    if (event.outcome === "failed") {
      unveil(event.id);
      showError(event.id, t("toast.deleteFailed", { message: event.message ?? event.outcome }));
      return;
    }
    // deleted, or not_found (already gone): both mean done.
    removeFromCache(client, event.orgId, event.id);
    unveil(event.id);
  };
  useEffect(() => {
    let unlisten: (() => void) | undefined;
    let active = true;
    void onDeleteSettled((event) => settle.current(event)).then((fn) => {
      if (active) unlisten = fn;
      else fn();
    });
    return () => {
      active = false;
      unlisten?.();
    };
  }, []);

  // Deletes Rust still holds from before this page (a restart, a reload): hidden again,
  // and those waiting for the server listed.
  useEffect(() => {
    let active = true;
    listPendingDeletes()
      .then((pending) => {
        if (!active) return;
        for (const entry of pending) {
          veil(entry.id);
          if (entry.waiting) markWaiting({ id: entry.id, orgId: entry.orgId, message: entry.message });
        }
      })
      .catch((error: unknown) => showError("pending", t("toast.pendingFailed", { message: errorMessage(error) })));
    return () => {
      active = false;
    };
  }, [veil, markWaiting, showError, t]);

  useEffect(() => {
    const pending = timers.current;
    return () => pending.forEach((timer) => clearTimeout(timer));
  }, []);

  const api = useMemo(
    () => ({ veiled, waiting, cancelWaiting, confirmDelete, flush }),
    [veiled, waiting, cancelWaiting, confirmDelete, flush],
  );
  return <PendingDeletesContext.Provider value={api}>{children}</PendingDeletesContext.Provider>;
}
