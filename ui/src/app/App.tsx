// The shell: header, then the memory panel, the Inbox, the sessions view or account
// settings. The Sessions view's state lives here so it is kept while another view is
// shown; the Inbox query lives here too, for the tab's badge and the announcer.
import { useCallback, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { applyLanguage } from "../i18n";
import { InboxAnnouncer } from "../inbox/InboxAnnouncer";
import { useInbox, useInboxChangedRefetch, useTeamInbox } from "../inbox/useInbox";
import { errorMessage, setActiveOrg, type AppState, type Memory } from "../ipc";
import { OpenMemoryProvider } from "../memory/openMemory";
import { MemoryPanel } from "../memory/MemoryPanel";
import {
  initialSessionsNav,
  OpenSessionProvider,
  type JumpTarget,
  type SessionsNav,
} from "../sessions/navigation";
import { useSessionsChangedRefetch } from "../sessions/useSessions";
import { useToasts } from "../toasts/Toasts";
import { Header, type View } from "./Header";
import { InboxView, SessionsView, SettingsView } from "./lazyViews";
import { useAppState, useAppStateCommand } from "./useAppState";

export function App() {
  const { t, i18n } = useTranslation();
  const [view, setView] = useState<View>("memories");
  /** Settings opened to set up agents: the Agents section takes the focus. */
  const [agentsFocus, setAgentsFocus] = useState(false);
  const state = useAppState();
  const inbox = useInbox(state.data);
  // An admin's badge counts the org Inbox too; a member's own team proposals wait for
  // someone else, so they are not counted.
  const teamInbox = useTeamInbox(state.data);
  const teamWaiting = teamInbox.data && teamInbox.data.yourRole !== "member" ? teamInbox.data.proposals.length : 0;
  const toasts = useToasts();
  const switchOrg = useAppStateCommand(setActiveOrg);
  /** A memory opened from a session's marker: the panel shows it alone. */
  const [memoryFocus, setMemoryFocus] = useState<Memory | null>(null);
  const navigate = useCallback((next: View) => {
    setAgentsFocus(false);
    setMemoryFocus(null);
    setView(next);
  }, []);
  const openMemory = useCallback((memory: Memory) => {
    setMemoryFocus(memory);
    setView("memories");
  }, []);
  const openAgents = useCallback(() => {
    setAgentsFocus(true);
    setView("settings");
  }, []);
  const onSwitchOrg = (orgId: string) =>
    switchOrg.mutate(orgId, {
      onError: (error) => toasts.show({ id: "switch-org", kind: "error", title: errorMessage(error) }),
    });
  const language = state.data?.prefs.language;
  const [sessionsNav, setSessionsNav] = useState<SessionsNav>(initialSessionsNav);
  const nonce = useRef(0);
  const openSession = useCallback((sessionId: string, target: JumpTarget | null) => {
    nonce.current += 1;
    setSessionsNav((prev) => ({ ...prev, open: { sessionId, target, nonce: nonce.current } }));
    setView("sessions");
  }, []);
  useSessionsChangedRefetch();
  useInboxChangedRefetch();

  useEffect(() => {
    if (language !== undefined) applyLanguage(i18n, language);
  }, [i18n, language]);
  useEffect(() => {
    document.title = t("app.title");
  }, [t]);

  return (
    <div className="app">
      <Header
        view={view}
        onNavigate={navigate}
        inboxCount={inbox.data ? inbox.data.proposals.length + teamWaiting : null}
        inboxMore={Boolean(inbox.data?.nextCursor || teamInbox.data?.nextCursor)}
      />
      <InboxAnnouncer proposals={inbox.data?.proposals} />
      <main className="main">
        <OpenSessionProvider value={openSession}>
        <OpenMemoryProvider value={openMemory}>
          {state.isPending ? (
            <p role="status">{t("app.loading")}</p>
          ) : state.isError ? (
            <section className="state state-error" role="alert">
              <p>{t("app.stateError", { message: errorMessage(state.error) })}</p>
              <button type="button" className="button" onClick={() => void state.refetch()}>
                {t("app.retry")}
              </button>
            </section>
          ) : view === "settings" ? (
            <SettingsView state={state.data} focusAgents={agentsFocus} />
          ) : view === "inbox" ? (
            <InboxView
              state={state.data}
              onOpenSettings={() => navigate("settings")}
              onOpenAgents={openAgents}
              onSwitchOrg={onSwitchOrg}
            />
          ) : view === "sessions" ? (
            <SessionsView
              state={state.data}
              nav={sessionsNav}
              setNav={setSessionsNav}
              onOpen={openSession}
            />
          ) : (
            <Memories
              state={state.data}
              onOpenSettings={() => navigate("settings")}
              onOpenAgents={openAgents}
              switchingOrg={switchOrg.isPending}
              onSwitchOrg={onSwitchOrg}
              focus={memoryFocus}
              onShowAll={() => setMemoryFocus(null)}
            />
          )}
        </OpenMemoryProvider>
        </OpenSessionProvider>
      </main>
    </div>
  );
}

interface MemoriesProps {
  state: AppState;
  onOpenSettings: () => void;
  onOpenAgents: () => void;
  switchingOrg: boolean;
  onSwitchOrg: (orgId: string) => void;
  focus: Memory | null;
  onShowAll: () => void;
}

function Memories({ state, onOpenSettings, onOpenAgents, switchingOrg, onSwitchOrg, focus, onShowAll }: MemoriesProps) {
  const { t } = useTranslation();

  // The `memory` flag hides the panel in this UI only; the server never sees it.
  if (!state.prefs.memoryEnabled) {
    return (
      <section className="state">
        <p>{t("memory.disabled")}</p>
        <button type="button" className="button" onClick={onOpenSettings}>
          {t("memory.turnOn")}
        </button>
      </section>
    );
  }
  return (
    <MemoryPanel
      state={state}
      onOpenSettings={onOpenSettings}
      onOpenAgents={onOpenAgents}
      switchingOrg={switchingOrg}
      onSwitchOrg={onSwitchOrg}
      focus={focus}
      onShowAll={onShowAll}
    />
  );
}
