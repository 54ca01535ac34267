// A sidebar row's actions: pin, select, rename, archive (or restore) and delete, in a menu opened
// by the row's ⋯ button or by a right click (or the context-menu key) anywhere on the row. The
// row itself stays one big "open this session" target: in a narrow sidebar a row of icon buttons
// left the title two letters wide and put Pin under the pointer. It is the header's menu
// (`SessionToolbar.tsx`) in look and keys — ↑/↓/Home/End move, Esc closes onto what opened it, Tab
// or a click elsewhere closes — drawn in a layer over the page (a Portal), because the list's
// rows are transformed and scroll, which would clip and misplace a menu inside them.
import { type Component, onCleanup, onMount, Show } from "solid-js";
import { Portal } from "solid-js/web";
import type { Session } from "../lib/bindings/Session";

import { MenuItem, onMenuKeys, reachableItems } from "./SessionToolbar";
import { useLanguage } from "../lib/language";

/** Where the menu opens: under the ⋯ button, or at the pointer of a right click. */
export interface RowMenuPlace {
  left: number;
  top: number;
  /** Where the menu ends when there is no room below and it opens upwards instead. */
  bottomIfAbove: number;
  /** The element focus returns to when Esc closes the menu. */
  returnFocus: HTMLElement | undefined;
  /** The button that opened it, whose own click closes it (a press on it is not "elsewhere"). */
  anchor?: HTMLElement;
}

/** The menu's width in CSS pixels (`.session-row-menu`), to keep it inside the window. */
const menuWidth = 220;
const windowMargin = 8;

/** The place under a button, right-aligned with it, kept inside the window. */
export function placeUnder(button: HTMLElement): RowMenuPlace {
  const box = button.getBoundingClientRect();
  return { left: Math.max(windowMargin, box.right - menuWidth), top: box.bottom + 4, bottomIfAbove: box.top - 4, returnFocus: button, anchor: button };
}

export const SessionRowMenu: Component<{
  session: Session;
  /** The menu's name for readers: whose actions these are. */
  label: string;
  place: RowMenuPlace;
  onClose: (returnFocus: boolean) => void;
  onPin: () => void;
  onSelect: () => void;
  onRename: () => void;
  onArchive: () => void;
  onRestore: () => void;
  onDelete: () => void;
}> = (props) => {
  const { t } = useLanguage();
  let menu: HTMLDivElement | undefined;
  const archived = () => props.session.time.archived !== undefined;
  // Each item closes the menu first, then acts: the action may move focus (rename, delete).
  const choose = (action: () => void) => {
    props.onClose(false);
    action();
  };
  const onPointerDown = (event: PointerEvent) => {
    const target = event.target as Node | null;
    if (menu?.contains(target) !== true && props.place.anchor?.contains(target) !== true) props.onClose(false);
  };
  onMount(() => {
    const bottomIfAbove = props.place.bottomIfAbove;
    // After the Portal has put the menu in the page. Opened by a right click: the same press must
    // not count as a click elsewhere.
    queueMicrotask(() => {
      document.addEventListener("pointerdown", onPointerDown, true);
      // Kept inside the window: a menu opened near the bottom opens upwards instead.
      if (menu !== undefined) {
        const box = menu.getBoundingClientRect();
        if (box.bottom > window.innerHeight - windowMargin) menu.style.top = `${String(Math.max(windowMargin, bottomIfAbove - box.height))}px`;
        if (box.right > window.innerWidth - windowMargin) menu.style.left = `${String(Math.max(windowMargin, window.innerWidth - windowMargin - box.width))}px`;
      }
      reachableItems(menu)[0]?.focus();
    });
  });
  onCleanup(() => { document.removeEventListener("pointerdown", onPointerDown, true); });
  const onKeyDown = (event: KeyboardEvent) => {
    // Esc is handled here: the sidebar's Esc (clear the selection) and the app's (stop a reply)
    // wait.
    if (onMenuKeys(event, menu, props.onClose)) event.stopPropagation();
  };
  return (
    <Portal>
      <div
        class="menu-items session-row-menu"
        role="menu"
        data-testid="session-row-menu-items"
        aria-label={props.label}
        ref={menu}
        style={{ left: `${String(props.place.left)}px`, top: `${String(props.place.top)}px` }}
        onKeyDown={onKeyDown}
      >
        <Show when={!archived()}>
          <MenuItem icon="pin" testId="menu-pin" writes disabled={false} onClick={() => { choose(props.onPin); }}>
            {props.session.pinned ? t("sessions.unpinSession") : t("sessions.pinSession")}
          </MenuItem>
        </Show>
        <MenuItem icon="check" testId="menu-select" writes disabled={false} onClick={() => { choose(props.onSelect); }}>
          {t("sessions.selectSessionItem")}
        </MenuItem>
        <MenuItem icon="pencil" testId="menu-rename" writes disabled={false} onClick={() => { choose(props.onRename); }}>
          {t("sessions.renameSession")}
        </MenuItem>
        <Show
          when={!archived()}
          fallback={
            <MenuItem icon="restore" testId="menu-restore" writes disabled={false} onClick={() => { choose(props.onRestore); }}>
              {t("sessions.restoreSession")}
            </MenuItem>
          }
        >
          <MenuItem icon="archive" testId="archive-row" writes disabled={false} onClick={() => { choose(props.onArchive); }}>
            {t("sessions.archiveSession")}
          </MenuItem>
        </Show>
        <MenuItem icon="trash" testId="delete-session" writes disabled={false} onClick={() => { choose(props.onDelete); }}>
          {t("sessions.deleteSession")}
        </MenuItem>
      </div>
    </Portal>
  );
};
