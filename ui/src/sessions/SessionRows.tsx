// The session list and the content-search hits. Titles, workspaces and snippets are
// React text (never HTML); long titles are cut for display with the full text in a
// tooltip.
import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import type { SearchHit, SessionInfo } from "../ipc";
import { dateOnly, dateTime, formatNumber, relativeTime, shorten } from "./format";
import type { OpenSessionFn } from "./navigation";
import { SourceIcon } from "./SourceIcon";

interface ListProps {
  sessions: SessionInfo[];
  total: number;
  onOpen: OpenSessionFn;
  /** The session the person came back from, to put focus back on its row. */
  focusSessionId: string | null;
}

export function SessionRows({ sessions, total, onOpen, focusSessionId }: ListProps) {
  const { t, i18n } = useTranslation();
  const listRef = useRef<HTMLUListElement>(null);
  const now = Date.now();

  useEffect(() => {
    if (!focusSessionId) return;
    const rows = listRef.current?.querySelectorAll<HTMLElement>("[data-session-id]") ?? [];
    Array.from(rows).find((row) => row.dataset.sessionId === focusSessionId)?.focus();
  }, [focusSessionId]);

  return (
    <div className="sessions-scroll">
      {total > sessions.length && (
        <p className="sessions-count" role="status">
          {t("sessions.showing", {
            shown: formatNumber(sessions.length, i18n.language),
            total: formatNumber(total, i18n.language),
          })}
        </p>
      )}
      <ul ref={listRef} className="sessions" aria-label={t("sessions.list")}>
        {sessions.map((session) => (
          <li key={session.sessionId}>
            <button
              type="button"
              className="session-row"
              data-session-id={session.sessionId}
              title={session.title}
              onClick={() => onOpen(session.sessionId, null)}
            >
              <SourceIcon source={session.source} />
              <span className="session-main">
                <span className="session-title">{shorten(session.title)}</span>
                <span className="session-meta">
                  <span className="session-workspace">
                    {session.workspace ?? t("sessions.noWorkspace")}
                  </span>
                  {session.updatedAt && (
                    <time dateTime={session.updatedAt} title={dateTime(session.updatedAt, i18n.language) ?? undefined}>
                      {relativeTime(session.updatedAt, i18n.language, now) ?? session.updatedAt}
                    </time>
                  )}
                  <span>{t("sessions.messages", { count: session.messageCount })}</span>
                  {session.archived && <ArchivedBadge archivedAt={session.archivedAt ?? null} />}
                </span>
              </span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** "Archived: the original was removed on DATE": its tool deleted it; the history kept it. */
export function ArchivedBadge({ archivedAt }: { archivedAt: string | null }) {
  const { t, i18n } = useTranslation();
  const day = dateOnly(archivedAt, i18n.language);
  return <span className="badge badge-archived">{day ? t("sessions.archivedOn", { date: day }) : t("sessions.archived")}</span>;
}

interface HitProps {
  hits: SearchHit[];
  onOpen: OpenSessionFn;
}

export function SearchHits({ hits, onOpen }: HitProps) {
  const { t } = useTranslation();
  return (
    <div className="sessions-scroll">
      <ul className="sessions" aria-label={t("sessions.hits")}>
        {hits.map((hit) => (
          <li key={`${hit.sessionId}\u0000${hit.messageId}`}>
            <button
              type="button"
              className="session-row"
              title={hit.title}
              onClick={() => onOpen(hit.sessionId, { index: hit.index })}
            >
              <SourceIcon source={hit.source} />
              <span className="session-main">
                <span className="session-title">{shorten(hit.title)}</span>
                <span className="hit-snippet">
                  <span className="hit-role">{t(`sessions.${hit.role}`)}: </span>
                  {hit.snippet}
                </span>
              </span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
