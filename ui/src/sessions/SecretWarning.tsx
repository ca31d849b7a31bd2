// The warning under a form whose text looks like it holds a secret: which kinds were
// found, and each field with the spans highlighted. Shared by "Remember…" and the Inbox's
// Accept, which both block saving while it shows.
import { useTranslation } from "react-i18next";
import { SecretText } from "./SecretText";
import { secretKinds, type SecretMatch } from "./secrets";

export interface SecretField {
  /** The field's visible label. */
  label: string;
  text: string;
  matches: SecretMatch[];
}

/** Nothing when no field holds a match; else a `role="alert"` block with id `id`. */
export function SecretWarning({ id, fields }: { id: string; fields: SecretField[] }) {
  const { t, i18n } = useTranslation();
  const kinds = secretKinds(fields.flatMap((field) => field.matches));
  if (kinds.length === 0) return null;
  const list = new Intl.ListFormat(i18n.language, { type: "conjunction" });
  return (
    <div className="secret-warning" role="alert" id={id}>
      <p>{t("remember.secretsFound", { kinds: list.format(kinds.map((kind) => t(`secrets.${kind}`))) })}</p>
      {fields
        .filter((field) => field.matches.length > 0)
        .map((field) => (
          <div key={field.label}>
            <p className="secret-label">{t("remember.secretsIn", { field: field.label })}</p>
            <p className="secret-preview">
              <SecretText text={field.text} matches={field.matches} />
            </p>
          </div>
        ))}
    </div>
  );
}
