// Native <select>: keyboard and screen-reader support come for free.
import { useId } from "react";
import { useTranslation } from "react-i18next";
import type { Org } from "../ipc";

interface Props {
  orgs: Org[];
  activeOrgId: string | null;
  onSwitch: (orgId: string) => void;
  disabled?: boolean;
}

export function OrgSwitcher({ orgs, activeOrgId, onSwitch, disabled }: Props) {
  const { t } = useTranslation();
  const id = useId();
  return (
    <div className="org-switcher">
      <label htmlFor={id}>{t("memory.org")}</label>
      <select
        id={id}
        className="input"
        value={activeOrgId ?? ""}
        disabled={disabled}
        onChange={(event) => onSwitch(event.currentTarget.value)}
      >
        {activeOrgId === null && <option value="">—</option>}
        {orgs.map((org) => (
          <option key={org.id} value={org.id}>
            {org.name}
          </option>
        ))}
      </select>
    </div>
  );
}
