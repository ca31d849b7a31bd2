// Query keys in one place: the delete settle handler must hit exactly these.
import type { BankScope } from "../ipc";

/** Every paged list of an org, whatever its filter: ["memory", orgId]. */
export const listRoot = (orgId: string) => ["memory", orgId] as const;

/** The paged list of an org with the panel's filter (Mine / Team / All). */
export const listKey = (orgId: string, scope: BankScope = "all") => ["memory", orgId, scope] as const;

/** Every search of an org; a search is its own query so it never disturbs the list. */
export const searchKeyPrefix = (orgId: string) => ["memory-search", orgId] as const;

export const searchKey = (orgId: string, query: string, scope: BankScope = "all") =>
  ["memory-search", orgId, query, scope] as const;

export const appStateKey = ["app-state"] as const;

/** Duplicate hints for a sentence in an org (see SimilarHint). */
export const similarKey = (orgId: string, content: string) => ["similar", orgId, content] as const;

/** Settings → Team and the panel's "saved by": the person's role and the org's members. */
export const teamMembersKey = (orgId: string) => ["team", orgId, "members"] as const;

/** The org's policy. */
export const orgPolicyKey = (orgId: string) => ["team", orgId, "policy"] as const;

/** The org's audit log, paged. */
export const orgAuditKey = (orgId: string) => ["team", orgId, "audit"] as const;
