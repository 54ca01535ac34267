// The open session's actions in the header. Undo, Redo and Find are icon buttons (labelled on
// hover and for readers); the rest — fork, export as Markdown or JSON, archive — sit in the
// "More actions" menu. In a narrow window Undo, Redo and Find move into the menu too (CSS
// container query on the main column), so the header never wraps. The menu is a menu button:
// Enter, Space or ↓ opens it on its first item, ↑/↓/Home/End move, Esc closes it onto its button.
// Undo and redo are also Ctrl/Cmd+Z and Ctrl/Cmd+Shift+Z (wired in App.tsx).
import { type Component, createSignal, type JSX, onCleanup, Show } from "solid-js";
import type { Chat } from "../lib/chat";

import { rovingIndex } from "../lib/keyboard-focus";
import type { Reshaping } from "../lib/reshaping";
import type { ExportFormat } from "../lib/shell-bindings/ExportFormat";
import { Icon, type IconName } from "./Icon";
import { useLanguage } from "../lib/language";

export interface SessionToolbarProps {
  chat: Chat;
  reshaping: Reshaping;
  sessionId: string | undefined;
  /** Opens find in the session (absent while the find bar is open). */
  onFind?: () => void;
  onArchive: (sessionId: string) => void;
}

/** The menu's items that can take focus now: shown (not a wide-window duplicate) and enabled. */
export function reachableItems(menu: HTMLElement | undefined): HTMLElement[] {
  return Array.from(menu?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? []).filter(
    (item) => !(item as HTMLButtonElement).disabled && getComputedStyle(item).display !== "none",
  );
}

/**
 * A menu's keys: Esc closes it and gives focus back to its button, Tab closes it and lets focus
 * move on, the arrows, Home and End walk its reachable items. Returns whether the key was Esc,
 * for a menu that must also keep Esc from handlers further out.
 */
export function onMenuKeys(event: KeyboardEvent, menu: HTMLElement | undefined, close: (returnFocus: boolean) => void): boolean {
  if (event.key === "Escape") {
    event.preventDefault();
    close(true);
    return true;
  }
  if (event.key === "Tab") {
    close(false);
    return false;
  }
  const items = reachableItems(menu);
  const next = rovingIndex(event.key, items.indexOf(event.target as HTMLElement), items.length);
  if (next === undefined) return false;
  event.preventDefault();
  items[next]?.focus();
  return false;
}

