// Session sources: every tool whose sessions Memory Bank can read, whether it was found on
// this computer, the folders it is read from (its default ones here, then those added
// below), and a checkbox to stop reading it. Rust keeps the choice in the data folder, so
// `memory-bank sessions` and the agents' `memory-bank mcp` honour it too; a source turned
// off is hidden, not deleted or archived.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { errorMessage, sessionSources, setSourceEnabled, type SourceFolders } from "../ipc";
import { sessionsRoot, sourcesKey } from "../sessions/queryKeys";
import { SourceIcon } from "../sessions/SourceIcon";

export function SessionSourcesSection() {
  const { t } = useTranslation();
  const headingId = useId();
  const client = useQueryClient();
  const sources = useQuery({ queryKey: sourcesKey, queryFn: sessionSources });
  const [announcement, setAnnouncement] = useState("");
  const toggle = useMutation({
    mutationFn: setSourceEnabled,
    onSuccess: (list, { source, enabled }) => {
      client.setQueryData(sourcesKey, list);
      // The lists, facets and searches change with what is read.
      void client.invalidateQueries({ queryKey: sessionsRoot });
      const name = t(`sources.${source}`);
      setAnnouncement(enabled ? t("settings.sources.onStatus", { name }) : t("settings.sources.offStatus", { name }));
    },
  });

  let body;
  if (sources.isPending) body = <p role="status">{t("settings.sources.loading")}</p>;
  else if (sources.isError)
    body = (
      <p className="form-error" role="alert">
        {errorMessage(sources.error)}
      </p>
    );
  else
    body = (
      <ul className="source-list" aria-label={t("settings.sources.list")}>
        {sources.data.map((source) => (
          <SourceRow
            key={source.source}
            source={source}
            busy={toggle.isPending}
            onToggle={(enabled) => toggle.mutate({ source: source.source, enabled })}
          />
        ))}
      </ul>
    );

  return (
    <section className="settings-section" aria-labelledby={headingId}>
      <h2 id={headingId}>{t("settings.sources.title")}</h2>
      <p>{t("settings.sources.intro")}</p>
      {body}
      {toggle.error && (
        <p className="form-error" role="alert">
          {errorMessage(toggle.error)}
        </p>
      )}
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
    </section>
  );
}

function SourceRow({ source, busy, onToggle }: { source: SourceFolders; busy: boolean; onToggle: (enabled: boolean) => void }) {
  const { t } = useTranslation();
  const checkboxId = useId();
  const name = t(`sources.${source.source}`);
  const state = !source.enabled
    ? t("settings.sources.off")
    : source.found
      ? source.unreadable
        ? t("settings.sources.foundUnreadable")
        : t("settings.sources.found")
      : t("settings.sources.notFound");
  return (
    <li className="source-row">
      <div className="source-info">
        <p className="source-name">
          <SourceIcon source={source.source} decorative /> {name}
        </p>
        <p className="hint">{state}</p>
        {source.unreadable && (
          <p className="hint">
            {t(`settings.sources.unreadable.${source.source}`, { defaultValue: source.unreadable })}
          </p>
        )}
        {source.folders.length === 0 ? (
          <p className="hint">{t("settings.sources.noDefault", { name })}</p>
        ) : (
          <ul className="source-folders">
            {source.folders.map((folder) => (
              <li key={folder.path} className={folder.exists ? "folder-found" : "folder-missing"}>
                <code>{folder.path}</code>
                {" · "}
                {folder.exists ? t("settings.sources.folderFound") : t("settings.sources.folderMissing")}
                {folder.added && ` · ${t("settings.sources.folderAdded")}`}
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="checkbox">
        <input
          id={checkboxId}
          type="checkbox"
          checked={source.enabled}
          disabled={busy}
          onChange={(event) => onToggle(event.currentTarget.checked)}
        />
        <label htmlFor={checkboxId}>{t("settings.sources.read", { name })}</label>
      </div>
    </li>
  );
}
