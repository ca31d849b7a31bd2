// Delete confirmation on Ariakit's Dialog (role alertdialog): focus trap, Escape,
// inert background. Ariakit sets styles through the CSSOM only, which the strict CSP
// allows; Radix's dialog injects a <style> tag for its scroll lock, which it blocks.
import * as Ariakit from "@ariakit/react";
import { useRef } from "react";
import { useTranslation } from "react-i18next";
import type { Memory } from "../ipc";

interface Props {
  memory: Memory | null;
  onCancel: () => void;
  onConfirm: (memory: Memory) => void;
}

export function DeleteDialog({ memory, onCancel, onConfirm }: Props) {
  const { t } = useTranslation();
  const cancelRef = useRef<HTMLButtonElement>(null);
  // Set on confirm so focus is not sent back to the (now hidden) row's button; the
  // panel moves it to the toolbar instead.
  const confirmed = useRef(false);

  return (
    <Ariakit.Dialog
      open={memory !== null}
      onClose={onCancel}
      role="alertdialog"
      className="dialog"
      backdrop={<div className="dialog-backdrop" />}
      // The safe choice gets the initial focus, so Enter does not delete by accident.
      initialFocus={cancelRef}
      autoFocusOnShow={() => {
        confirmed.current = false;
        return true;
      }}
      autoFocusOnHide={() => !confirmed.current}
      unmountOnHide
    >
      <Ariakit.DialogHeading className="dialog-title">{t("confirm.title")}</Ariakit.DialogHeading>
      <Ariakit.DialogDescription className="dialog-body">
        {t("confirm.body")}
      </Ariakit.DialogDescription>
      {memory && <blockquote className="dialog-quote">{memory.content}</blockquote>}
      <div className="dialog-actions">
        <Ariakit.DialogDismiss ref={cancelRef} className="button">
          {t("confirm.cancel")}
        </Ariakit.DialogDismiss>
        <button
          type="button"
          className="button button-danger-solid"
          onClick={() => {
            if (!memory) return;
            confirmed.current = true;
            onConfirm(memory);
          }}
        >
          {t("confirm.delete")}
        </button>
      </div>
    </Ariakit.Dialog>
  );
}
