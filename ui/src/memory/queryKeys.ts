// Query keys in one place: the delete settle handler must hit exactly these.

/** The paged list of an org: ["memory", orgId]. */
export const listKey = (orgId: string) => ["memory", orgId] as const;

/** Every search of an org; a search is its own query so it never disturbs the list. */
export const searchKeyPrefix = (orgId: string) => ["memory-search", orgId] as const;

export const searchKey = (orgId: string, query: string) => ["memory-search", orgId, query] as const;

export const appStateKey = ["app-state"] as const;

/** Duplicate hints for a sentence in an org (see SimilarHint). */
export const similarKey = (orgId: string, content: string) => ["similar", orgId, content] as const;
