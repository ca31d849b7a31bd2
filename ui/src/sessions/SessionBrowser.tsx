// The Sessions list screen: toolbar, then the list, the search hits, or a state.
import { useTranslation } from "react-i18next";
import { ErrorState } from "../memory/states/ErrorState";
import { Loading } from "../memory/states/Loading";
import type { OpenSessionFn, SessionsNav } from "./navigation";
import { SearchHits, SessionRows } from "./SessionRows";
import { SessionsToolbar } from "./SessionsToolbar";
import { SourceIcon } from "./SourceIcon";
import { useFacets, useMessageSearch, useSessionList, useSessionSources } from "./useSessions";

interface Props {
  nav: SessionsNav;
  setNav: (update: (nav: SessionsNav) => SessionsNav) => void;
  onOpen: OpenSessionFn;
  focusSessionId: string | null;
}

export function SessionBrowser({ nav, setNav, onOpen, focusSessionId }: Props) {
  const { t } = useTranslation();
  const facets = useFacets();
  const list = useSessionList(nav.source, nav.workspace, nav.status);
  const search = useMessageSearch(nav.search);

  let content;
  if (nav.search) {
    const hits = (search.data?.hits ?? []).filter((hit) => !nav.source || hit.source === nav.source);
    if (search.isPending) content = <Loading label={t("sessions.loading")} />;
    else if (search.isError)
      content = <ErrorState title={t("sessions.errorTitle")} error={search.error} onRetry={() => void search.refetch()} />;
    else if (hits.length === 0)
      content = (
        <section className="state" role="status">
          <p>{t("sessions.noHits", { query: nav.search })}</p>
        </section>
      );
    else content = <SearchHits hits={hits} onOpen={onOpen} />;
  } else if (list.isPending) content = <Loading label={t("sessions.loading")} />;
  else if (list.isError)
    content = <ErrorState title={t("sessions.errorTitle")} error={list.error} onRetry={() => void list.refetch()} />;
  else if (list.data.sessions.length === 0)
    content = nav.source || nav.workspace || nav.status !== "all" ? (
      <section className="state" role="status">
        <p>{t("sessions.emptyFiltered")}</p>
      </section>
    ) : (
      <section className="state" aria-labelledby="sessions-empty">
        <h2 id="sessions-empty">{t("sessions.emptyTitle")}</h2>
        <p>{t("sessions.emptyBody")}</p>
        <SourcesRead />
        <p>{t("sessions.emptyLater")}</p>
      </section>
    );
  else
    content = (
      <SessionRows
        sessions={list.data.sessions}
        total={list.data.total}
        onOpen={onOpen}
        focusSessionId={focusSessionId}
      />
    );

  return (
    <div className="browser">
      <SessionsToolbar nav={nav} setNav={setNav} facets={facets.data} />
      {content}
    </div>
  );
}

/** The sources read, and their folders, as the backend resolves them on this computer. */
function SourcesRead() {
  const { t } = useTranslation();
  const sources = useSessionSources();
  if (!sources.data) return null;
  const read = sources.data.filter((source) => source.enabled && source.folders.length > 0);
  return (
    <ul className="source-paths">
      {read.map((source) => (
        <li key={source.source}>
          <SourceIcon source={source.source} decorative /> {t(`sources.${source.source}`)}{" "}
          {source.folders.map((folder) => (
            <code key={folder.path}>{folder.path}</code>
          ))}{" "}
          {source.found ? t("sessions.sourceFound") : t("sessions.sourceNotFound")}
        </li>
      ))}
    </ul>
  );
}
