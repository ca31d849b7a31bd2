// Settings → Data: Export… and Import…. Rust opens the system's file dialog and does the
// work off the UI thread, reporting `transfer-progress`; this section only shows where it
// is (a progress bar) and what came of it, so a 10⁵-memory import never blocks the window.
import { useMutation, useMutationState, useQueryClient, type MutationState } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import {
  errorMessage,
  exportMemories,
  importMemories,
  onTransferProgress,
  type AppState,
  type ExportOutcome,
  type ImportOutcome,
  type TransferProgress,
} from "../ipc";
import { listRoot, searchKeyPrefix } from "../memory/queryKeys";

/** The latest progress Rust reported; listened to from mount, so the first step of a
 * transfer is never missed. `clear` forgets it when a new transfer starts. */
function useTransferProgress(): [TransferProgress | null, () => void] {
  const [progress, setProgress] = useState<TransferProgress | null>(null);
  useEffect(() => {
    let active = true;
    let unlisten: (() => void) | undefined;
    void onTransferProgress((step) => active && setProgress(step)).then((fn) => {
      if (active) unlisten = fn;
      else fn();
    });
    return () => {
      active = false;
      unlisten?.();
    };
  }, []);
  return [progress, () => setProgress(null)];
}

const EXPORT_KEY = ["settings-data", "export"];
const IMPORT_KEY = ["settings-data", "import"];

/** The state of the newest export (or import) mutation, wherever it was started. */
function useLatest<T>(key: string[]): MutationState<T, Error> | undefined {
  const states = useMutationState({ filters: { mutationKey: key }, select: (m) => m.state as MutationState<T, Error> });
  return states.at(-1);
}

export function DataSection({ state }: { state: AppState }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const orgId = state.account === null ? null : state.activeOrgId;
  const exporting = useMutation({ mutationKey: EXPORT_KEY, mutationFn: exportMemories });
  const importing = useMutation({
    mutationKey: IMPORT_KEY,
    mutationFn: importMemories,
    onSuccess: (_outcome, args) => {
      void client.invalidateQueries({ queryKey: listRoot(args.orgId) });
      void client.invalidateQueries({ queryKey: searchKeyPrefix(args.orgId) });
    },
  });
  // Read from the mutation cache, not this component: an import started here goes on
  // while the person looks elsewhere, and its progress and outcome are here on return.
  const exported = useLatest<ExportOutcome>(EXPORT_KEY);
  const imported = useLatest<ImportOutcome>(IMPORT_KEY);
  const running = exported?.status === "pending" || imported?.status === "pending";
  const [progress, clearProgress] = useTransferProgress();
  // Only the newest transfer's outcome is shown.
  const exportIsNewer = (exported?.submittedAt ?? -1) > (imported?.submittedAt ?? -1);
  const latest = exportIsNewer ? exported : imported;
  const failure = latest?.error;

  return (
    <section className="settings-section" aria-labelledby="settings-data">
      <h2 id="settings-data">{t("settings.data.title")}</h2>
      <p className="hint">{t("settings.data.intro")}</p>
      <div className="form-actions">
        <button
          type="button"
          className="button"
          disabled={orgId === null || running}
          onClick={() => {
            clearProgress();
            if (orgId) exporting.mutate(orgId);
          }}
        >
          {t("settings.data.export")}
        </button>
        <button
          type="button"
          className="button"
          disabled={orgId === null || running}
          onClick={() => {
            clearProgress();
            if (orgId) importing.mutate({ orgId });
          }}
        >
          {t("settings.data.import")}
        </button>
      </div>
      {running && <ProgressLine progress={progress} />}
      <div role="status" className="data-status">
        {exportIsNewer && exported?.data?.path && (
          <p>{t("settings.data.exported", { count: exported.data.memories, path: exported.data.path })}</p>
        )}
        {!exportIsNewer && imported?.data?.path && <ImportSummary outcome={imported.data} />}
      </div>
      {failure && (
        <p className="form-error" role="alert">
          {t("settings.data.failed", { message: errorMessage(failure) })}
        </p>
      )}
    </section>
  );
}

function ProgressLine({ progress }: { progress: TransferProgress | null }) {
  const { t } = useTranslation();
  const total = progress?.total ?? null;
  const done = progress?.done ?? 0;
  const text =
    progress?.kind === "import" && total !== null
      ? t("settings.data.importing", { done, total })
      : t("settings.data.exporting", { count: done });
  return (
    <div className="data-progress">
      {/* No value while the total is unknown (an export): an indeterminate bar. */}
      <progress aria-label={t("settings.data.progress")} aria-valuetext={text} max={total ?? undefined} value={total === null ? undefined : done} />
      <span className="hint">{text}</span>
    </div>
  );
}

function ImportSummary({ outcome }: { outcome: ImportOutcome }) {
  const { t } = useTranslation();
  const { report } = outcome;
  const unlisted = report.failedCount - report.failed.length;
  const unlistedNew = report.newIdCount - report.newIds.length;
  return (
    <>
      <p>
        {t("settings.data.imported", {
          path: outcome.path,
          imported: report.imported + report.overwritten,
          skipped: report.skipped,
          failed: report.failedCount,
        })}
      </p>
      {report.failed.length > 0 && (
        <details>
          <summary>{t("settings.data.failedLines")}</summary>
          <ul className="data-failures">
            {report.failed.map((line) => (
              <li key={line.line}>
                <code>{line.line}</code> {line.message}
              </li>
            ))}
            {unlisted > 0 && <li>{t("settings.data.moreFailed", { count: unlisted })}</li>}
          </ul>
        </details>
      )}
      {report.newIdCount > 0 && (
        <>
          <p>{t("settings.data.newIds", { count: report.newIdCount })}</p>
          <details>
            <summary>{t("settings.data.newIdLines")}</summary>
            <ul className="data-failures">
              {report.newIds.map((line) => (
                <li key={line.line}>
                  <code>{line.line}</code> <code>{line.id}</code>
                </li>
              ))}
              {unlistedNew > 0 && <li>{t("settings.data.moreFailed", { count: unlistedNew })}</li>}
            </ul>
          </details>
        </>
      )}
    </>
  );
}
