// A member's share of the org Inbox: the team proposals they (or their agents) made, and
// what became of each. Only the org's admins and owners decide them, so this is to
// follow, never to decide: no Accept or Reject, no keys. Everything is React text.
import { useId } from "react";
import { useTranslation } from "react-i18next";
import type { Proposal, ProposalListResponse } from "../ipc";
import { clientName } from "./clientName";

interface Props {
  orgName: string;
  headingId: string;
  listed: ProposalListResponse;
}

export function OwnTeamProposals({ orgName, headingId, listed }: Props) {
  const { t } = useTranslation();
  const proposals = listed.proposals;
  return (
    <section className="inbox inbox-team inbox-own-team" aria-labelledby={headingId}>
      <div className="toolbar">
        <h2 id={headingId} className="inbox-title">
          {t("inbox.ownTeamTitle", { org: orgName })}
        </h2>
        <p className="toolbar-description">{t("inbox.ownTeamDescription")}</p>
      </div>
      {proposals.length === 0 ? (
        <div className="state">
          <p>{t("inbox.ownTeamEmpty")}</p>
        </div>
      ) : (
        <ul className="inbox-list" aria-label={t("inbox.ownTeamList")}>
          {proposals.map((proposal) => (
            <li key={proposal.id}>
              <OwnProposal proposal={proposal} />
            </li>
          ))}
        </ul>
      )}
      {listed.nextCursor && <p className="hint">{t("inbox.ownTeamMore", { count: proposals.length })}</p>}
    </section>
  );
}

function OwnProposal({ proposal }: { proposal: Proposal }) {
  const { t, i18n } = useTranslation();
  const titleId = useId();
  const created = new Date(proposal.createdAt);
  const createdText = Number.isNaN(created.getTime())
    ? proposal.createdAt
    : new Intl.DateTimeFormat(i18n.language, { dateStyle: "medium", timeStyle: "short" }).format(created);
  const status = {
    pending: t("inbox.ownTeamPending"),
    accepted: t("inbox.ownTeamAccepted"),
    rejected: t("inbox.ownTeamRejected"),
    expired: t("inbox.ownTeamExpired"),
  }[proposal.status];
  const client = proposal.proposedBy ? clientName(proposal.proposedBy) : null;
  const kind =
    proposal.action === "delete" ? t("inbox.delete") : proposal.action === "edit" ? t("inbox.edit") : t("inbox.save");
  return (
    <article className={`proposal proposal-own proposal-${proposal.status}`} aria-labelledby={titleId}>
      <p className="proposal-kind">{kind}</p>
      <p id={titleId} className="row-title">
        {proposal.content}
      </p>
      <div className="row-meta">
        <span className="proposal-status">{status}</span>
        <span>
          {client ? `${t("inbox.proposedBy", { client })} · ` : ""}
          <time dateTime={proposal.createdAt}>{createdText}</time>
        </span>
      </div>
    </article>
  );
}
