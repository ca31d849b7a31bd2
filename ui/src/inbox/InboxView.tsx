// The Inbox: pending proposals from agents, each accepted (after a check, with the text
// editable) or rejected by the person. Keyboard-first: one proposal is in the tab order
// at a time (roving tabindex); arrows or J/K move, Enter opens the check, R or Delete
// rejects. Decisions are announced in a polite status line, and focus moves on to the
// next proposal. New proposals arrive through `inbox-changed` (see useInbox.ts).
// For an org's admins and owners the org Inbox follows (what members and their agents
// proposed to the team bank), decided the same way; a member sees instead the team
// proposals they made, and what became of each, without deciding them.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { useTranslation } from "react-i18next";
import {
  acceptProposal,
  errorMessage,
  isIpcError,
  rejectProposal,
  type AppState,
  type Proposal,
  type ProposalEdits,
  type ProposalListResponse,
} from "../ipc";
import { listRoot, searchKeyPrefix } from "../memory/queryKeys";
import { ErrorState } from "../memory/states/ErrorState";
import { Loading } from "../memory/states/Loading";
import { NoActiveOrg } from "../memory/states/NoActiveOrg";
import { NotSignedIn } from "../memory/states/NotSignedIn";
import { OwnTeamProposals } from "./OwnTeamProposals";
import { ProposalItem } from "./ProposalItem";
import { inboxKey, inboxRoot, teamInboxKey } from "./queryKeys";
import { useInbox, useTeamInbox } from "./useInbox";
import { memberName, useTeamMembers } from "../team/useTeam";
import "./inbox.css";

interface Props {
  state: AppState;
  onOpenSettings: () => void;
  onOpenAgents: () => void;
  onSwitchOrg: (orgId: string) => void;
}

export function InboxView({ state, onOpenSettings, onOpenAgents, onSwitchOrg }: Props) {
  const headingId = useId();
  const teamHeadingId = useId();
  // The keys are said once, in the person's own Inbox; the org Inbox's list points to it.
  const keysId = useId();
  if (state.account === null) return <NotSignedIn onOpenSettings={onOpenSettings} error={state.connectError} />;
  if (state.activeOrgId === null) return <NoActiveOrg orgs={state.orgs} onSwitchOrg={onSwitchOrg} />;
  return (
    <>
      <section className="inbox" aria-labelledby={headingId}>
        <Inbox state={state} orgId={state.activeOrgId} headingId={headingId} keysId={keysId} onOpenAgents={onOpenAgents} />
      </section>
      <TeamInbox state={state} orgId={state.activeOrgId} headingId={teamHeadingId} keysId={keysId} />
    </>
  );
}

/** The org Inbox for the org's admins and owners; a member's own team proposals, read-only
 *  (the server says which: `yourRole`). */
function TeamInbox(props: { state: AppState; orgId: string; headingId: string; keysId: string }) {
  const { state, orgId, headingId } = props;
  const team = useTeamInbox(state);
  if (!team.data) return null;
  if (team.data.yourRole === "member") {
    const orgName = state.orgs.find((org) => org.id === orgId)?.name ?? orgId;
    return <OwnTeamProposals orgName={orgName} headingId={headingId} listed={team.data} />;
  }
  return (
    <section className="inbox inbox-team" aria-labelledby={headingId}>
      <Inbox {...props} team={team} />
    </section>
  );
}

type Decision = { kind: "accept"; edits?: ProposalEdits } | { kind: "reject" };

interface InboxProps {
  state: AppState;
  orgId: string;
  headingId: string;
  /** The keys' hint: the person's own Inbox shows it, the org Inbox's list refers to it. */
  keysId: string;
  /** The person's own Inbox: its empty state points to Settings → Agents. */
  onOpenAgents?: () => void;
  /** The org Inbox instead of the person's own (its query, answered for an admin). */
  team?: ReturnType<typeof useTeamInbox>;
}

