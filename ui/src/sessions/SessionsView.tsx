// The Sessions view: the list, or one transcript. Its state (filters, search, open
// transcript) is owned by the App so it survives visits to the other views.
import { useState } from "react";
import type { AppState } from "../ipc";
import type { OpenSessionFn, SessionsNav } from "./navigation";
import { SessionBrowser } from "./SessionBrowser";
import { TranscriptView } from "./TranscriptView";

interface Props {
  state: AppState;
  nav: SessionsNav;
  setNav: (update: (nav: SessionsNav) => SessionsNav) => void;
  onOpen: OpenSessionFn;
}

export function SessionsView({ state, nav, setNav, onOpen }: Props) {
  const [returnedFrom, setReturnedFrom] = useState<string | null>(null);
  if (nav.open) {
    const { sessionId } = nav.open;
    return (
      <TranscriptView
        key={sessionId}
        state={state}
        open={nav.open}
        onBack={() => {
          setReturnedFrom(sessionId);
          setNav((prev) => ({ ...prev, open: null }));
        }}
      />
    );
  }
  return <SessionBrowser nav={nav} setNav={setNav} onOpen={onOpen} focusSessionId={returnedFrom} />;
}
