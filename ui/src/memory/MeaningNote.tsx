// One quiet line under the search box while search by meaning is not ready for every
// memory: the backfill's progress ("Search by meaning: 1 200 of 3 000 memories ready"),
// or why the model cannot be used. Nothing when it is ready, or when the person chose
// words only. Rust answers from the database without loading the model, so polling
// (every 3 s, and only while something is left) costs a count.
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { searchStatus } from "../ipc";

export const MEANING_POLL_MS = 3000;

export function MeaningNote({ orgId }: { orgId: string }) {
  const { t } = useTranslation();
  const status = useQuery({
    queryKey: ["search-status", orgId],
    queryFn: () => searchStatus({ orgId }),
    refetchInterval: (query) => {
      const data = query.state.data;
      return data && data.meaning === "on" && data.withVector < data.memories ? MEANING_POLL_MS : false;
    },
  });
  const data = status.data;
  if (!data) return null;
  if (data.meaning === "unavailable")
    return (
      <p className="toolbar-note" role="status">
        {t("memory.meaning.unavailable", { reason: data.reason ?? "" })}
      </p>
    );
  if (data.meaning === "on" && data.withVector < data.memories)
    return (
      <p className="toolbar-note" role="status">
        {t("memory.meaning.backfill", { done: data.withVector, total: data.memories })}
      </p>
    );
  return null;
}