function Inbox({ state, orgId, headingId, keysId, onOpenAgents, team }: InboxProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const own = useInbox(team ? undefined : state);
  const inbox = team ?? own;
  const key = team ? teamInboxKey(orgId) : inboxKey(orgId);
  const proposals = inbox.data?.proposals ?? [];
  // Who proposed each team proposal: their email when the members list names them.
  const members = useTeamMembers(orgId, Boolean(team));
  const me = state.user?.id ?? null;
  const orgName = state.orgs.find((org) => org.id === orgId)?.name ?? orgId;
  const proposer = (proposal: Proposal) =>
    team && proposal.proposer ? memberName(proposal.proposer, me, members.data, t) : null;
  const [activeId, setActiveId] = useState<string | null>(null);
  const [openId, setOpenId] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [announcement, setAnnouncement] = useState("");
  const items = useRef(new Map<string, HTMLElement>());
  const headingRef = useRef<HTMLHeadingElement>(null);
  /** Where focus goes once the list shows a decision: a proposal's id, or the heading. */
  const [focusRequest, setFocusRequest] = useState<{ to: string | null } | null>(null);

  // The tab stop: the proposal last focused while it is listed, else the first.
  const active = proposals.some((p) => p.id === activeId) ? activeId : (proposals[0]?.id ?? null);

  useEffect(() => {
    if (!focusRequest) return;
    setFocusRequest(null);
    const to = focusRequest.to;
    const element = to !== null && proposals.some((p) => p.id === to) ? items.current.get(to) : null;
    if (to !== null) setActiveId(to);
    (element ?? headingRef.current)?.focus();
  }, [focusRequest, proposals]);

  const decide = useMutation({
    // `after`: the proposal that gets the focus once this one is decided.
    mutationFn: ({ proposal, decision }: { proposal: Proposal; decision: Decision; after: string | null }) =>
      decision.kind === "accept"
        ? acceptProposal({ orgId, id: proposal.id, ...(decision.edits ? { edits: decision.edits } : {}) })
        : rejectProposal({ orgId, id: proposal.id }),
    onMutate: ({ proposal }) => {
      setErrors(({ [proposal.id]: _gone, ...rest }) => rest);
    },
    onSuccess: (answer, { proposal, decision, after }) => {
      client.setQueryData<ProposalListResponse | null>(key, (old) =>
        old ? { ...old, proposals: old.proposals.filter((p) => p.id !== proposal.id) } : old,
      );
      void client.invalidateQueries({ queryKey: inboxRoot });
      if (decision.kind === "accept") {
        void client.invalidateQueries({ queryKey: listRoot(proposal.orgId) });
        void client.invalidateQueries({ queryKey: searchKeyPrefix(proposal.orgId) });
      }
      const content = answer.memory?.content ?? proposal.content;
      setAnnouncement(
        decision.kind === "reject"
          ? t("inbox.rejected", { content })
          : proposal.action === "delete"
            ? t("inbox.deleted", { content })
            : t("inbox.accepted", { content }),
      );
      setOpenId(null);
      setFocusRequest({ to: after });
    },
    onError: (error, { proposal, after }) => {
      if (isIpcError(error) && (error.code === "proposal_not_pending" || error.code === "proposal_not_found")) {
        // Decided elsewhere (say, in the agent) or expired: it leaves the list.
        setAnnouncement(t("inbox.gone"));
        setOpenId(null);
        setFocusRequest({ to: after });
        void client.invalidateQueries({ queryKey: inboxRoot });
        return;
      }
      setErrors((old) => ({ ...old, [proposal.id]: errorMessage(error) }));
    },
  });
  const busyId = decide.isPending ? (decide.variables?.proposal.id ?? null) : null;

  /** The proposal focus goes to when `id` leaves the list: the next, else the previous. */
  function neighbour(id: string): string | null {
    const index = proposals.findIndex((p) => p.id === id);
    return proposals[index + 1]?.id ?? proposals[index - 1]?.id ?? null;
  }

  const focusAt = (index: number) => {
    const target = proposals[Math.max(0, Math.min(proposals.length - 1, index))];
    if (!target) return;
    setActiveId(target.id);
    items.current.get(target.id)?.focus();
  };
  const reject = (proposal: Proposal) => {
    if (busyId) return;
    decide.mutate({ proposal, decision: { kind: "reject" }, after: neighbour(proposal.id) });
  };
  const open = (proposal: Proposal) => {
    setActiveId(proposal.id);
    setOpenId(proposal.id);
  };
  const cancel = (proposal: Proposal) => {
    setOpenId(null);
    items.current.get(proposal.id)?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    const target = event.target as HTMLElement;
    const item = target.closest<HTMLElement>("[data-proposal-id]");
    if (!item || target.matches("textarea, input, select") || event.altKey || event.ctrlKey || event.metaKey) return;
    const index = proposals.findIndex((p) => p.id === item.dataset.proposalId);
    const proposal = proposals[index];
    if (!proposal) return;
    const onItem = target === item;
    switch (event.key) {
      case "ArrowDown":
      case "j":
        focusAt(index + 1);
        break;
      case "ArrowUp":
      case "k":
        focusAt(index - 1);
        break;
      case "Home":
        focusAt(0);
        break;
      case "End":
        focusAt(proposals.length - 1);
        break;
      case "Enter":
        if (!onItem) return;
        open(proposal);
        break;
      case "r":
      case "R":
      case "Delete":
        if (!onItem) return;
        reject(proposal);
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  let content;
  if (inbox.isPending) content = <Loading label={t("inbox.loading")} />;
  else if (inbox.isError)
    content = <ErrorState error={inbox.error} onRetry={() => void inbox.refetch()} title={t("inbox.errorTitle")} />;
  else if (proposals.length === 0 && team)
    content = (
      <div className="state">
        <p>{t("inbox.teamEmpty")}</p>
      </div>
    );
  else if (proposals.length === 0)
    content = (
      <div className="state">
        <h3>{t("inbox.emptyTitle")}</h3>
        <p>{t("inbox.emptyBody")}</p>
        <p>{t("inbox.emptyAgents")}</p>
        <button type="button" className="button" onClick={() => onOpenAgents?.()}>
          {t("states.openAgents")}
        </button>
      </div>
    );
  else
    content = (
      <>
        <ul
          className="inbox-list"
          aria-label={team ? t("inbox.teamList") : t("inbox.list")}
          aria-describedby={keysId}
          onKeyDown={onKeyDown}
        >
          {proposals.map((proposal) => (
            <li key={proposal.id}>
              <ProposalItem
                proposal={proposal}
                otherOrg={
                  proposal.orgId === orgId
                    ? null
                    : (state.orgs.find((org) => org.id === proposal.orgId)?.name ?? proposal.orgId)
                }
                proposer={proposer(proposal)}
                active={proposal.id === active}
                open={proposal.id === openId}
                busy={proposal.id === busyId}
                error={errors[proposal.id] ?? null}
                itemRef={(element) => {
                  if (element) items.current.set(proposal.id, element);
                  else items.current.delete(proposal.id);
                }}
                onFocus={() => setActiveId(proposal.id)}
                onOpen={() => open(proposal)}
                onCancel={() => cancel(proposal)}
                onAccept={(edits) =>
                  decide.mutate({ proposal, decision: { kind: "accept", edits }, after: neighbour(proposal.id) })
                }
                onReject={() => reject(proposal)}
              />
            </li>
          ))}
        </ul>
        {inbox.data?.nextCursor && <p className="hint">{t("inbox.more", { count: proposals.length })}</p>}
      </>
    );

  return (
    <>
      <div className="toolbar">
        <h2 id={headingId} ref={headingRef} tabIndex={-1} className="inbox-title">
          {team ? t("inbox.teamTitle", { org: orgName }) : t("inbox.title")}
        </h2>
        <p className="toolbar-description">{team ? t("inbox.teamDescription") : t("inbox.description")}</p>
        {!team && (
          <p id={keysId} className="hint">
            {t("inbox.keys")}
          </p>
        )}
        <p role="status" className="inbox-status">
          {announcement}
        </p>
      </div>
      {content}
    </>
  );
}
