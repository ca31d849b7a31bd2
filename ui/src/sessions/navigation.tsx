// Where the Sessions view is: filters, search and the open transcript. The state lives in
// the App so it survives switching to Memories and back; the context lets a memory's
// citation open a transcript from the memory panel.
import { createContext, useContext } from "react";
import type { SessionStatus, Source } from "../ipc";

/** A message to scroll to: by index (search hit) or by id (memory citation). */
export type JumpTarget = { index: number } | { messageId: string };

export interface OpenTranscript {
  sessionId: string;
  target: JumpTarget | null;
  /** Bumped on every open, so opening the same target again scrolls again. */
  nonce: number;
}

export interface SessionsNav {
  source: Source | "";
  workspace: string;
  /** Live sessions, archived ones (their tool deleted them), or both. */
  status: SessionStatus;
  /** The debounced content search ("" = show the list). */
  search: string;
  open: OpenTranscript | null;
}

export const initialSessionsNav: SessionsNav = { source: "", workspace: "", status: "all", search: "", open: null };

/** Opens a transcript in the Sessions view (switching to it). */
export type OpenSessionFn = (sessionId: string, target: JumpTarget | null) => void;

const OpenSessionContext = createContext<OpenSessionFn | null>(null);

export const OpenSessionProvider = OpenSessionContext.Provider;

/** null outside the app shell: callers then show no link. */
export function useOpenSession(): OpenSessionFn | null {
  return useContext(OpenSessionContext);
}
