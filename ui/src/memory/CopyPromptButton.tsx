// Copies the agent instructions, in the UI language; the label says "Copied" for 2 s.
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { errorMessage } from "../ipc";
import { useToasts } from "../toasts/Toasts";
import { agentPrompt } from "./agentPrompt";
import { CopyIcon } from "./icons";

export const COPIED_MS = 2000;

export function CopyPromptButton() {
  const { t, i18n } = useTranslation();
  const toasts = useToasts();
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);

  useEffect(() => () => clearTimeout(timer.current), []);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(agentPrompt(i18n.language));
    } catch (error) {
      toasts.show({
        id: "copy-prompt",
        kind: "error",
        title: t("memory.copyFailed", { message: errorMessage(error) }),
      });
      return;
    }
    setCopied(true);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(false), COPIED_MS);
  };

  return (
    <>
      <button type="button" className="button" onClick={() => void copy()}>
        <CopyIcon />
        {copied ? t("memory.copied") : t("memory.copyPrompt")}
      </button>
      {/* The label change alone is not announced; this polite status is. */}
      <span role="status" className="visually-hidden">
        {copied ? t("memory.copied") : ""}
      </span>
    </>
  );
}
