// Tells screen readers about proposals that arrive while the app is open, whichever view
// is shown (the tab's badge is the visual cue; the desktop notification is for when the
// window is not focused). What was already waiting at start is not announced.
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import type { Proposal } from "../ipc";
import { clientName } from "./clientName";

export function InboxAnnouncer({ proposals }: { proposals: Proposal[] | undefined }) {
  const { t } = useTranslation();
  const [message, setMessage] = useState("");
  const seen = useRef<Set<string> | null>(null);

  useEffect(() => {
    if (!proposals) return;
    const previous = seen.current;
    seen.current = new Set(proposals.map((p) => p.id));
    if (!previous) return;
    const arrived = proposals.filter((p) => !previous.has(p.id));
    if (arrived.length === 1) {
      const [one] = arrived;
      setMessage(
        one.proposedBy
          ? t("inbox.newOne", { client: clientName(one.proposedBy), content: one.content })
          : t("inbox.newOneUnknown", { content: one.content }),
      );
    } else if (arrived.length > 1) {
      setMessage(t("inbox.newMany", { count: arrived.length }));
    }
  }, [proposals, t]);

  return (
    <div role="status" className="visually-hidden">
      {message}
    </div>
  );
}
