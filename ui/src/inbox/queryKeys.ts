// Query keys of the Inbox. Everything under ["inbox"] is refetched on `inbox-changed`.

export const inboxRoot = ["inbox"] as const;

/** The pending proposals, asked in `orgId` (they cover every org of the user). */
export const inboxKey = (orgId: string) => ["inbox", orgId] as const;

/** The org Inbox of `orgId`: all of it for its admins and owners, a member's own share. */
export const teamInboxKey = (orgId: string) => ["inbox", orgId, "team"] as const;

/** Settings → Agents: the agents and the CLI binary. */
export const agentsKey = ["agents"] as const;
