// Content search plus the source and workspace filters (from session_facets).
import { useCallback, useId } from "react";
import { useTranslation } from "react-i18next";
import type { Facets, SessionStatus, Source } from "../ipc";
import { SearchBox } from "../memory/SearchBox";
import type { SessionsNav } from "./navigation";

interface Props {
  nav: SessionsNav;
  setNav: (update: (nav: SessionsNav) => SessionsNav) => void;
  facets: Facets | undefined;
}

export function SessionsToolbar({ nav, setNav, facets }: Props) {
  const { t } = useTranslation();
  const sourceId = useId();
  const workspaceId = useId();
  const statusId = useId();
  const hintId = useId();
  const onQuery = useCallback(
    (search: string) => setNav((prev) => (prev.search === search ? prev : { ...prev, search })),
    [setNav],
  );
  const sources = facets?.sources ?? [];
  const workspaces = facets?.workspaces ?? [];
  const searching = nav.search !== "";

  return (
    <div className="toolbar" role="region" aria-label={t("sessions.toolbar")}>
      <p className="toolbar-description">{t("sessions.description")}</p>
      <div className="toolbar-controls">
        <SearchBox
          onQuery={onQuery}
          label={t("sessions.searchLabel")}
          placeholder={t("sessions.searchPlaceholder")}
          initialText={nav.search}
        />
        <label className="org-switcher" htmlFor={sourceId}>
          {t("sessions.source")}
          <select
            id={sourceId}
            className="input"
            value={nav.source}
            onChange={(event) => {
              const source = event.currentTarget.value as Source | "";
              setNav((prev) => ({ ...prev, source }));
            }}
          >
            <option value="">{t("sessions.allSources")}</option>
            {sources.map((facet) => (
              <option key={facet.source} value={facet.source}>
                {t("sessions.facet", { name: t(`sources.${facet.source}`), count: facet.count })}
              </option>
            ))}
          </select>
        </label>
        <label className="org-switcher" htmlFor={statusId}>
          {t("sessions.status")}
          <select
            id={statusId}
            className="input"
            value={nav.status}
            onChange={(event) => {
              const status = event.currentTarget.value as SessionStatus;
              setNav((prev) => ({ ...prev, status }));
            }}
          >
            <option value="all">{t("sessions.statusAll")}</option>
            <option value="live">{t("sessions.statusLive")}</option>
            <option value="archived">{t("sessions.statusArchived")}</option>
          </select>
        </label>
        <label className="org-switcher" htmlFor={workspaceId}>
          {t("sessions.workspace")}
          <select
            id={workspaceId}
            className="input select-workspace"
            value={nav.workspace}
            disabled={searching}
            aria-describedby={searching ? hintId : undefined}
            onChange={(event) => {
              const workspace = event.currentTarget.value;
              setNav((prev) => ({ ...prev, workspace }));
            }}
          >
            <option value="">{t("sessions.allWorkspaces")}</option>
            {nav.workspace && !workspaces.some((facet) => facet.workspace === nav.workspace) && (
              <option value={nav.workspace}>{nav.workspace}</option>
            )}
            {workspaces.map((facet) => (
              <option key={facet.workspace} value={facet.workspace}>
                {t("sessions.facet", { name: facet.workspace, count: facet.count })}
              </option>
            ))}
          </select>
        </label>
      </div>
      {searching && (
        <p id={hintId} className="hint">
          {t("sessions.workspaceSearchHint")}
        </p>
      )}
    </div>
  );
}
