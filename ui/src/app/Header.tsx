// App header with the section tabs. Plain buttons with aria-current: this is page
// navigation, not a tablist, so no arrow-key pattern is implied.
import { useTranslation } from "react-i18next";

export type View = "memories" | "sessions" | "settings";

const SECTIONS: { view: View; labelKey: "app.memories" | "app.sessions" | "app.settings" }[] = [
  { view: "memories", labelKey: "app.memories" },
  { view: "sessions", labelKey: "app.sessions" },
  { view: "settings", labelKey: "app.settings" },
];

export function Header({ view, onNavigate }: { view: View; onNavigate: (view: View) => void }) {
  const { t } = useTranslation();
  return (
    <header className="header">
      <h1 className="header-title">{t("app.title")}</h1>
      <nav aria-label={t("app.nav")}>
        <ul className="nav">
          {SECTIONS.map((section) => (
            <li key={section.view}>
              <button
                type="button"
                className="nav-link"
                aria-current={view === section.view ? "page" : undefined}
                onClick={() => onNavigate(section.view)}
              >
                {t(section.labelKey)}
              </button>
            </li>
          ))}
        </ul>
      </nav>
    </header>
  );
}
