import { useTranslation } from "react-i18next";
import type { BankScope } from "../../ipc";

/** No memories at all (pointing to Settings → Agents → Install first), or (with
 *  `query`) none matching a search. */
export function Empty({ query, scope = "all", onOpenAgents }: { query?: string; scope?: BankScope; onOpenAgents?: () => void }) {
  const { t } = useTranslation();
  if (!query && scope !== "all") {
    // Only one bank is shown: the other may well hold memories.
    return (
      <section className="state" role="status">
        <p>{t(scope === "team" ? "states.noTeamMemories" : "states.noOwnMemories")}</p>
      </section>
    );
  }
  if (query) {
    return (
      <section className="state" role="status">
        <p>{t("states.noResults", { query })}</p>
      </section>
    );
  }
  return (
    <section className="state" aria-labelledby="state-empty">
      <h2 id="state-empty">{t("states.emptyTitle")}</h2>
      <p>{t("states.emptyBody")}</p>
      <p>{t("states.emptyHowTo")}</p>
      {onOpenAgents && (
        <button type="button" className="button button-primary" onClick={onOpenAgents}>
          {t("states.openAgents")}
        </button>
      )}
    </section>
  );
}