export const SessionToolbar: Component<SessionToolbarProps> = (props) => {
  const { t } = useLanguage();
  const [menuOpen, setMenuOpen] = createSignal(false);
  let menuButton: HTMLButtonElement | undefined;
  let menu: HTMLDivElement | undefined;
  const busy = () => props.sessionId !== undefined && props.chat.isBusy(props.sessionId);
  /** A fork, export or import under way: the header says so and the actions wait for it. */
  const working = () => props.reshaping.working();
  const closeMenu = (focusButton: boolean) => {
    setMenuOpen(false);
    if (focusButton) menuButton?.focus();
  };
  const openMenu = (focus: "first" | "last") => {
    setMenuOpen(true);
    queueMicrotask(() => {
      const items = reachableItems(menu);
      (focus === "first" ? items[0] : items.at(-1))?.focus();
    });
  };
  // A click anywhere else closes the menu.
  const onDocumentPointer = (event: PointerEvent) => {
    const target = event.target as Node | null;
    if (menuOpen() && target !== null && menu?.contains(target) !== true && menuButton?.contains(target) !== true) closeMenu(false);
  };
  document.addEventListener("pointerdown", onDocumentPointer);
  onCleanup(() => { document.removeEventListener("pointerdown", onDocumentPointer); });

  const onMenuKeyDown = (event: KeyboardEvent) => {
    onMenuKeys(event, menu, closeMenu);
  };
  const exportAs = (id: string, format: ExportFormat) => {
    closeMenu(true);
    void props.reshaping.exportSession(id, format);
  };
  const workingLabel = () => {
    const now = working();
    return now === "fork" ? t("toolbar.forking") : now === "export" ? t("sessions.exporting") : now === "import" ? t("sessions.importing") : undefined;
  };

  return (
    <div class="toolbar" role="toolbar" aria-label={t("toolbar.sessionActions")} aria-busy={working() !== undefined}>
      <Show when={workingLabel()}>
        {(label) => (
          <span class="toolbar-working" data-testid="toolbar-working">
            {label()}
          </span>
        )}
      </Show>
      <Show when={props.sessionId}>
        {(id) => (
          <>
            <ToolbarButton
              icon="undo"
              testId="undo"
              writes
              label={t("toolbar.undo")}
              hint={busy() ? t("common.busyRefused") : t("toolbar.undoHint")}
              disabled={!props.reshaping.canUndo(id())}
              onClick={() => void props.reshaping.undo(id())}
            />
            <ToolbarButton
              icon="redo"
              testId="redo"
              writes
              label={t("toolbar.redo")}
              hint={t("toolbar.redoHint")}
              disabled={!props.reshaping.canRedo(id())}
              onClick={() => void props.reshaping.redo(id())}
            />
            <Show when={props.onFind}>
              {(find) => <ToolbarButton icon="search" testId="open-find" label={t("find.button")} hint={t("find.placeholder")} disabled={false} onClick={find()} />}
            </Show>
            <div class="menu">
              <button
                type="button"
                class="icon-button toolbar-button"
                ref={menuButton}
                data-testid="session-menu"
                aria-haspopup="menu"
                aria-expanded={menuOpen()}
                aria-controls={menuOpen() ? "session-menu" : undefined}
                aria-label={t("common.moreActions")}
                title={t("common.moreActions")}
                onClick={() => { if (menuOpen()) closeMenu(false); else openMenu("first"); }}
                onKeyDown={(event) => {
                  if (event.key === "ArrowDown" || event.key === "ArrowUp") {
                    event.preventDefault();
                    openMenu(event.key === "ArrowDown" ? "first" : "last");
                  }
                }}
              >
                <Icon name="more" size={16} />
              </button>
              <Show when={menuOpen()}>
                <div class="menu-items" id="session-menu" role="menu" aria-label={t("toolbar.sessionActions")} ref={menu} onKeyDown={onMenuKeyDown}>
                  {/* Shown only when the header is too narrow for their own buttons. */}
                  <MenuItem icon="undo" testId="menu-undo" narrowOnly writes disabled={!props.reshaping.canUndo(id())} onClick={() => { closeMenu(true); void props.reshaping.undo(id()); }}>
                    {t("toolbar.undo")}
                  </MenuItem>
                  <MenuItem icon="redo" testId="menu-redo" narrowOnly writes disabled={!props.reshaping.canRedo(id())} onClick={() => { closeMenu(true); void props.reshaping.redo(id()); }}>
                    {t("toolbar.redo")}
                  </MenuItem>
                  <Show when={props.onFind}>
                    {(find) => (
                      <MenuItem icon="search" testId="menu-find" narrowOnly disabled={false} onClick={() => { closeMenu(false); find()(); }}>
                        {t("find.button")}
                      </MenuItem>
                    )}
                  </Show>
                  <MenuItem
                    icon="fork"
                    testId="fork-session"
                    writes
                    disabled={busy() || working() !== undefined || !props.reshaping.hasContent(id())}
                    hint={props.reshaping.hasContent(id()) ? t("toolbar.forkSessionHint") : t("toolbar.emptySessionHint")}
                    onClick={() => { closeMenu(true); void props.reshaping.fork(id(), undefined); }}
                  >
                    {t("toolbar.forkSession")}
                  </MenuItem>
                  <MenuItem
                    icon="import"
                    testId="export-markdown"
                    disabled={working() !== undefined || !props.reshaping.hasContent(id())}
                    hint={props.reshaping.hasContent(id()) ? undefined : t("toolbar.emptySessionHint")}
                    onClick={() => { exportAs(id(), "markdown"); }}
                  >
                    {t("toolbar.menuExportMarkdown")}
                  </MenuItem>
                  <MenuItem
                    icon="import"
                    testId="export-json"
                    disabled={working() !== undefined || !props.reshaping.hasContent(id())}
                    hint={props.reshaping.hasContent(id()) ? undefined : t("toolbar.emptySessionHint")}
                    onClick={() => { exportAs(id(), "json"); }}
                  >
                    {t("toolbar.menuExportJson")}
                  </MenuItem>
                  <MenuItem icon="archive" testId="archive-session" writes disabled={busy()} onClick={() => { closeMenu(false); props.onArchive(id()); }}>
                    {t("sessions.archiveSession")}
                  </MenuItem>
                </div>
              </Show>
            </div>
          </>
        )}
      </Show>
    </div>
  );
};

/** `writes`: the control changes the ledger, so a read-only one leaves it out (`data-writes`). */
const ToolbarButton: Component<{ icon: IconName; testId: string; label: string; hint: string; disabled: boolean; writes?: boolean; onClick: () => void }> = (props) => (
  <button
    type="button"
    class="icon-button toolbar-button toolbar-wide"
    data-testid={props.testId}
    data-writes={props.writes === true ? "" : undefined}
    aria-label={props.label}
    title={props.hint}
    disabled={props.disabled}
    onClick={() => { props.onClick(); }}
  >
    <Icon name={props.icon} size={16} />
  </button>
);

export const MenuItem: Component<{ icon: IconName; testId: string; disabled: boolean; hint?: string | undefined; narrowOnly?: boolean; writes?: boolean; onClick: () => void; children: JSX.Element }> = (props) => (
  <button
    type="button"
    role="menuitem"
    tabIndex={-1}
    class="menu-item"
    classList={{ "menu-item--narrow": props.narrowOnly === true }}
    data-testid={props.testId}
    data-writes={props.writes === true ? "" : undefined}
    disabled={props.disabled}
    title={props.hint}
    onClick={() => { props.onClick(); }}
  >
    <Icon name={props.icon} /> <span>{props.children}</span>
  </button>
);
