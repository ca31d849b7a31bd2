// "Forget…" on a transcript: after a confirmation (the safe choice focused), the session
// leaves the history (its messages, search entries and archived copy) until its tool adds
// to it. The tool's own files are never touched.
import * as Ariakit from "@ariakit/react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { errorMessage, forgetSession, type SessionInfo } from "../ipc";
import { useToasts } from "../toasts/Toasts";
import { sessionsRoot } from "./queryKeys";

interface Props {
  session: SessionInfo;
  /** After it is forgotten: back to the list. */
  onForgotten: () => void;
}

export function ForgetSession({ session, onForgotten }: Props) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const toasts = useToasts();
  const [open, setOpen] = useState(false);
  const keepRef = useRef<HTMLButtonElement>(null);
  const forget = useMutation({
    mutationFn: forgetSession,
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: sessionsRoot });
      toasts.show({ id: "session-forgotten", kind: "success", title: t("transcript.forgotten") });
      setOpen(false);
      onForgotten();
    },
  });
  return (
    <>
      <button type="button" className="button" aria-label={t("transcript.forgetLabel")} onClick={() => setOpen(true)}>
        {t("transcript.forget")}
      </button>
      <Ariakit.Dialog
        open={open}
        onClose={() => setOpen(false)}
        role="alertdialog"
        className="dialog"
        backdrop={<div className="dialog-backdrop" />}
        initialFocus={keepRef}
        unmountOnHide
      >
        <Ariakit.DialogHeading className="dialog-title">{t("transcript.forgetTitle")}</Ariakit.DialogHeading>
        <Ariakit.DialogDescription className="dialog-body">{t("transcript.forgetBody")}</Ariakit.DialogDescription>
        <blockquote className="dialog-quote">{session.title}</blockquote>
        {forget.isError && (
          <p className="form-error" role="alert">
            {t("transcript.forgetFailed", { message: errorMessage(forget.error) })}
          </p>
        )}
        <div className="dialog-actions">
          <Ariakit.DialogDismiss ref={keepRef} className="button">
            {t("transcript.forgetCancel")}
          </Ariakit.DialogDismiss>
          <button
            type="button"
            className="button button-danger-solid"
            disabled={forget.isPending}
            onClick={() => forget.mutate({ sessionId: session.sessionId, source: session.source })}
          >
            {t("transcript.forgetConfirm")}
          </button>
        </div>
      </Ariakit.Dialog>
    </>
  );
}
