// The active org's team, as the panel and Settings → Team read it: the person's role and,
// for admins and owners, the members (whose emails name who saved a team memory).
import { useQuery } from "@tanstack/react-query";
import type { TFunction } from "i18next";
import { teamMembers, type Memory, type TeamMembers } from "../ipc";
import { teamMembersKey } from "../memory/queryKeys";

export function useTeamMembers(orgId: string, enabled = true) {
  return useQuery({
    queryKey: teamMembersKey(orgId),
    queryFn: () => teamMembers(orgId),
    enabled,
    staleTime: 60_000,
  });
}

/** Who a team member is, in words: "you", their email, "a former member" when the list
 *  (which admins and owners see) no longer holds them, else their id: never a guess. */
export function memberName(userId: string, me: string | null, team: TeamMembers | undefined, t: TFunction): string {
  if (userId === me) return t("team.you");
  const members = team?.members;
  if (!members) return userId;
  return members.find((m) => m.userId === userId)?.email ?? t("team.formerMember");
}

/** "Saved by …" (and "confirmed by …" when someone else confirmed it) for a team memory. */
export function teamProvenance(
  memory: Pick<Memory, "savedBy" | "confirmedBy">,
  me: string | null,
  team: TeamMembers | undefined,
  t: TFunction,
): string | null {
  if (!memory.savedBy) return null;
  const saved = t("team.savedBy", { who: memberName(memory.savedBy, me, team, t) });
  if (!memory.confirmedBy || memory.confirmedBy === memory.savedBy) return saved;
  return `${saved} · ${t("team.confirmedBy", { who: memberName(memory.confirmedBy, me, team, t) })}`;
}
