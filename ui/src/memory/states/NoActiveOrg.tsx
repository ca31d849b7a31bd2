import { useTranslation } from "react-i18next";
import type { Org } from "../../ipc";
import { OrgSwitcher } from "../OrgSwitcher";

interface Props {
  orgs: Org[];
  onSwitchOrg: (orgId: string) => void;
}

export function NoActiveOrg({ orgs, onSwitchOrg }: Props) {
  const { t } = useTranslation();
  return (
    <section className="state" aria-labelledby="state-no-org">
      <h2 id="state-no-org">{t("states.noOrgTitle")}</h2>
      {orgs.length > 0 ? (
        <>
          <p>{t("states.noOrgBody")}</p>
          <OrgSwitcher orgs={orgs} activeOrgId={null} onSwitch={onSwitchOrg} />
        </>
      ) : (
        <p>{t("states.noOrgNone")}</p>
      )}
    </section>
  );
}
