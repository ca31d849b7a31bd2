// "Remember…": save a memory from a transcript message (or a selection in it), citing
// the message. Nothing is saved until Save; text that looks like a secret is highlighted
// and blocks Save until it is edited out. Ariakit's Dialog, like the delete dialog.
import * as Ariakit from "@ariakit/react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { editMemory, errorMessage, saveMemory, type AppState, type SimilarMemory, type TranscriptMessage } from "../ipc";
import { SimilarHint, useSimilar } from "../memory/SimilarHint";
import { appStateKey, listRoot, searchKeyPrefix } from "../memory/queryKeys";
import { useToasts } from "../toasts/Toasts";
import { shorten } from "./format";
import { citingRoot } from "./CitedBy";
import { SecretWarning } from "./SecretWarning";
import { findSecrets, secretKinds } from "./secrets";

export const CONTENT_MAX_CHARS = 8000;
export const SNIPPET_MAX_CHARS = 4000;
export const ORIGIN = "searched_conversation" as const;

export interface RememberSource {
  message: TranscriptMessage;
  /** Text selected inside the message, else null (the whole message). */
  selection: string | null;
  sessionId: string;
  sessionTitle: string;
}

/** Trimmed and cut to `max` code points (never half a surrogate pair). */
export function cap(text: string, max: number): string {
  const chars = Array.from(text.trim());
  return chars.length > max ? chars.slice(0, max).join("") : text.trim();
}

interface Props {
  state: AppState;
  source: RememberSource | null;
  onClose: () => void;
}

export function RememberDialog({ state, source, onClose }: Props) {
  const contentRef = useRef<HTMLTextAreaElement>(null);
  return (
    <Ariakit.Dialog
      open={source !== null}
      onClose={onClose}
      className="dialog dialog-wide"
      backdrop={<div className="dialog-backdrop" />}
      initialFocus={contentRef}
      unmountOnHide
    >
      {source && (
        <RememberForm
          key={`${source.sessionId}\u0000${source.message.messageId}\u0000${source.selection ?? ""}`}
          state={state}
          source={source}
          contentRef={contentRef}
          onClose={onClose}
        />
      )}
    </Ariakit.Dialog>
  );
}

interface FormProps {
  state: AppState;
  source: RememberSource;
  contentRef: React.RefObject<HTMLTextAreaElement | null>;
  onClose: () => void;
}

