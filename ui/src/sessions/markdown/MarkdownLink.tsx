// A link in a transcript. An openable one (http, https, mailto: see links.ts) opens in the
// system browser through the opener plugin; the click never navigates the web view (the
// Rust side refuses such a navigation too). Any other link is inert text. The target is
// the tooltip, since a web view has no status bar to show where a link goes.
import type { MouseEvent, ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { errorMessage, openInBrowser } from "../../ipc";
import { useToasts } from "../../toasts/Toasts";

interface Props {
  /** Already checked by `transcriptUrlTransform`: "" when the link must stay inert. */
  href?: string;
  children?: ReactNode;
}

export function MarkdownLink({ href, children }: Props) {
  const { t } = useTranslation();
  const toasts = useToasts();
  if (!href) return <span className="md-link-inert">{children}</span>;

  const open = (event: MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault();
    openInBrowser(href).catch((error: unknown) =>
      toasts.show({ id: "open-link-failed", kind: "error", title: t("markdown.openFailed", { message: errorMessage(error) }) }),
    );
  };
  return (
    <a
      href={href}
      className="md-link"
      title={href}
      onClick={open}
      // A middle click would ask the web view for a new window: open it the same way.
      onAuxClick={(event) => event.button === 1 && open(event)}
      draggable={false}
    >
      {children}
    </a>
  );
}
