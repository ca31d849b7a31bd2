// Session folders: extra folders of a tool's sessions (e.g. a copy from another machine, or
// the folders holding the repositories where Aider keeps its histories), kept in
// prefs.sessionRoots; each tool's default folders are listed in Session sources above. Adding or
// removing one sends the whole new list (`set_session_roots`); the AppState it returns
// replaces the cached one, and the backend restarts its watcher over the new list.
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { useAppStateCommand } from "../app/useAppState";
import { errorMessage, setSessionRoots, type AppState, type SessionRoot, type Source } from "../ipc";
import { EXAMPLE_PATHS, isAbsolutePath, sameRoot, SOURCES } from "./sessionFolders";
import "./settings.css";

export function SessionFoldersSection({ state }: { state: AppState }) {
  const { t } = useTranslation();
  const ids = {
    heading: useId(),
    list: useId(),
    add: useId(),
    source: useId(),
    path: useId(),
    help: useId(),
    problem: useId(),
  };
  const roots = state.prefs.sessionRoots;
  const [source, setSource] = useState<Source>("claude-code");
  const [path, setPath] = useState("");
  /** The add form's hint or the backend's refusal, shown next to the path field. */
  const [problem, setProblem] = useState<string | null>(null);
  const [removeError, setRemoveError] = useState<string | null>(null);
  /** Read out politely once a change is saved. */
  const [announcement, setAnnouncement] = useState("");
  const save = useAppStateCommand(setSessionRoots);
  const pathRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  /** The row being removed: once it is gone, focus moves to its neighbour. */
  const removing = useRef<{ root: SessionRoot; index: number } | null>(null);

  useEffect(() => {
    const pending = removing.current;
    if (!pending || roots.some((root) => sameRoot(root, pending.root))) return;
    removing.current = null;
    const buttons = listRef.current?.querySelectorAll<HTMLButtonElement>("button");
    const next = buttons?.length ? buttons[Math.min(pending.index, buttons.length - 1)] : pathRef.current;
    next?.focus();
  }, [roots]);

  const refuse = (message: string) => {
    setProblem(message);
    pathRef.current?.focus();
  };

  const add = (event: FormEvent) => {
    event.preventDefault();
    if (save.isPending) return;
    const trimmed = path.trim();
    if (!trimmed) return refuse(t("settings.folders.pathRequired"));
    if (!isAbsolutePath(trimmed)) return refuse(t("settings.folders.notAbsolute"));
    const root = { source, path: trimmed };
    if (roots.some((existing) => sameRoot(existing, root))) return refuse(t("settings.folders.duplicate"));
    setProblem(null);
    setRemoveError(null);
    save.mutate([...roots, root], {
      onSuccess: () => {
        setPath("");
        setAnnouncement(t("settings.folders.addedStatus", { path: trimmed }));
      },
      // Keep what was typed so it can be corrected.
      onError: (error) => refuse(errorMessage(error)),
    });
  };

  const remove = (root: SessionRoot, index: number) => {
    if (save.isPending) return;
    setRemoveError(null);
    setProblem(null);
    removing.current = { root, index };
    save.mutate(
      roots.filter((existing) => !sameRoot(existing, root)),
      {
        onSuccess: () => setAnnouncement(t("settings.folders.removedStatus", { path: root.path })),
        onError: (error) => {
          removing.current = null;
          setRemoveError(errorMessage(error));
        },
      },
    );
  };

  return (
    <section className="settings-section" aria-labelledby={ids.heading}>
      <h2 id={ids.heading}>{t("settings.folders.title")}</h2>
      <p>{t("settings.folders.extraIntro")}</p>

      <h3 id={ids.list}>{t("settings.folders.added")}</h3>
      {roots.length === 0 ? (
        <p className="hint">{t("settings.folders.none")}</p>
      ) : (
        <ul className="folder-list" aria-labelledby={ids.list} ref={listRef}>
          {roots.map((root, index) => (
            <li key={`${root.source}\n${root.path}`} className="folder-row">
              <span className="folder-source">{t(`sources.${root.source}`)}</span>
              <code className="folder-path">{root.path}</code>
              <button
                type="button"
                className="button button-small"
                aria-label={t("settings.folders.removeLabel", {
                  path: root.path,
                  tool: t(`sources.${root.source}`),
                })}
                onClick={() => remove(root, index)}
              >
                {t("settings.folders.remove")}
              </button>
            </li>
          ))}
        </ul>
      )}
      {removeError && (
        <p className="form-error" role="alert">
          {removeError}
        </p>
      )}

      <h3 id={ids.add}>{t("settings.folders.addTitle")}</h3>
      <form className="form" aria-labelledby={ids.add} noValidate onSubmit={add}>
        <label htmlFor={ids.source}>{t("settings.folders.source")}</label>
        <select
          id={ids.source}
          className="input"
          value={source}
          onChange={(event) => setSource(event.currentTarget.value as Source)}
        >
          {SOURCES.map((option) => (
            <option key={option} value={option}>
              {t(`sources.${option}`)}
            </option>
          ))}
        </select>
        <label htmlFor={ids.path}>{t("settings.folders.path")}</label>
        <input
          id={ids.path}
          ref={pathRef}
          className="input"
          type="text"
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          placeholder={EXAMPLE_PATHS[source]}
          value={path}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${ids.problem} ${ids.help}` : ids.help}
          onChange={(event) => {
            setPath(event.currentTarget.value);
            setProblem(null);
          }}
        />
        <span id={ids.help} className="hint">
          {t("settings.folders.pathHelp")}
        </span>
        {problem && (
          <p id={ids.problem} className="form-error" role="alert">
            {problem}
          </p>
        )}
        <div className="form-actions">
          <button type="submit" className="button button-primary" aria-disabled={save.isPending || undefined}>
            {save.isPending ? t("settings.saving") : t("settings.folders.add")}
          </button>
        </div>
      </form>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
    </section>
  );
}
