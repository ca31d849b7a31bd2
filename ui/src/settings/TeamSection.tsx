// Settings → Team (docs/teams.md): the active org's members and their roles, its policy,
// and its audit log. The server decides who may do what; this page only offers what the
// person's role allows (the same rules as Rust's Role::may_change_role), and when the
// server refuses anyway it shows the server's own sentence. Shown for the local bank too:
// there the person owns a team of one, and the page says so.
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { TFunction } from "i18next";
import { useEffect, useId, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import {
  changeMemberRole,
  errorMessage,
  orgAudit,
  orgPolicy,
  removeMember,
  setOrgPolicy,
  type AppState,
  type AuditPage,
  type OrgMember,
  type OrgPolicy,
  type OrgRole,
  type TeamMembers,
} from "../ipc";
import { orgAuditKey, orgPolicyKey, teamMembersKey } from "../memory/queryKeys";
import { memberName, useTeamMembers } from "../team/useTeam";

const ROLES: OrgRole[] = ["owner", "admin", "member"];
const RANK: Record<OrgRole, number> = { member: 0, admin: 1, owner: 2 };

/** The roles `actor` may give a member who is `from` now (Rust's Role::may_change_role). */
export function rolesOffered(actor: OrgRole, from: OrgRole): OrgRole[] {
  if (actor === "owner") return ROLES;
  if (actor === "admin" && from !== "owner") return ["admin", "member"];
  return [];
}

/** Whether `actor` may remove a member who is `role` (owners anyone, admins up to admins). */
export function mayRemove(actor: OrgRole, role: OrgRole): boolean {
  return actor === "owner" || (actor === "admin" && role !== "owner");
}

export function TeamSection({ state }: { state: AppState }) {
  const { t } = useTranslation();
  const headingId = useId();
  const orgId = state.activeOrgId;
  if (state.account === null || orgId === null) return null;
  const orgName = state.orgs.find((org) => org.id === orgId)?.name ?? orgId;
  return (
    <section className="settings-section team-section" aria-labelledby={headingId}>
      <h2 id={headingId}>{t("team.title", { org: orgName })}</h2>
      <TeamBody key={orgId} state={state} orgId={orgId} />
    </section>
  );
}

function TeamBody({ state, orgId }: { state: AppState; orgId: string }) {
  const { t } = useTranslation();
  const team = useTeamMembers(orgId);
  const me = state.user?.id ?? null;
  if (team.isPending) return <p className="hint">{t("team.loading")}</p>;
  if (team.isError)
    return (
      <p className="form-error" role="alert">
        {t("team.failed", { message: errorMessage(team.error) })}
      </p>
    );
  const role = team.data.yourRole;
  return (
    <>
      <p>
        <strong>{t("team.yourRole")}: </strong>
        {t(`team.role.${role}`)}
      </p>
      {state.account?.kind === "local" && <p className="hint">{t("team.localHelp")}</p>}
      <Members orgId={orgId} me={me} team={team.data} />
      <Policy orgId={orgId} mayChange={role === "owner"} />
      {RANK[role] >= RANK.admin && <Audit orgId={orgId} me={me} team={team.data} />}
    </>
  );
}

function Members({ orgId, me, team }: { orgId: string; me: string | null; team: TeamMembers }) {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  const headingId = useId();
  const [refusal, setRefusal] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const onAnswer = {
    onMutate: () => setRefusal(null),
    onSuccess: (members: TeamMembers) => {
      client.setQueryData(teamMembersKey(orgId), members);
      setRemoving(null);
    },
    // The server's sentence: why it was refused, and what to do.
    onError: (error: unknown) => setRefusal(errorMessage(error)),
  };
  const change = useMutation({
    mutationFn: (args: { userId: string; role: OrgRole }) => changeMemberRole({ orgId, ...args }),
    ...onAnswer,
  });
  const remove = useMutation({ mutationFn: (userId: string) => removeMember({ orgId, userId }), ...onAnswer });
  const busy = change.isPending || remove.isPending;
  const actor = team.yourRole;

  return (
    <>
      <h3 id={headingId}>{t("team.members")}</h3>
      {team.members === null ? (
        <p className="hint">{t("team.membersHidden")}</p>
      ) : (
        <ul className="member-list" aria-labelledby={headingId}>
          {team.members.map((member) => (
            <MemberRow
              key={member.userId}
              member={member}
              isMe={member.userId === me}
              roles={rolesOffered(actor, member.role)}
              removable={member.userId !== me && mayRemove(actor, member.role)}
              confirming={removing === member.userId}
              busy={busy}
              joined={dateText(member.joinedAt, i18n.language)}
              onRole={(role) => change.mutate({ userId: member.userId, role })}
              onRemove={() => setRemoving(member.userId)}
              onCancelRemove={() => setRemoving(null)}
              onConfirmRemove={() => remove.mutate(member.userId)}
            />
          ))}
        </ul>
      )}
      {refusal && (
        <p className="form-error" role="alert">
          {t("team.refused", { message: refusal })}
        </p>
      )}
    </>
  );
}

interface MemberRowProps {
  member: OrgMember;
  isMe: boolean;
  /** The roles the person may give this member; none: the role is shown as text. */
  roles: OrgRole[];
  removable: boolean;
  confirming: boolean;
  busy: boolean;
  joined: string;
  onRole: (role: OrgRole) => void;
  onRemove: () => void;
  onCancelRemove: () => void;
  onConfirmRemove: () => void;
}

function MemberRow(props: MemberRowProps) {
  const { t } = useTranslation();
  const { member } = props;
  const selectId = useId();
  const who = props.isMe ? t("team.meEmail", { email: member.email }) : member.email;
  return (
    <li className="member-row">
      <span className="member-email">{who}</span>
      <span className="member-joined hint">{t("team.joined", { date: props.joined })}</span>
      {props.roles.length > 0 ? (
        <>
          <label htmlFor={selectId} className="visually-hidden">
            {t("team.roleOf", { email: member.email })}
          </label>
          <select
            id={selectId}
            className="input member-role"
            value={member.role}
            disabled={props.busy}
            onChange={(event) => props.onRole(event.currentTarget.value as OrgRole)}
          >
            {/* The current role is always listed, so the select shows it. */}
            {ROLES.filter((role) => role === member.role || props.roles.includes(role)).map((role) => (
              <option key={role} value={role}>
                {t(`team.role.${role}`)}
              </option>
            ))}
          </select>
        </>
      ) : (
        <span className="member-role">{t(`team.role.${member.role}`)}</span>
      )}
      {props.removable &&
        (props.confirming ? (
          <span className="member-actions">
            <button
              type="button"
              className="button button-small button-danger"
              disabled={props.busy}
              onClick={props.onConfirmRemove}
            >
              {t("team.confirmRemove", { email: member.email })}
            </button>
            <button type="button" className="button button-small" disabled={props.busy} onClick={props.onCancelRemove}>
              {t("team.cancel")}
            </button>
          </span>
        ) : (
          <button
            type="button"
            className="button button-small"
            disabled={props.busy}
            aria-label={t("team.removeLabel", { email: member.email })}
            onClick={props.onRemove}
          >
            {t("team.remove")}
          </button>
        ))}
    </li>
  );
}

function Policy({ orgId, mayChange }: { orgId: string; mayChange: boolean }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const ids = { heading: useId(), memory: useId(), agents: useId(), max: useId(), maxHelp: useId() };
  const policy = useQuery({ queryKey: orgPolicyKey(orgId), queryFn: () => orgPolicy(orgId), staleTime: 60_000 });
  const [draft, setDraft] = useState<{ memoryEnabled: boolean; agentsMayPropose: boolean; max: string } | null>(null);
  useEffect(() => {
    if (policy.data)
      setDraft({
        memoryEnabled: policy.data.memoryEnabled,
        agentsMayPropose: policy.data.agentsMayPropose,
        max: policy.data.maxMemories === null || policy.data.maxMemories === undefined ? "" : String(policy.data.maxMemories),
      });
  }, [policy.data]);
  const save = useMutation({
    mutationFn: (next: OrgPolicy) => setOrgPolicy({ orgId, policy: next }),
    onSuccess: (next) => client.setQueryData(orgPolicyKey(orgId), next),
  });

  let body;
  if (policy.isPending || !draft) body = <p className="hint">{t("team.loading")}</p>;
  else if (policy.isError)
    body = (
      <p className="form-error" role="alert">
        {t("team.failed", { message: errorMessage(policy.error) })}
      </p>
    );
  else {
    const max = draft.max.trim();
    const maxValid = max === "" || /^\d+$/.test(max);
    const submit = (event: FormEvent) => {
      event.preventDefault();
      if (!maxValid) return;
      save.mutate({ memoryEnabled: draft.memoryEnabled, agentsMayPropose: draft.agentsMayPropose, maxMemories: max === "" ? null : Number(max) });
    };
    const disabled = !mayChange || save.isPending;
    body = (
      <form onSubmit={submit} className="team-policy">
        {!mayChange && <p className="hint">{t("team.policyOwnersOnly")}</p>}
        <div className="checkbox">
          <input
            id={ids.memory}
            type="checkbox"
            checked={draft.memoryEnabled}
            disabled={disabled}
            onChange={(event) => setDraft({ ...draft, memoryEnabled: event.currentTarget.checked })}
          />
          <label htmlFor={ids.memory}>{t("team.memoryEnabled")}</label>
        </div>
        {mayChange && !draft.memoryEnabled && <p className="hint">{t("team.memoryOffHelp")}</p>}
        <div className="checkbox">
          <input
            id={ids.agents}
            type="checkbox"
            checked={draft.agentsMayPropose}
            disabled={disabled}
            onChange={(event) => setDraft({ ...draft, agentsMayPropose: event.currentTarget.checked })}
          />
          <label htmlFor={ids.agents}>{t("team.agentsMayPropose")}</label>
        </div>
        <p className="field">
          <label htmlFor={ids.max}>{t("team.maxMemories")}</label>{" "}
          <input
            id={ids.max}
            className="input team-max"
            inputMode="numeric"
            value={draft.max}
            disabled={disabled}
            aria-describedby={ids.maxHelp}
            aria-invalid={!maxValid}
            placeholder={t("team.noCap")}
            onChange={(event) => setDraft({ ...draft, max: event.currentTarget.value })}
          />
          <span id={ids.maxHelp} className="hint">
            {maxValid ? t("team.maxHelp") : t("team.maxInvalid")}
          </span>
        </p>
        {mayChange && (
          <button type="submit" className="button button-primary" disabled={disabled || !maxValid}>
            {t("team.savePolicy")}
          </button>
        )}
        {save.isSuccess && !save.isPending && (
          <p role="status" className="hint">
            {t("team.policySaved")}
          </p>
        )}
        {save.isError && (
          <p className="form-error" role="alert">
            {t("team.refused", { message: errorMessage(save.error) })}
          </p>
        )}
      </form>
    );
  }
  return (
    <>
      <h3 id={ids.heading}>{t("team.policy")}</h3>
      {body}
    </>
  );
}

function Audit({ orgId, me, team }: { orgId: string; me: string | null; team: TeamMembers }) {
  const { t, i18n } = useTranslation();
  const headingId = useId();
  const audit = useInfiniteQuery({
    queryKey: orgAuditKey(orgId),
    queryFn: ({ pageParam }) => orgAudit(pageParam === null ? { orgId } : { orgId, before: pageParam }),
    initialPageParam: null as number | null,
    getNextPageParam: (last: AuditPage | null) => last?.nextBefore ?? undefined,
    staleTime: 30_000,
  });
  const pages = audit.data?.pages ?? [];
  // A member's answer is null: not theirs to read (the section is not offered then).
  if (pages.length > 0 && pages[0] === null) return null;
  const entries = pages.flatMap((page) => page?.entries ?? []);
  return (
    <>
      <h3 id={headingId}>{t("team.audit")}</h3>
      <p className="hint">{t("team.auditHelp")}</p>
      {audit.isPending ? (
        <p className="hint">{t("team.loading")}</p>
      ) : audit.isError ? (
        <p className="form-error" role="alert">
          {t("team.failed", { message: errorMessage(audit.error) })}
        </p>
      ) : entries.length === 0 ? (
        <p className="hint">{t("team.auditEmpty")}</p>
      ) : (
        <div className="audit-scroll">
          <table className="audit-table" aria-labelledby={headingId}>
            <thead>
              <tr>
                <th scope="col">{t("team.auditWhen")}</th>
                <th scope="col">{t("team.auditWho")}</th>
                <th scope="col">{t("team.auditWhat")}</th>
                <th scope="col">{t("team.auditMemory")}</th>
                <th scope="col">{t("team.auditProposal")}</th>
                <th scope="col">{t("team.auditLength")}</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.seq}>
                  <td>
                    <time dateTime={entry.at}>{dateText(entry.at, i18n.language)}</time>
                  </td>
                  <td>{memberName(entry.actorId, me, team, t)}</td>
                  <td>{t(`team.action.${entry.action}`)}</td>
                  <td>
                    <code>{entry.memoryId ?? "—"}</code>
                  </td>
                  <td>
                    <code>{entry.proposalId ?? "—"}</code>
                  </td>
                  <td>{lengthText(entry.contentChars, t)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {audit.hasNextPage && (
        <button
          type="button"
          className="button button-small"
          disabled={audit.isFetchingNextPage}
          onClick={() => void audit.fetchNextPage()}
        >
          {audit.isFetchingNextPage ? t("team.loading") : t("team.auditOlder")}
        </button>
      )}
    </>
  );
}

function lengthText(chars: number | null | undefined, t: TFunction): string {
  return chars === null || chars === undefined ? "—" : t("team.chars", { count: chars });
}

function dateText(value: string, language: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime())
    ? value
    : new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(date);
}
