// Toasts on top of @radix-ui/react-toast (accessible: announced through a live region,
// F8 moves focus to them, Escape or swipe closes them). Radix injects no <style> tags,
// so it works under the strict CSP; the look is in styles/toasts.css.
//
// Toasts that carry an action (Undo) get duration Infinity: whoever shows them decides
// exactly when they close, because Radix pauses its own timer on hover/focus and the
// Undo must never outlive the moment undo stops being possible.
import * as Toast from "@radix-ui/react-toast";
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";

export interface ToastSpec {
  id: string;
  kind: "success" | "error";
  title: string;
  action?: { label: string; altText: string; onAction: () => void };
}

interface ToastApi {
  show: (toast: ToastSpec) => void;
  dismiss: (id: string) => void;
}

const ToastContext = createContext<ToastApi | null>(null);

export function useToasts(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error("useToasts needs <ToastsProvider>");
  return api;
}

// Errors stay long enough to read; action toasts are closed by their owner.
const ERROR_DURATION_MS = 8000;
const SUCCESS_DURATION_MS = 4000;

export function ToastsProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const [toasts, setToasts] = useState<ToastSpec[]>([]);

  const show = useCallback((toast: ToastSpec) => {
    // Same id replaces, so a toast can be re-shown without stacking duplicates.
    setToasts((list) => [...list.filter((item) => item.id !== toast.id), toast]);
  }, []);
  const dismiss = useCallback((id: string) => {
    setToasts((list) => list.filter((item) => item.id !== id));
  }, []);
  const api = useMemo(() => ({ show, dismiss }), [show, dismiss]);

  return (
    <ToastContext.Provider value={api}>
      <Toast.Provider swipeDirection="right" label={t("toast.region", { hotkey: "F8" })}>
        {children}
        {toasts.map((toast) => (
          <Toast.Root
            key={toast.id}
            className={`toast toast-${toast.kind}`}
            data-testid={`toast-${toast.id}`}
            // Errors interrupt (assertive); confirmations wait their turn (polite).
            type={toast.kind === "error" ? "foreground" : "background"}
            duration={
              toast.action
                ? Infinity
                : toast.kind === "error"
                  ? ERROR_DURATION_MS
                  : SUCCESS_DURATION_MS
            }
            open
            onOpenChange={(open) => {
              if (!open) dismiss(toast.id);
            }}
          >
            <Toast.Title className="toast-title">{toast.title}</Toast.Title>
            {toast.action && (
              <Toast.Action
                className="button button-small"
                altText={toast.action.altText}
                onClick={toast.action.onAction}
              >
                {toast.action.label}
              </Toast.Action>
            )}
            <Toast.Close className="button button-ghost button-small" aria-label={t("toast.close")}>
              <span aria-hidden="true">×</span>
            </Toast.Close>
          </Toast.Root>
        ))}
        <Toast.Viewport className="toast-viewport" />
      </Toast.Provider>
    </ToastContext.Provider>
  );
}
