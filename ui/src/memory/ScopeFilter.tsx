// The panel's filter: the person's own memories (Mine), the org's team bank (Team), or
// both (All, the default). A radio group, so arrows move between the three.
import { useId } from "react";
import { useTranslation } from "react-i18next";
import type { BankScope } from "../ipc";

export const SCOPES: BankScope[] = ["mine", "team", "all"];

export function ScopeFilter({ scope, onChange }: { scope: BankScope; onChange: (scope: BankScope) => void }) {
  const { t } = useTranslation();
  const name = useId();
  return (
    <div role="radiogroup" aria-label={t("memory.scope.label")} className="scope-filter">
      {SCOPES.map((option) => (
        <label key={option} className={option === scope ? "scope-option scope-option-on" : "scope-option"}>
          <input
            type="radio"
            className="visually-hidden"
            name={name}
            value={option}
            checked={option === scope}
            onChange={() => onChange(option)}
          />
          <span>{t(`memory.scope.${option}`)}</span>
        </label>
      ))}
    </div>
  );
}
