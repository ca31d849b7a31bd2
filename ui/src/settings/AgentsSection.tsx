// Settings → Agents: every agent we register with (found or not, Memory Bank installed or not, their
// settings file), with Install / Remove. Nothing is written before the person has seen
// the exact change: the button asks Rust for the plan (a unified diff), a dialog shows
// it, and confirming sends that diff back; Rust writes only if the file would still get
// exactly that change (else it says so and the dialog shows the new one).
import * as Ariakit from "@ariakit/react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { agentsKey } from "../inbox/queryKeys";
import { DiffView } from "./DiffView";
import { RecallToggle } from "./RecallToggle";
import {
  agentStatuses,
  applyAgentChange,
  errorMessage,
  isIpcError,
  planAgentChange,
  type AgentAction,
  type AgentNotice,
  type AgentPlan,
  type AgentStatus,
  type AgentsOverview,
} from "../ipc";

/** What each notice from Rust says, in the person's language. */
export const NOTICE_KEYS: Record<AgentNotice, string> = {
  "trust-the-folder": "settings.agents.noticeTrustTheFolder",
  "trust-the-hook": "settings.agents.noticeTrustTheHook",
};

/** The files a plan writes, each once, in the order written. */
export function changedFiles(plan: AgentPlan): string[] {
  const written = plan.parts.filter((part) => part.change !== "already-installed" && part.change !== "not-installed");
  return [...new Set(written.map((part) => part.configPath))];
}

interface Review {
  status: AgentStatus;
  action: AgentAction;
}

export function AgentsSection({ autoFocus = false }: { autoFocus?: boolean }) {
  const { t } = useTranslation();
  const headingId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const agents = useQuery({ queryKey: agentsKey, queryFn: agentStatuses, staleTime: 0 });
  const [review, setReview] = useState<Review | null>(null);
  const [announcement, setAnnouncement] = useState("");

  useEffect(() => {
    if (!autoFocus) return;
    headingRef.current?.focus();
    headingRef.current?.scrollIntoView({ block: "start" });
  }, [autoFocus]);

  let body;
  if (agents.isPending) body = <p role="status">{t("settings.agents.loading")}</p>;
  else if (agents.isError)
    body = (
      <div role="alert">
        <p className="form-error">
          {t("settings.agents.errorTitle")}: {errorMessage(agents.error)}
        </p>
        <button type="button" className="button" onClick={() => void agents.refetch()}>
          {t("settings.agents.retry")}
        </button>
      </div>
    );
  else {
    const { cli } = agents.data;
    body = (
      <>
        {cli.path ? (
          <p>
            {t("settings.agents.runs")} <code>{`${cli.path} mcp`}</code>
          </p>
        ) : (
          <p className="form-error">{cli.problem}</p>
        )}
        <RecallToggle overview={agents.data} onDone={setAnnouncement} />
        <ul className="agent-list" aria-label={t("settings.agents.list")}>
          {agents.data.agents.map((status) => (
            <AgentRow
              key={status.agent}
              status={status}
              recall={agents.data.recall}
              canInstall={cli.path !== null}
              onReview={(action) => {
                setAnnouncement("");
                setReview({ status, action });
              }}
            />
          ))}
        </ul>
      </>
    );
  }

  return (
    <section className="settings-section" aria-labelledby={headingId}>
      <h2 id={headingId} ref={headingRef} tabIndex={-1}>
        {t("settings.agents.title")}
      </h2>
      <p>{t("settings.agents.intro")}</p>
      {body}
      <p role="status" className="agents-status">
        {announcement}
      </p>
      <ReviewDialog review={review} onClose={() => setReview(null)} onDone={setAnnouncement} />
    </section>
  );
}

