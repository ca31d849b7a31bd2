// Settings → Import chats (after Data): a ChatGPT or Claude.ai export (the .zip their export email
// links to, or the conversations.json in it), picked in the system's dialog by Rust, kept in
// the data folder and read into the session history, where its conversations are listed,
// read, searched and cited like any session. Importing again, or a newer export, updates
// what changed.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId } from "react";
import { useTranslation } from "react-i18next";
import { errorMessage, importChats } from "../ipc";
import { sessionsRoot } from "../sessions/queryKeys";

export function ChatImportSection() {
  const { t } = useTranslation();
  const headingId = useId();
  const client = useQueryClient();
  const importing = useMutation({
    mutationFn: importChats,
    onSuccess: () => void client.invalidateQueries({ queryKey: sessionsRoot }),
  });
  const outcome = importing.data;
  const imported = outcome?.imported;
  return (
    <section className="settings-section" aria-labelledby={headingId}>
      <h2 id={headingId}>{t("settings.chats.title")}</h2>
      <p className="hint">{t("settings.chats.intro")}</p>
      <div className="form-actions">
        <button type="button" className="button" disabled={importing.isPending} onClick={() => importing.mutate()}>
          {importing.isPending ? t("settings.chats.importing") : t("settings.chats.import")}
        </button>
      </div>
      <div role="status">
        {outcome?.path && imported && (
          <p>
            {t("settings.chats.imported", {
              source: imported.source ? t(`sources.${imported.source}`) : "",
              count: imported.conversations,
              added: imported.added,
              updated: imported.updated,
              unchanged: imported.unchanged,
            })}
          </p>
        )}
      </div>
      {importing.error && (
        <p className="form-error" role="alert">
          {errorMessage(importing.error)}
        </p>
      )}
    </section>
  );
}
