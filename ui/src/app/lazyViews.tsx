// The views not shown at start, each in a chunk of its own: the first paint parses only
// the shell and the memory panel (the single bundle was over 500 kB), and a view's code
// costs the web process memory only once the person opens it.
import { useEffect, useState, type ComponentType } from "react";
import { useTranslation } from "react-i18next";

export type LazyView<P> = ComponentType<P> & {
  /** Loads the view's chunk; once it has loaded, the view renders at once (no fallback). */
  preload: () => Promise<void>;
};

// Not React.lazy: its first render always suspends, even once the chunk is loaded,
// while here a preloaded view renders synchronously (the UI tests preload them all).
function lazyView<P extends object>(load: () => Promise<ComponentType<P>>): LazyView<P> {
  let Loaded: ComponentType<P> | null = null;
  let loading: Promise<void> | null = null;
  const preload = () =>
    (loading ??= load().then(
      (view) => {
        Loaded = view;
      },
      (error: unknown) => {
        loading = null; // let the next mount try again
        throw error;
      },
    ));
  function View(props: P) {
    const { t } = useTranslation();
    const [, setLoaded] = useState(false);
    useEffect(() => {
      if (!Loaded) preload().then(() => setLoaded(true), console.error);
    }, []);
    const Component = Loaded;
    return Component ? <Component {...props} /> : <p role="status">{t("app.loading")}</p>;
  }
  return Object.assign(View, { preload });
}

export const SessionsView = lazyView(() => import("../sessions/SessionsView").then((m) => m.SessionsView));
export const SettingsView = lazyView(() => import("../settings/SettingsView").then((m) => m.SettingsView));
export const InboxView = lazyView(() => import("../inbox/InboxView").then((m) => m.InboxView));

/** Every lazy view, for tests that must not wait on a chunk. */
export const lazyViews: { preload: () => Promise<void> }[] = [SessionsView, SettingsView, InboxView];
