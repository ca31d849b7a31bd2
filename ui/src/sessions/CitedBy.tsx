// Memories and their sessions, the other way round: which of the person's memories cite
// the open session, shown once on its header and as a "Remembered" marker on each message
// a memory cites. A marker shows the memory's text on hover and on focus, and opens that
// memory in the panel. Everything is React text.
import { useQuery } from "@tanstack/react-query";
import { createContext, useContext, useId } from "react";
import { useTranslation } from "react-i18next";
import { memoriesCiting, type AppState, type Memory } from "../ipc";
import { useOpenMemory } from "../memory/openMemory";
import { shorten } from "./format";

/** Query key prefix: a save from "Remember…" refetches it. */
export const citingRoot = ["memories-citing"] as const;

/** Markers shown on one message before "+N". */
const MARKERS_PER_MESSAGE = 3;

export interface Citations {
  all: Memory[];
  /** Memories by the message id they cite in this session. */
  byMessage: Map<string, Memory[]>;
}

const empty: Citations = { all: [], byMessage: new Map() };

export function useCitations(state: AppState, sessionId: string): Citations {
  const orgId = state.account === null ? null : state.activeOrgId;
  const query = useQuery({
    queryKey: [...citingRoot, orgId ?? "", sessionId],
    queryFn: () => memoriesCiting({ orgId: orgId as string, sessionId }),
    enabled: orgId !== null,
    staleTime: 10_000,
    // Markers are extra: a failure shows none and the transcript works as before.
    retry: false,
  });
  const memories = query.data?.memories;
  if (!memories) return empty;
  const byMessage = new Map<string, Memory[]>();
  for (const memory of memories) {
    const cited = new Set(
      memory.contexts
        .filter((c) => c.citation?.conversationId === sessionId && c.citation.messageId)
        .map((c) => c.citation!.messageId as string),
    );
    for (const messageId of cited) byMessage.set(messageId, [...(byMessage.get(messageId) ?? []), memory]);
  }
  return { all: memories, byMessage };
}

export const CitationsContext = createContext<Citations>(empty);

/** The "Remembered" markers of one message (none when no memory cites it). */
export function MessageCitations({ messageId }: { messageId: string }) {
  const { t } = useTranslation();
  const memories = useContext(CitationsContext).byMessage.get(messageId) ?? [];
  if (memories.length === 0) return null;
  const hidden = memories.length - MARKERS_PER_MESSAGE;
  return (
    <span className="cited-markers">
      {memories.slice(0, MARKERS_PER_MESSAGE).map((memory) => (
        <CitedMarker key={memory.id} memory={memory} />
      ))}
      {hidden > 0 && <span className="cited-more">{t("cited.more", { count: hidden })}</span>}
    </span>
  );
}

function CitedMarker({ memory }: { memory: Memory }) {
  const { t } = useTranslation();
  const open = useOpenMemory();
  const tipId = useId();
  return (
    <span className="cited">
      <button
        type="button"
        className="cited-marker"
        aria-label={t("cited.markerLabel", { content: shorten(memory.content, 120) })}
        aria-describedby={tipId}
        data-memory-id={memory.id}
        onClick={() => open?.(memory)}
      >
        <span aria-hidden="true">◆</span> {t("cited.marker")}
      </button>
      <span id={tipId} role="tooltip" className="cited-tip">
        {shorten(memory.content, 300)}
      </span>
    </span>
  );
}

/** On the transcript's header: how many memories cite the session, each one a link. */
export function SessionCitations() {
  const { t } = useTranslation();
  const { all } = useContext(CitationsContext);
  const open = useOpenMemory();
  if (all.length === 0) return null;
  return (
    <details className="session-citations">
      <summary>
        <span aria-hidden="true">◆</span> {t("cited.session", { count: all.length })}
      </summary>
      <ul aria-label={t("cited.list")}>
        {all.map((memory) => (
          <li key={memory.id}>
            <button type="button" className="link-button" data-memory-id={memory.id} onClick={() => open?.(memory)}>
              {shorten(memory.content, 200)}
            </button>
          </li>
        ))}
      </ul>
    </details>
  );
}
