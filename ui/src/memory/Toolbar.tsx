// The panel's toolbar. It is a focusable region (tabIndex -1) because keyboard focus
// lands here after a delete, when the row that had focus is gone.
import type { Ref } from "react";
import { useTranslation } from "react-i18next";
import type { BankScope, Org } from "../ipc";
import { CopyPromptButton } from "./CopyPromptButton";
import { OrgSwitcher } from "./OrgSwitcher";
import { RefreshIcon } from "./icons";
import { MeaningNote } from "./MeaningNote";
import { ScopeFilter } from "./ScopeFilter";
import { SearchBox } from "./SearchBox";

interface Props {
  ref?: Ref<HTMLDivElement>;
  orgs: Org[];
  activeOrgId: string;
  onSwitchOrg: (orgId: string) => void;
  switchingOrg: boolean;
  onQuery: (query: string) => void;
  /** Mine / Team / All, for the list and the search alike. */
  scope: BankScope;
  onScope: (scope: BankScope) => void;
  fetching: boolean;
  onRefresh: () => void;
}

export function Toolbar(props: Props) {
  const { t } = useTranslation();
  return (
    <div
      ref={props.ref}
      className="toolbar"
      role="region"
      aria-label={t("memory.toolbar")}
      tabIndex={-1}
    >
      <p className="toolbar-description">{t("memory.description")}</p>
      <div className="toolbar-controls">
        <SearchBox onQuery={props.onQuery} />
        <ScopeFilter scope={props.scope} onChange={props.onScope} />
        <button
          type="button"
          className="button button-icon"
          onClick={props.onRefresh}
          disabled={props.fetching}
          aria-label={props.fetching ? t("memory.refreshing") : t("memory.refresh")}
          title={t("memory.refresh")}
        >
          <RefreshIcon className={props.fetching ? "spin" : undefined} />
        </button>
        <OrgSwitcher
          orgs={props.orgs}
          activeOrgId={props.activeOrgId}
          onSwitch={props.onSwitchOrg}
          disabled={props.switchingOrg}
        />
        <CopyPromptButton />
      </div>
      <MeaningNote orgId={props.activeOrgId} />
    </div>
  );
}