function RememberForm({ state, source, contentRef, onClose }: FormProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const toasts = useToasts();
  const ids = { content: useId(), snippet: useId(), tags: useId(), help: useId(), warn: useId() };
  const initial = source.selection ?? source.message.text;
  const [content, setContent] = useState(() => cap(initial, CONTENT_MAX_CHARS));
  const [snippet, setSnippet] = useState(() => cap(initial, SNIPPET_MAX_CHARS));
  const [tags, setTags] = useState("");
  const save = useMutation({
    mutationFn: saveMemory,
    onSuccess: (_memory, args) => {
      void client.invalidateQueries({ queryKey: listRoot(args.orgId) });
      void client.invalidateQueries({ queryKey: searchKeyPrefix(args.orgId) });
      // The message it cites now shows its "Remembered" marker.
      void client.invalidateQueries({ queryKey: citingRoot });
      toasts.show({ id: "memory-saved", kind: "success", title: t("remember.saved") });
      onClose();
    },
  });

  // The person may change an alike memory to this sentence instead of adding a second.
  const editInstead = useMutation({
    mutationFn: editMemory,
    onSuccess: (_memory, args) => {
      void client.invalidateQueries({ queryKey: listRoot(args.orgId) });
      void client.invalidateQueries({ queryKey: searchKeyPrefix(args.orgId) });
      toasts.show({ id: "memory-saved", kind: "success", title: t("similar.changed") });
      onClose();
    },
  });
  const similar = useSimilar(state.account === null ? null : state.activeOrgId, content);

  const contentSecrets = findSecrets(content);
  const snippetSecrets = findSecrets(snippet);
  const kinds = secretKinds([...contentSecrets, ...snippetSecrets]);
  const noOrg = state.account === null || state.activeOrgId === null;
  const empty = content.trim() === "";
  const canSave = !noOrg && !empty && kinds.length === 0 && !save.isPending && !editInstead.isPending;

  const onEditInstead = (memory: SimilarMemory) => {
    const current = client.getQueryData<AppState>(appStateKey) ?? state;
    if (!canSave || current.account === null || current.activeOrgId === null) return;
    editInstead.mutate({ orgId: current.activeOrgId, id: memory.id, edit: { content: content.trim() } });
  };

  const onSave = () => {
    // The org active now, when Save is pressed, not when the dialog opened.
    const current = client.getQueryData<AppState>(appStateKey) ?? state;
    if (!canSave || current.account === null || current.activeOrgId === null) return;
    const tagList = tags.split(/[,，]/).map((tag) => tag.trim()).filter(Boolean);
    save.mutate({
      orgId: current.activeOrgId,
      content: content.trim(),
      ...(tagList.length > 0 ? { tags: tagList } : {}),
      contexts: [
        { snippet: snippet.trim(), conversationId: source.sessionId, messageId: source.message.messageId, origin: ORIGIN },
      ],
    });
  };

  return (
    <>
      <Ariakit.DialogHeading className="dialog-title">{t("remember.title")}</Ariakit.DialogHeading>
      <Ariakit.DialogDescription className="dialog-body">{t("remember.description")}</Ariakit.DialogDescription>
      {noOrg && (
        <p className="form-error" role="status">
          {t("remember.noOrg")}
        </p>
      )}
      <div className="form remember-form">
        <label htmlFor={ids.content}>{t("remember.content")}</label>
        <span id={ids.help} className="hint">
          {t("remember.contentHelp")}
        </span>
        <textarea
          id={ids.content}
          ref={contentRef}
          className="input"
          rows={4}
          maxLength={CONTENT_MAX_CHARS}
          value={content}
          aria-invalid={contentSecrets.length > 0 || undefined}
          aria-describedby={`${ids.help}${kinds.length > 0 ? ` ${ids.warn}` : ""}`}
          onChange={(event) => setContent(event.currentTarget.value)}
        />
        <SimilarHint similar={similar} onEditInstead={onEditInstead} busy={!canSave} />
        <label htmlFor={ids.snippet}>{t("remember.snippet")}</label>
        <span className="hint">{t("remember.snippetHelp")}</span>
        <textarea
          id={ids.snippet}
          className="input"
          rows={4}
          maxLength={SNIPPET_MAX_CHARS}
          value={snippet}
          aria-invalid={snippetSecrets.length > 0 || undefined}
          aria-describedby={kinds.length > 0 ? ids.warn : undefined}
          onChange={(event) => setSnippet(event.currentTarget.value)}
        />
        <SecretWarning
          id={ids.warn}
          fields={[
            { label: t("remember.content"), text: content, matches: contentSecrets },
            { label: t("remember.snippet"), text: snippet, matches: snippetSecrets },
          ]}
        />
        <label htmlFor={ids.tags}>{t("remember.tags")}</label>
        <span className="hint">{t("remember.tagsHelp")}</span>
        <input id={ids.tags} className="input" value={tags} autoComplete="off" onChange={(event) => setTags(event.currentTarget.value)} />
      </div>
      <section className="citation" aria-label={t("remember.citation")}>
        <p className="citation-title">{t("remember.citation")}</p>
        <dl>
          <dt>{t("remember.session")}</dt>
          <dd title={source.sessionTitle}>{shorten(source.sessionTitle, 80)}</dd>
          <dt>{t("remember.sessionId")}</dt>
          <dd><code>{source.sessionId}</code></dd>
          <dt>{t("remember.messageId")}</dt>
          <dd><code>{source.message.messageId}</code></dd>
          <dt>{t("remember.origin")}</dt>
          <dd><code>{ORIGIN}</code></dd>
        </dl>
      </section>
      {empty && <p className="hint">{t("remember.emptyContent")}</p>}
      {(save.isError || editInstead.isError) && (
        <p className="form-error" role="alert">
          {t("remember.failed", { message: errorMessage(save.error ?? editInstead.error) })}
        </p>
      )}
      <div className="dialog-actions">
        <Ariakit.DialogDismiss className="button">{t("remember.cancel")}</Ariakit.DialogDismiss>
        <button type="button" className="button button-primary" disabled={!canSave} onClick={onSave}>
          {save.isPending ? t("remember.saving") : t("remember.save")}
        </button>
      </div>
    </>
  );
}
