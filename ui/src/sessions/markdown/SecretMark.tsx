// Text in a transcript that looks like a secret: highlighted as in the Remember dialog,
// with the kind the detector found as its tooltip. It stays readable (it is the person's
// own session file); saving it is what the dialog and the Rust side refuse.
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";

interface Props {
  "data-secret-kind"?: string;
  children?: ReactNode;
}

export function SecretMark({ "data-secret-kind": kind, children }: Props) {
  const { t } = useTranslation();
  return (
    <mark className="secret" data-secret-kind={kind} title={kind ? t("markdown.secret", { kind: t(`secrets.${kind}`) }) : undefined}>
      {children}
    </mark>
  );
}
