// Settings → Agents: "Let agents look up relevant memories by themselves" (off by default).
// Turning it on or off changes the settings of every agent Memory Bank is installed in
// (the server's --recall, and the recall hook where an agent has hooks), so, like Install,
// nothing is written before the person has seen every exact change: the checkbox opens a
// dialog with each agent's diff, and confirming sends those diffs back; Rust writes an
// agent's change only if it is still the one shown, then keeps the setting.
import * as Ariakit from "@ariakit/react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { agentsKey } from "../inbox/queryKeys";
import { applyRecallChange, errorMessage, isIpcError, planRecallChange, type AgentsOverview } from "../ipc";
import { changedFiles } from "./AgentsSection";
import { DiffView } from "./DiffView";

export function RecallToggle({ overview, onDone }: { overview: AgentsOverview; onDone: (message: string) => void }) {
  const { t } = useTranslation();
  const checkboxId = useId();
  const helpId = useId();
  /** The state asked for while its dialog is open. */
  const [asked, setAsked] = useState<boolean | null>(null);
  return (
    <div className="recall-toggle">
      <div className="checkbox">
        <input
          id={checkboxId}
          type="checkbox"
          checked={overview.recall}
          aria-describedby={helpId}
          onChange={(event) => setAsked(event.currentTarget.checked)}
        />
        <label htmlFor={checkboxId}>{t("settings.agents.recallLabel")}</label>
      </div>
      <p id={helpId} className="hint">
        {t("settings.agents.recallHelp")}
      </p>
      <Ariakit.Dialog
        open={asked !== null}
        onClose={() => setAsked(null)}
        className="dialog dialog-wide"
        backdrop={<div className="dialog-backdrop" />}
        unmountOnHide
      >
        {asked !== null && (
          <RecallReview key={String(asked)} on={asked} overview={overview} onClose={() => setAsked(null)} onDone={onDone} />
        )}
      </Ariakit.Dialog>
    </div>
  );
}

interface ReviewProps {
  on: boolean;
  overview: AgentsOverview;
  onClose: () => void;
  onDone: (message: string) => void;
}

function RecallReview({ on, overview, onClose, onDone }: ReviewProps) {
  const { t } = useTranslation();
  const displayName = (agent: string) => overview.agents.find((a) => a.agent === agent)?.displayName ?? agent;
  const client = useQueryClient();
  const plan = useQuery({ queryKey: ["recall-plan", on], queryFn: () => planRecallChange({ on }), staleTime: 0, gcTime: 0 });
  /** Set when a file changed under the shown diffs; the new plan is shown instead. */
  const [stale, setStale] = useState(false);
  const apply = useMutation({
    mutationFn: applyRecallChange,
    onSuccess: (applied) => {
      client.setQueryData<AgentsOverview>(agentsKey, applied.overview);
      onDone(on ? t("settings.agents.recallDoneOn") : t("settings.agents.recallDoneOff"));
      onClose();
    },
    onError: (error) => {
      // Some agents may have been written before one was refused: show where things are.
      void client.invalidateQueries({ queryKey: agentsKey });
      if (isIpcError(error) && error.code === "agent_config_changed") {
        setStale(true);
        void plan.refetch();
      }
    },
  });

  let content;
  if (plan.isPending) content = <p role="status">{t("settings.agents.loading")}</p>;
  else if (plan.isError)
    content = (
      <p className="form-error" role="alert">
        {errorMessage(plan.error)}
      </p>
    );
  else {
    const changing = plan.data.agents.filter((agent) => agent.changed);
    content =
      changing.length === 0 ? (
        <p className="dialog-body">{t("settings.agents.recallNone")}</p>
      ) : (
        <>
          <p className="dialog-body">{t("settings.agents.recallBody")}</p>
          {changing.some((agent) => agent.agent === "claude-code") && <p className="hint">{t("settings.agents.claudeRunning")}</p>}
          {stale && (
            <p className="form-error" role="alert">
              {t("settings.agents.changed")}
            </p>
          )}
          {changing.map((agent) => (
            <section key={agent.agent} className="recall-agent" aria-label={displayName(agent.agent)}>
              <h3>{t("settings.agents.recallAgent", { agent: displayName(agent.agent), path: changedFiles(agent).join(", ") })}</h3>
              <DiffView diff={agent.diff} label={t("settings.agents.recallDiff", { agent: displayName(agent.agent) })} />
            </section>
          ))}
        </>
      );
  }

  const canApply = plan.isSuccess && !apply.isPending && !plan.isFetching;
  return (
    <>
      <Ariakit.DialogHeading className="dialog-title">
        {on ? t("settings.agents.recallOnTitle") : t("settings.agents.recallOffTitle")}
      </Ariakit.DialogHeading>
      {content}
      {apply.isError && !(isIpcError(apply.error) && apply.error.code === "agent_config_changed") && (
        <p className="form-error" role="alert">
          {errorMessage(apply.error)}
        </p>
      )}
      <div className="dialog-actions">
        <Ariakit.DialogDismiss className="button">{t("settings.agents.cancel")}</Ariakit.DialogDismiss>
        <button
          type="button"
          className="button button-primary"
          disabled={!canApply}
          onClick={() => {
            if (!plan.isSuccess) return;
            setStale(false);
            apply.mutate({ on, reviewed: plan.data.agents.map((agent) => ({ agent: agent.agent, diff: agent.diff })) });
          }}
        >
          {apply.isPending ? t("settings.agents.applying") : on ? t("settings.agents.recallConfirmOn") : t("settings.agents.recallConfirmOff")}
        </button>
      </div>
    </>
  );
}
