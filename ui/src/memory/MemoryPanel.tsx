// The memory panel: picks the screen for the account state and flushes pending
// deletes when the person leaves it (Rust sends them at once; Undo is over).
import { useEffect, useRef, useState } from "react";
import { useAppStateCommand } from "../app/useAppState";
import { usePendingDeletes } from "../deletes/PendingDeletes";
import { setPrefs, type AppState, type BankScope, type Memory } from "../ipc";
import { MemoryBrowser } from "./MemoryBrowser";
import { NoActiveOrg } from "./states/NoActiveOrg";
import { NotSignedIn } from "./states/NotSignedIn";

interface Props {
  state: AppState;
  onOpenSettings: () => void;
  /** Settings → Agents, where the empty panel sends the person first. */
  onOpenAgents?: () => void;
  onSwitchOrg: (orgId: string) => void;
  switchingOrg: boolean;
  /** One memory opened from a session, shown alone. */
  focus?: Memory | null;
  onShowAll?: () => void;
}

export function MemoryPanel({ state, onOpenSettings, onOpenAgents, onSwitchOrg, switchingOrg, focus, onShowAll }: Props) {
  const { flush } = usePendingDeletes();
  // Only a real unmount may flush, not a new `flush` identity (say, a language change).
  const flushRef = useRef(flush);
  useEffect(() => {
    flushRef.current = flush;
  }, [flush]);
  useEffect(() => () => flushRef.current(), []);
  // Mine / Team / All: shown at once, and kept in the prefs for the next start.
  const [scope, setScope] = useState<BankScope>(state.prefs.memoryScope ?? "all");
  const savePrefs = useAppStateCommand(setPrefs);
  const onScope = (next: BankScope) => {
    setScope(next);
    savePrefs.mutate({ memoryScope: next });
  };

  if (state.account === null) return <NotSignedIn onOpenSettings={onOpenSettings} error={state.connectError} />;
  if (state.activeOrgId === null)
    return <NoActiveOrg orgs={state.orgs} onSwitchOrg={onSwitchOrg} />;
  return (
    <MemoryBrowser
      orgs={state.orgs}
      activeOrgId={state.activeOrgId}
      onSwitchOrg={onSwitchOrg}
      switchingOrg={switchingOrg}
      onOpenAgents={onOpenAgents}
      focus={focus}
      onShowAll={onShowAll}
      scope={scope}
      onScope={onScope}
    />
  );
}
