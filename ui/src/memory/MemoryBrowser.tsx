// Toolbar plus the list or search results of one org, with the delete flow.
import { useCallback, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { usePendingDeletes } from "../deletes/PendingDeletes";
import { WaitingDeletes } from "../deletes/WaitingDeletes";
import type { BankScope, Memory, Org } from "../ipc";
import { DeleteDialog } from "./DeleteDialog";
import { MemoryList } from "./MemoryList";
import { Empty } from "./states/Empty";
import { ErrorState } from "./states/ErrorState";
import { Loading } from "./states/Loading";
import { Toolbar } from "./Toolbar";
import { useMemoryList, useMemorySearch, type MemoriesView } from "./useMemories";

interface Props {
  orgs: Org[];
  activeOrgId: string;
  onSwitchOrg: (orgId: string) => void;
  switchingOrg: boolean;
  onOpenAgents?: () => void;
  /** One memory opened from a session: shown alone until `onShowAll`. */
  focus?: Memory | null;
  onShowAll?: () => void;
  /** Mine / Team / All (the person's last choice). */
  scope?: BankScope;
  onScope?: (scope: BankScope) => void;
}

export function MemoryBrowser({ orgs, activeOrgId, onSwitchOrg, switchingOrg, onOpenAgents, focus, onShowAll, scope = "all", onScope }: Props) {
  const { t } = useTranslation();
  const pending = usePendingDeletes();
  const toolbarRef = useRef<HTMLDivElement>(null);
  const [query, setQuery] = useState("");
  const [target, setTarget] = useState<Memory | null>(null);
  const onQuery = useCallback((next: string) => setQuery(next), []);

  const list = useMemoryList(activeOrgId, scope);
  const search = useMemorySearch(activeOrgId, query, scope);
  const view: MemoriesView = query ? search : list;

  const confirm = (memory: Memory) => {
    // The org is captured now, at confirm time: switching org later must not change
    // where this delete goes.
    const orgId = activeOrgId;
    setTarget(null);
    void pending.confirmDelete(memory.id, orgId);
    // The row is gone, so put keyboard focus somewhere stable once the dialog is closed.
    requestAnimationFrame(() => toolbarRef.current?.focus());
  };

  let content;
  if (focus)
    content = (
      <>
        <div className="focus-bar">
          <p>{t("memory.focused")}</p>
          <button type="button" className="button button-small" onClick={onShowAll}>
            {t("memory.showAll")}
          </button>
        </div>
        <MemoryList
          key={`focus\u0000${focus.id}`}
          label={t("memory.focusedList")}
          memories={[focus]}
          offset={0}
          hasNextPage={false}
          isFetchingNextPage={false}
          fetchNextPage={() => {}}
          hasPreviousPage={false}
          isFetchingPreviousPage={false}
          fetchPreviousPage={() => {}}
          jumpTo={() => {}}
          onDelete={setTarget}
          orgId={activeOrgId}
        />
      </>
    );
  else if (view.isPending) content = <Loading />;
  else if (view.isError) content = <ErrorState error={view.error} onRetry={view.refetch} />;
  else if (view.memories.length === 0 && !view.hasNextPage && !view.hasPreviousPage) content = <Empty query={query} scope={scope} onOpenAgents={onOpenAgents} />;
  else
    content = (
      <MemoryList
        // A new list (org or search) starts at the top.
        key={`${activeOrgId}\u0000${scope}\u0000${query}`}
        label={query ? t("memory.searchResults") : t("memory.list")}
        memories={view.memories}
        offset={view.offset}
        hasNextPage={view.hasNextPage}
        isFetchingNextPage={view.isFetchingNextPage}
        fetchNextPage={view.fetchNextPage}
        hasPreviousPage={view.hasPreviousPage}
        isFetchingPreviousPage={view.isFetchingPreviousPage}
        fetchPreviousPage={view.fetchPreviousPage}
        jumpTo={view.jumpTo}
        onDelete={setTarget}
        orgId={activeOrgId}
      />
    );

  return (
    <div className="browser">
      <Toolbar
        ref={toolbarRef}
        orgs={orgs}
        activeOrgId={activeOrgId}
        onSwitchOrg={onSwitchOrg}
        switchingOrg={switchingOrg}
        onQuery={onQuery}
        scope={scope}
        onScope={(next) => onScope?.(next)}
        fetching={view.isFetching}
        onRefresh={view.refetch}
      />
      <WaitingDeletes orgId={activeOrgId} />
      {content}
      <DeleteDialog memory={target} onCancel={() => setTarget(null)} onConfirm={confirm} />
    </div>
  );
}
