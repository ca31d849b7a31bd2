// The team bank's half of the fake backend (docs/teams.md), with the server's rules:
// owners change any role, admins move people between member and admin, the last owner
// stays (org_needs_owner), the policy is the owners'; a member is answered as Rust
// answers them (their own team proposals, no members list, no audit log: null), and a refusal carries
// the server's sentence as its message, as Rust passes it on.
import { emit } from "@tauri-apps/api/event";
import type { AppState, AuditEntry, IpcError, OrgMember, OrgPolicy, OrgRole, Proposal, TeamMembers } from "../src/ipc";

export interface TeamData {
  yourRole: OrgRole;
  members: OrgMember[];
  policy: OrgPolicy;
  /** Newest first. */
  audit: AuditEntry[];
  /** The org Inbox's proposals, newest first (an admin lists the pending ones, a member their own). */
  proposals: Proposal[];
}

export const NEEDS_ADMIN =
  "Only the org's admins and owners can do this to its team memories; propose it instead, or ask an admin.";
export const NEEDS_OWNER =
  "Only the org's owners can change its policy or an owner's role, or make someone an owner; ask an owner.";

export function member(userId: string, email: string, role: OrgRole): OrgMember {
  return { userId, email, role, joinedAt: "2026-01-01T00:00:00Z" };
}

export function teamData(state: AppState, extra: Partial<TeamData> = {}): TeamData {
  const me = state.user ?? { id: "usr_1", email: "me@example.com" };
  return {
    yourRole: "owner",
    members: [member(me.id, me.email, "owner")],
    policy: { memoryEnabled: true, agentsMayPropose: true, maxMemories: null },
    audit: [],
    proposals: [],
    ...extra,
  };
}

const refused = (message: string): IpcError => ({ code: "org_role_required", message });

interface Backend {
  state: AppState;
  team: TeamData;
}

type Handlers = Record<string, (args: Record<string, unknown>) => unknown>;

/** `inbox`: the person's own Inbox's handlers; accept and reject decide an org Inbox
 *  proposal here (as the service does, by id), anything else there. */
export function teamHandlers(backend: Backend, inbox: Handlers): Handlers {
  const team = () => backend.team;
  const decide = (kind: "accepted" | "rejected") => async (args: Record<string, unknown>) => {
    const found = team().proposals.find((p) => p.id === args.id);
    if (!found) return inbox[kind === "accepted" ? "accept_proposal" : "reject_proposal"](args);
    if (team().yourRole === "member") throw refused(NEEDS_ADMIN);
    team().proposals = team().proposals.filter((p) => p.id !== found.id);
    await emit("inbox-changed", { pending: team().proposals.length });
    return { proposal: { ...found, status: kind, decidedAt: "2026-01-03T00:00:00Z" } };
  };
  const isAdmin = () => team().yourRole !== "member";
  const answer = (): TeamMembers => ({ yourRole: team().yourRole, members: isAdmin() ? team().members : null });
  return {
    accept_proposal: decide("accepted"),
    reject_proposal: decide("rejected"),
    // As the server answers: an admin's pending org Inbox, a member's own team proposals in every status.
    list_team_proposals: () =>
      isAdmin()
        ? { proposals: team().proposals.filter((p) => p.status === "pending"), nextCursor: null, yourRole: team().yourRole }
        : {
            proposals: team().proposals.filter((p) => p.proposer === (backend.state.user?.id ?? "usr_1")),
            nextCursor: null,
            yourRole: team().yourRole,
          },
    team_members: answer,
    change_member_role: (args) => {
      const { userId, role } = args as { userId: string; role: OrgRole };
      const found = team().members.find((m) => m.userId === userId);
      if (!found) throw { code: "member_not_found", message: "That person is not a member of this org (any more)." };
      const actor = team().yourRole;
      if (actor === "member") throw refused(NEEDS_ADMIN);
      if (actor === "admin" && (found.role === "owner" || role === "owner")) throw refused(NEEDS_OWNER);
      const owners = team().members.filter((m) => m.role === "owner").length;
      if (found.role === "owner" && role !== "owner" && owners === 1)
        throw { code: "org_needs_owner", message: "Acme would have no owner left; make another member its owner first." };
      found.role = role;
      if (userId === backend.state.user?.id) team().yourRole = role;
      return answer();
    },
    remove_member: (args) => {
      const userId = args.userId as string;
      const found = team().members.find((m) => m.userId === userId);
      if (!found) throw { code: "member_not_found", message: "That person is not a member of this org (any more)." };
      if (team().yourRole === "member" || (team().yourRole === "admin" && found.role === "owner")) throw refused(NEEDS_OWNER);
      team().members = team().members.filter((m) => m.userId !== userId);
      return answer();
    },
    org_policy: () => team().policy,
    set_org_policy: (args) => {
      if (team().yourRole !== "owner") throw refused(NEEDS_OWNER);
      team().policy = args.policy as OrgPolicy;
      return team().policy;
    },
    org_audit: (args) => {
      if (!isAdmin()) return null;
      const before = args.before as number | undefined;
      const older = team().audit.filter((e) => before === undefined || e.seq < before);
      const page = older.slice(0, 2);
      return { entries: page, nextBefore: older.length > 2 ? page[page.length - 1].seq : null };
    },
  };
}
