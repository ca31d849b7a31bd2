// A memory's citation of a session message. If find_session finds that session on
// this machine (checked lazily, once, through the query cache), it becomes a button that
// opens the transcript at the cited message; otherwise (session_not_found, or any
// error) it stays plain text.
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { findSession } from "../ipc";
import { useOpenSession } from "../sessions/navigation";
import { citedSessionKey } from "../sessions/queryKeys";

interface Props {
  conversationId: string;
  messageId: string;
  /** The plain text shown when there is no session to open. */
  text: string;
}

export function CitationLink({ conversationId, messageId, text }: Props) {
  const { t } = useTranslation();
  const open = useOpenSession();
  const info = useQuery({
    queryKey: citedSessionKey(conversationId),
    queryFn: () => findSession({ sessionId: conversationId }),
    staleTime: Infinity,
    enabled: open !== null,
  });
  if (!open || !info.isSuccess) return <>{text}</>;
  return (
    <>
      {text}{" "}
      <button
        type="button"
        className="link-button"
        aria-label={t("row.openSessionLabel", { id: conversationId })}
        onClick={() => open(conversationId, { messageId })}
      >
        {t("row.openSession")}
      </button>
    </>
  );
}
