// "Dossier X.Y is ready" in the sidebar's app actions (lib/update-notice.ts decides when): the
// button opens Settings → Updates, ✕ hides the notice for this version. Both sit in the footer's
// toolbar, so ←/→ reach them; the badge is the toolbar's Tab stop while it is there, unless the
// person moved elsewhere in it.
import type { Component } from "solid-js";

import type { AvailableUpdate } from "../lib/shell-bindings/AvailableUpdate";
import { useLanguage } from "../lib/language";

export interface UpdateBadgeProps {
  update: AvailableUpdate;
  /** This badge's button is the toolbar's one Tab stop. */
  tabStop: boolean;
  onFocus: () => void;
  onOpen: () => void;
  onDismiss: () => void;
}

export const UpdateBadge: Component<UpdateBadgeProps> = (props) => {
  const { t } = useLanguage();
  const dismiss = (event: MouseEvent) => {
    // The ✕ goes away with the notice: focus stays in the toolbar, on its Tab stop, not on the page.
    const toolbar = (event.currentTarget as HTMLElement).closest<HTMLElement>("[role=toolbar]");
    const hadFocus = toolbar?.contains(document.activeElement) === true;
    props.onDismiss();
    if (hadFocus) queueMicrotask(() => toolbar.querySelector<HTMLElement>("button[tabindex='0']")?.focus());
  };
  return (
    <div class="update-badge" data-testid="update-badge" data-version={props.update.version}>
      <button
        type="button"
        class="sidebar-settings update-badge-open"
        data-testid="update-badge-open"
        title={t("updates.badgeHint")}
        tabIndex={props.tabStop ? 0 : -1}
        onFocus={() => { props.onFocus(); }}
        onClick={() => { props.onOpen(); }}
      >
        <span class="update-badge-dot" aria-hidden="true" />
        <span class="update-badge-label">{t("updates.ready", { version: props.update.version })}</span>
      </button>
      <button
        type="button"
        class="icon-button update-badge-dismiss"
        data-testid="update-badge-dismiss"
        tabIndex={-1}
        aria-label={t("updates.badgeDismiss", { version: props.update.version })}
        title={t("updates.badgeDismiss", { version: props.update.version })}
        onFocus={() => { props.onFocus(); }}
        onClick={dismiss}
      >
        ✕
      </button>
    </div>
  );
};
