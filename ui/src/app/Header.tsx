// App header with the section tabs. Plain buttons with aria-current: this is page
// navigation, not a tablist, so no arrow-key pattern is implied. The Inbox tab carries
// the number of pending proposals (in its accessible name too).
import { useTranslation } from "react-i18next";

export type View = "memories" | "inbox" | "sessions" | "settings";

const SECTIONS: { view: View; labelKey: "app.memories" | "app.inbox" | "app.sessions" | "app.settings" }[] = [
  { view: "memories", labelKey: "app.memories" },
  { view: "inbox", labelKey: "app.inbox" },
  { view: "sessions", labelKey: "app.sessions" },
  { view: "settings", labelKey: "app.settings" },
];

interface Props {
  view: View;
  onNavigate: (view: View) => void;
  /** Pending proposals; 0 or null shows no badge. */
  inboxCount: number | null;
  /** More are pending than were listed. */
  inboxMore?: boolean;
}

export function Header({ view, onNavigate, inboxCount, inboxMore = false }: Props) {
  const { t } = useTranslation();
  const count = inboxCount ?? 0;
  return (
    <header className="header">
      <h1 className="header-title">{t("app.title")}</h1>
      <nav aria-label={t("app.nav")}>
        <ul className="nav">
          {SECTIONS.map((section) => {
            const badge = section.view === "inbox" && count > 0;
            return (
              <li key={section.view}>
                <button
                  type="button"
                  className="nav-link"
                  aria-current={view === section.view ? "page" : undefined}
                  onClick={() => onNavigate(section.view)}
                >
                  {badge ? (
                    <>
                      {/* Seen: "Inbox 2"; heard: "Inbox, 2 proposals waiting" (one text,
                          so every browser computes the same name, which starts with the
                          visible label). */}
                      <span aria-hidden="true">{t(section.labelKey)}</span>
                      <span className="nav-badge" aria-hidden="true">
                        {inboxMore ? `${count}+` : count}
                      </span>
                      <span className="visually-hidden">
                        {inboxMore ? t("app.inboxLabelMore", { count }) : t("app.inboxLabel", { count })}
                      </span>
                    </>
                  ) : (
                    t(section.labelKey)
                  )}
                </button>
              </li>
            );
          })}
        </ul>
      </nav>
    </header>
  );
}
