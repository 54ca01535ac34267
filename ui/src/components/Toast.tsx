// The toast: a transient result at the bottom of the conversation, with Undo where the action
// can be taken back. The region stays in the page (empty) so screen readers hear what arrives.
import { type Component, Show } from "solid-js";

import { useLanguage } from "../lib/language";
import type { Toasts } from "../lib/toasts";

export const ToastView: Component<{ toasts: Toasts }> = (props) => {
  const { t } = useLanguage();
  return (
  <div class="toast-region" role="status" aria-live="polite">
    <Show when={props.toasts.current()} keyed>
      {(toast) => (
        <div class="toast" data-testid="toast">
          <span class="toast-text" data-testid="toast-text">
            {toast.text}
          </span>
          <Show when={toast.undo}>
            {(undo) => (
              <button
                type="button"
                class="toast-undo"
                data-testid="toast-undo"
                onClick={() => {
                  props.toasts.dismiss();
                  undo()();
                }}
              >
                {t("common.toastUndo")}
              </button>
            )}
          </Show>
          <button type="button" class="toast-close" aria-label={t("common.toastDismiss")} title={t("common.toastDismiss")} onClick={() => { props.toasts.dismiss(); }}>
            ×
          </button>
        </div>
      )}
    </Show>
  </div>
);
};
