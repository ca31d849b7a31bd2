// Inline edit of one memory, keyboard-first: the sentence and its tags in place of the
// row, Enter saves (Shift+Enter is a new line), Esc cancels. What the service refuses
// (limits, a secret) is said in the form and nothing changes.
import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { useTranslation } from "react-i18next";
import { errorMessage, type Memory } from "../ipc";
import { parseTags, useMemoryEdits } from "./editing";

interface Props {
  memory: Memory;
  orgId: string;
  onDone: () => void;
}

export function MemoryEditor({ memory, orgId, onDone }: Props) {
  const { t } = useTranslation();
  const { edit } = useMemoryEdits(orgId);
  const [content, setContent] = useState(memory.content);
  const [tags, setTags] = useState((memory.tags ?? []).join(", "));
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const field = useRef<HTMLTextAreaElement>(null);
  const hintId = useId();

  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, []);

  const save = async () => {
    if (saving) return;
    setSaving(true);
    setError(null);
    try {
      await edit(memory.id, { content, tags: parseTags(tags) });
      onDone();
    } catch (err) {
      setError(t("edit.failed", { message: errorMessage(err) }));
      setSaving(false);
    }
  };

  const keys = (event: KeyboardEvent) => {
    if (event.key === "Escape") {
      event.preventDefault();
      onDone();
    } else if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void save();
    }
  };

  return (
    <form
      className="row-editor"
      aria-label={t("edit.label")}
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
      onKeyDown={keys}
    >
      <label className="field">
        <span className="field-label">{t("edit.content")}</span>
        <textarea
          ref={field}
          className="input"
          value={content}
          rows={Math.min(6, Math.max(2, Math.ceil(content.length / 90)))}
          aria-describedby={hintId}
          onChange={(event) => setContent(event.target.value)}
        />
      </label>
      <label className="field">
        <span className="field-label">{t("edit.tags")}</span>
        <input className="input" value={tags} onChange={(event) => setTags(event.target.value)} />
      </label>
      <p id={hintId} className="row-editor-hint">
        {t("edit.hint")}
      </p>
      {error && (
        <p className="row-editor-error" role="alert">
          {error}
        </p>
      )}
      <div className="row-editor-actions">
        <button type="submit" className="button button-primary" disabled={saving}>
          {t("edit.save")}
        </button>
        <button type="button" className="button" onClick={onDone}>
          {t("edit.cancel")}
        </button>
      </div>
    </form>
  );
}
