// Choose the Local account or a Team server (URL + token, checked by the backend with
// GET /v1/me; the token goes to the OS keyring there, never into this page's storage).
import { useId, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { useAppStateCommand } from "../app/useAppState";
import { chooseLocalAccount, errorMessage, signInTeam, signOut, type AppState } from "../ipc";

type Kind = "local" | "team";

function currentLabel(state: AppState, t: ReturnType<typeof useTranslation>["t"]) {
  if (!state.account) return t("settings.currentNone");
  if (state.account.kind === "local") return t("settings.currentLocal");
  return t("settings.currentTeam", { url: state.account.url });
}

export function AccountSection({ state }: { state: AppState }) {
  const { t } = useTranslation();
  const ids = { url: useId(), token: useId(), kind: useId() };
  const [kind, setKind] = useState<Kind>(state.account?.kind ?? "team");
  const [url, setUrl] = useState(state.account?.kind === "team" ? state.account.url : "");
  const [token, setToken] = useState("");
  const local = useAppStateCommand(() => chooseLocalAccount());
  const team = useAppStateCommand((args: { url: string; token: string }) =>
    signInTeam(args.url, args.token),
  );
  const out = useAppStateCommand(() => signOut());
  const fromEnv = state.account?.kind === "team" && state.account.fromEnv;
  const busy = local.isPending || team.isPending || out.isPending;
  const failure = local.error ?? team.error ?? out.error;

  const submitTeam = (event: FormEvent) => {
    event.preventDefault();
    team.mutate(
      { url: url.trim(), token },
      // The token is not kept in page state once the backend has it.
      { onSuccess: () => setToken("") },
    );
  };

  return (
    <section className="settings-section" aria-labelledby="settings-account">
      <h2 id="settings-account">{t("settings.account")}</h2>
      <p>
        <strong>{t("settings.current")}: </strong>
        {currentLabel(state, t)}
        {state.user && <> — {t("settings.signedInAs", { email: state.user.email })}</>}
      </p>
      {fromEnv && <p className="hint">{t("settings.fromEnv")}</p>}
      {state.account?.kind === "local" && state.localBankUnencrypted && (
        <p className="hint local-unencrypted">{t("settings.localUnencrypted")}</p>
      )}

      <fieldset className="choice" disabled={fromEnv || busy}>
        <legend className="visually-hidden">{t("settings.account")}</legend>
        {(["local", "team"] as const).map((option) => (
          <label key={option} className="choice-option">
            <input
              type="radio"
              name={ids.kind}
              value={option}
              checked={kind === option}
              onChange={() => setKind(option)}
            />
            <span>
              {t(option === "local" ? "settings.local" : "settings.team")}
              <span className="hint">
                {t(option === "local" ? "settings.localHelp" : "settings.teamHelp")}
              </span>
            </span>
          </label>
        ))}
      </fieldset>

      {kind === "local" && !fromEnv && state.account?.kind !== "local" && (
        <button type="button" className="button button-primary" disabled={busy} onClick={() => local.mutate(undefined)}>
          {t("settings.useLocal")}
        </button>
      )}

      {kind === "team" && !fromEnv && (
        <form className="form" onSubmit={submitTeam}>
          <label htmlFor={ids.url}>{t("settings.url")}</label>
          <input
            id={ids.url}
            className="input"
            type="url"
            required
            placeholder="https://memory.example.com"
            value={url}
            onChange={(event) => setUrl(event.currentTarget.value)}
          />
          <label htmlFor={ids.token}>{t("settings.token")}</label>
          <input
            id={ids.token}
            className="input"
            type="password"
            required
            autoComplete="off"
            value={token}
            onChange={(event) => setToken(event.currentTarget.value)}
          />
          <div className="form-actions">
            <button type="submit" className="button button-primary" disabled={busy}>
              {team.isPending ? t("settings.saving") : t("settings.signIn")}
            </button>
            {state.account?.kind === "team" && (
              <button type="button" className="button" disabled={busy} onClick={() => out.mutate(undefined)}>
                {t("settings.signOut")}
              </button>
            )}
          </div>
        </form>
      )}

      {failure && (
        <p className="form-error" role="alert">
          {errorMessage(failure)}
        </p>
      )}
    </section>
  );
}
