// One session's transcript: header with Back, the message list, and the "Remember…"
// dialog for a message or a selection in it.
import { useCallback, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import type { AppState, TranscriptMessage } from "../ipc";
import { ErrorState } from "../memory/states/ErrorState";
import { Loading } from "../memory/states/Loading";
import { shorten } from "./format";
import { MessageList } from "./MessageList";
import type { OpenTranscript } from "./navigation";
import { RememberDialog, type RememberSource } from "./RememberDialog";
import { SourceIcon } from "./SourceIcon";
import { CitationsContext, SessionCitations, useCitations } from "./CitedBy";
import { ForgetSession } from "./ForgetSession";
import { ArchivedBadge } from "./SessionRows";
import { useActivity } from "./useActivity";
import { useSessionInfo, useTranscript } from "./useTranscript";

interface Props {
  state: AppState;
  open: OpenTranscript;
  onBack: () => void;
}

export function TranscriptView({ state, open, onBack }: Props) {
  const { t } = useTranslation();
  const keysId = useId();
  // Always asks again on opening: open_session makes it the open session in Rust.
  const info = useSessionInfo(open.sessionId, 0);
  const { query, messages } = useTranscript(open.sessionId, info.isSuccess);
  const activity = useActivity(open.sessionId, query.data?.pages, query.isRefetching);
  const [remember, setRemember] = useState<RememberSource | null>(null);
  const [missing, setMissing] = useState(false);
  const { fetchNextPage } = query;
  const fetchOlder = useCallback(() => void fetchNextPage({ cancelRefetch: false }), [fetchNextPage]);
  const title = info.data?.title ?? "";
  const citations = useCitations(state, open.sessionId);

  let body;
  if (info.isError)
    body = <ErrorState title={t("transcript.errorTitle")} error={info.error} onRetry={() => void info.refetch()} />;
  else if (query.isError)
    body = <ErrorState title={t("transcript.errorTitle")} error={query.error} onRetry={() => void query.refetch()} />;
  else if (info.isPending || query.isPending) body = <Loading label={t("transcript.loading")} />;
  else
    body = (
      <MessageList
        // A new open (even of the same target) starts a new jump.
        key={open.nonce}
        label={t("transcript.label")}
        describedBy={keysId}
        messages={messages}
        activity={activity}
        hasOlder={query.hasNextPage}
        isFetchingOlder={query.isFetchingNextPage}
        fetchOlder={fetchOlder}
        target={open.target}
        onTargetMissing={() => setMissing(true)}
        onRemember={(message: TranscriptMessage, selection: string | null) =>
          setRemember({ message, selection, sessionId: open.sessionId, sessionTitle: title })
        }
        onBack={onBack}
      />
    );

  return (
    <CitationsContext.Provider value={citations}>
    <div className="browser">
      <div className="transcript-head">
        <button type="button" className="button" onClick={onBack}>
          {t("transcript.back")}
        </button>
        {info.data && (
          <h2 className="transcript-title" title={info.data.title}>
            <SourceIcon source={info.data.source} /> <span>{shorten(info.data.title)}</span>
          </h2>
        )}
        {info.data && (
          <p className="transcript-meta">
            {info.data.workspace && <span>{info.data.workspace}</span>}
            <span>{t("sessions.messages", { count: info.data.messageCount })}</span>
            {info.data.archived && <ArchivedBadge archivedAt={info.data.archivedAt ?? null} />}
          </p>
        )}
        <SessionCitations />
        {info.data && <ForgetSession session={info.data} onForgotten={onBack} />}
      </div>
      <p id={keysId} className="hint">
        {t("transcript.keys")}
      </p>
      {missing && (
        <p className="hint" role="status">
          {t("transcript.notFound")}
        </p>
      )}
      {body}
      <RememberDialog state={state} source={remember} onClose={() => setRemember(null)} />
    </div>
    </CitationsContext.Provider>
  );
}