function AgentRow({
  status,
  recall,
  canInstall,
  onReview,
}: {
  status: AgentStatus;
  /** Whether recall is on (what Install registers). */
  recall: boolean;
  canInstall: boolean;
  onReview: (action: AgentAction) => void;
}) {
  const { t } = useTranslation();
  const agent = status.displayName;
  const installState = status.installed
    ? status.upToDate
      ? t("settings.agents.installed")
      : t("settings.agents.outdated")
    : t("settings.agents.notInstalled");
  return (
    <li className="agent-row">
      <div className="agent-info">
        <p className="agent-name">
          {agent}
        </p>
        <p className="agent-state">
          <span className={status.installed ? "agent-installed" : undefined}>{installState}</span>
          {status.installed && status.recall && ` · ${t("settings.agents.recallState")}`}
          {" · "}
          {status.detected ? t("settings.agents.detected") : t("settings.agents.notDetected")}
        </p>
        <p className="hint">
          {t("settings.agents.config")} <code>{status.configPath}</code>
        </p>
        {status.notice && <p className="hint agent-notice">{t(NOTICE_KEYS[status.notice])}</p>}
        {recall && status.recallNotice && <p className="hint agent-notice">{t(NOTICE_KEYS[status.recallNotice])}</p>}
        {status.problem && <p className="form-error">{status.problem}</p>}
      </div>
      <div className="agent-actions">
        {(!status.installed || !status.upToDate) && (
          <button
            type="button"
            className="button button-primary"
            aria-label={t("settings.agents.installLabel", { agent })}
            disabled={!canInstall}
            onClick={() => onReview("install")}
          >
            {t("settings.agents.install")}
          </button>
        )}
        {status.installed && (
          <button
            type="button"
            className="button"
            aria-label={t("settings.agents.removeLabel", { agent })}
            onClick={() => onReview("remove")}
          >
            {t("settings.agents.remove")}
          </button>
        )}
      </div>
    </li>
  );
}

function ReviewDialog({
  review,
  onClose,
  onDone,
}: {
  review: Review | null;
  onClose: () => void;
  onDone: (message: string) => void;
}) {
  return (
    <Ariakit.Dialog
      open={review !== null}
      onClose={onClose}
      className="dialog dialog-wide"
      backdrop={<div className="dialog-backdrop" />}
      unmountOnHide
    >
      {review && (
        <ReviewBody key={`${review.status.agent}:${review.action}`} review={review} onClose={onClose} onDone={onDone} />
      )}
    </Ariakit.Dialog>
  );
}

function ReviewBody({ review, onClose, onDone }: { review: Review; onClose: () => void; onDone: (message: string) => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const { status, action } = review;
  const agent = status.displayName;
  const plan = useQuery({
    queryKey: ["agent-plan", status.agent, action],
    queryFn: () => planAgentChange({ agent: status.agent, action }),
    staleTime: 0,
    gcTime: 0,
  });
  /** Set when the file changed under the shown diff; the new plan is shown instead. */
  const [stale, setStale] = useState(false);
  const apply = useMutation({
    mutationFn: applyAgentChange,
    onSuccess: (applied) => {
      client.setQueryData<AgentsOverview>(agentsKey, applied.overview);
      onDone(
        action === "install" ? t("settings.agents.doneInstall", { agent }) : t("settings.agents.doneRemove", { agent }),
      );
      onClose();
    },
    onError: (error) => {
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
        {t("settings.agents.failed", { agent, message: errorMessage(plan.error) })}
      </p>
    );
  else if (!plan.data.changed) content = <p>{t("settings.agents.nothing", { agent })}</p>;
  else
    content = (
      <>
        <p className="dialog-body">{t("settings.agents.reviewBody", { path: changedFiles(plan.data).join(", ") })}</p>
        {status.agent === "claude-code" && <p className="hint">{t("settings.agents.claudeRunning")}</p>}
        {stale && (
          <p className="form-error" role="alert">
            {t("settings.agents.changed")}
          </p>
        )}
        <DiffView diff={plan.data.diff} label={t("settings.agents.diff")} />
      </>
    );

  const canApply = plan.isSuccess && plan.data.changed && !apply.isPending && !plan.isFetching;
  return (
    <>
      <Ariakit.DialogHeading className="dialog-title">
        {action === "install"
          ? t("settings.agents.reviewInstall", { agent })
          : t("settings.agents.reviewRemove", { agent })}
      </Ariakit.DialogHeading>
      {content}
      {apply.isError && !(isIpcError(apply.error) && apply.error.code === "agent_config_changed") && (
        <p className="form-error" role="alert">
          {t("settings.agents.failed", { agent, message: errorMessage(apply.error) })}
        </p>
      )}
      <div className="dialog-actions">
        <Ariakit.DialogDismiss className="button">
          {plan.isSuccess && !plan.data.changed ? t("settings.agents.close") : t("settings.agents.cancel")}
        </Ariakit.DialogDismiss>
        {plan.isSuccess && plan.data.changed && (
          <button
            type="button"
            className={`button ${action === "install" ? "button-primary" : "button-danger-solid"}`}
            disabled={!canApply}
            onClick={() => {
              setStale(false);
              apply.mutate({ agent: status.agent, action, diff: plan.data.diff });
            }}
          >
            {apply.isPending
              ? t("settings.agents.applying")
              : action === "install"
                ? t("settings.agents.confirmInstall")
                : t("settings.agents.confirmRemove")}
          </button>
        )}
      </div>
    </>
  );
}
