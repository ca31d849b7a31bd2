// Query keys of the Sessions view. Everything under ["sessions"] is a list that the
// `sessions-changed` event refetches; a transcript and a session's info are keyed apart
// so a background change never moves the transcript being read.
import type { SessionStatus, Source } from "../ipc";

export const sessionsRoot = ["sessions"] as const;

export const sessionListKey = (source: Source | "", workspace: string, status: SessionStatus) =>
  ["sessions", "list", source, workspace, status] as const;

export const facetsKey = ["sessions", "facets"] as const;

export const messageSearchKey = (query: string) => ["sessions", "search", query] as const;

/** open_session for one id: the transcript header. */
export const sessionInfoKey = (sessionId: string) => ["session-info", sessionId] as const;

/** find_session for one id: the memory panel's check that a cited session is here. */
export const citedSessionKey = (sessionId: string) => ["cited-session", sessionId] as const;

export const transcriptKey = (sessionId: string) => ["session-transcript", sessionId] as const;

/** session_activity for one page's range. Under the transcript's key, so invalidating
 *  the transcript invalidates its activity too. */
export const activityKey = (sessionId: string, fromIndex: number, toIndex: number) =>
  [...transcriptKey(sessionId), "activity", fromIndex, toIndex] as const;

export const activityRoot = (sessionId: string) => [...transcriptKey(sessionId), "activity"] as const;

/** session_sources: under ["sessions"], so a change of the session folders refetches it. */
export const sourcesKey = ["sessions", "sources"] as const;
