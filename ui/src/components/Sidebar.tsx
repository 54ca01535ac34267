// The left column: new session, search everything (Ctrl/Cmd+K opens the palette), a filter by
// title, and the sessions in sections — Pinned, Today, Yesterday, Previous 7 days, then by
// month (`session-groups.ts`) — paged from the backend and virtualised, so ten thousand
// sessions scroll like ten; at the bottom the app's own actions, Import and Settings (and
// "Dossier X.Y is ready" when an update is found, `UpdateBadge.tsx`). Rename inline, pin, archive, delete
// after an inline confirmation — from the row's ⋯ menu or a right click (`SessionRowMenu.tsx`),
// with Pin as the one quick button on wide rows; the rest of a row opens its session. Tick several
// (Select in the menu, or Ctrl/Cmd-click, Shift-click) to archive or delete them at once. The list
// is one Tab stop: ↑/↓, Home and End move between sessions, Enter opens, →/← reach the row's own
// buttons, Delete asks to delete and F2 renames.
import { createVirtualizer } from "@tanstack/solid-virtual";
import { type Component, createEffect, createMemo, createSignal, For, on, onCleanup, Show, untrack } from "solid-js";
import type { Session } from "../lib/bindings/Session";
import type { Chat } from "../lib/chat";

import { cycleTab, focusWhenPresent, rovingIndex } from "../lib/keyboard-focus";
import { useReadOnly } from "../lib/read-only";
import type { ReshapingWork } from "../lib/reshaping";
import { groupSessions, type SessionListItem } from "../lib/session-groups";
import { displayTitle, forkOf } from "../lib/session-title";
import { extend, noSelection, prune, type Selection, selectedInOrder, toggle } from "../lib/session-selection";
import { observeRectOr } from "../lib/virtual-list";
import { Icon } from "./Icon";
import { SessionBulkActions } from "./SessionBulkActions";
import { placeUnder, type RowMenuPlace, SessionRowMenu } from "./SessionRowMenu";
import { UpdateBadge } from "./UpdateBadge";
import type { AvailableUpdate } from "../lib/shell-bindings/AvailableUpdate";
import { useLanguage } from "../lib/language";

const rowHeight = 38;
const headingHeight = 30;

export interface SidebarProps {
  chat: Chat;
  /** Set by the Ctrl/Cmd+K shortcut so the app can focus the search field. */
  searchRef?: (element: HTMLInputElement) => void;
  /** Opens the search palette (the button says Ctrl/Cmd+K does the same). */
  onOpenSearch?: () => void;
  /** Opens the settings view (also Ctrl/Cmd+,). */
  onOpenSettings?: () => void;
  /** Imports a session from a file (an app action, not the open session's). */
  onImport: () => void;
  /** What a fork, export or import under way is (import waits for any of them). */
  working: ReshapingWork | undefined;
  /** Archives and says so with Undo; resolves with the ids that could not be archived. */
  onArchive: (sessionIds: readonly string[]) => Promise<string[]>;
  /** An update found and not dismissed: shown among the app's actions, opening Settings → Updates. */
  updateReady?: { update: AvailableUpdate; open: () => void; dismiss: () => void } | undefined;
}

export const Sidebar: Component<SidebarProps> = (props) => {
  const { t, locale } = useLanguage();
  const [search, setSearch] = createSignal("");
  const [results, setResults] = createSignal<Session[] | undefined>();
  const [archived, setArchived] = createSignal<Session[] | undefined>();
  const toggleArchived = () => {
    if (archived() !== undefined) setArchived(undefined);
    else void props.chat.archivedSessions().then(setArchived);
  };
  let scroller: HTMLDivElement | undefined;
  const [selection, setSelection] = createSignal<Selection>(noSelection);
  const [refreshes, setRefreshes] = createSignal(0);
  /** After an action: the filter's and the archived view's lists are copies, so ask again. */
  const refresh = () => {
    if (archived() !== undefined) void props.chat.archivedSessions().then(setArchived);
    if (search().trim() !== "") setRefreshes((count) => count + 1);
  };

  createEffect(
    on([search, refreshes], ([text]) => {
      const query = text.trim();
      if (query === "") {
        setResults(undefined);
        return;
      }
      const chat = props.chat;
      const timer = setTimeout(() => {
        void chat.searchSessions(query).then((found) => {
          // Only the latest search may fill the list; an older, slower answer is dropped.
          if (untrack(search).trim() === query) setResults(found);
        });
      }, 150);
      onCleanup(() => {
        clearTimeout(timer);
      });
    }),
  );

  const filtered = () => {
    const found = results();
    // The live copy, so a pin or rename shows at once.
    return found === undefined ? undefined : found.map((session) => props.chat.state.sessions[session.id] ?? session);
  };
  const shown = () => archived() ?? filtered() ?? props.chat.sessions();
  /** Section headings and sessions, as drawn; the keyboard walks the sessions in this order. */
  const items = createMemo<SessionListItem[]>(() => groupSessions(shown(), new Date(), t, locale()));
  const order = createMemo(() => items().flatMap((item) => (item.kind === "session" ? [item.session.id] : [])));
  const itemIndexOf = (id: string) => items().findIndex((item) => item.kind === "session" && item.session.id === id);
  createEffect(on(order, (ids) => setSelection((current) => prune(current, ids))));
  const select = (id: string, how: "toggle" | "extend") => {
    setSelection((current) => (how === "extend" && !current.ids.has(id) ? extend(current, order(), id) : toggle(current, id)));
  };
  // The one session whose button Tab stops at: the last one moved to, else the open one, else the first.
  const [roving, setRoving] = createSignal<string | undefined>();
  const tabStop = () => {
    const ids = order();
    const candidates = [roving(), props.chat.selectedId()];
    return candidates.find((id) => id !== undefined && ids.includes(id)) ?? ids[0];
  };
  const onListKeyDown = (event: KeyboardEvent) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const row = (event.target as HTMLElement).closest<HTMLElement>("[data-session-id]");
    const id = row?.dataset.sessionId;
    if (row === null || id === undefined || (event.target as HTMLElement).classList.contains("rename-input")) return;
    const ids = order();
    const next = rovingIndex(event.key, ids.indexOf(id), ids.length);
    if (next === undefined) return;
    event.preventDefault();
    const nextId = ids[next];
    if (nextId === undefined) return;
    setRoving(nextId);
    virtualizer.scrollToIndex(itemIndexOf(nextId));
    focusWhenPresent(() =>
      Array.from(scroller?.querySelectorAll<HTMLElement>("[data-session-id]") ?? [])
        .find((element) => element.dataset.sessionId === nextId)
        ?.querySelector<HTMLElement>(".session-open"),
    );
  };
  const virtualizer = createVirtualizer({
    get count() {
      return items().length;
    },
    getScrollElement: () => scroller ?? null,
    estimateSize: (index) => (items()[index]?.kind === "heading" ? headingHeight : rowHeight),
    getItemKey: (index) => {
      const item = items()[index];
      return item === undefined ? index : item.kind === "heading" ? `heading:${item.key}` : item.session.id;
    },
    overscan: 12,
    initialRect: { width: 260, height: 600 },
    observeElementRect: observeRectOr({ width: 260, height: 600 }),
  });

  // The toolbar's one Tab stop: the update notice while there is one, unless the person moved on.
  const [footerStop, setFooterStop] = createSignal<"update" | "import" | "settings">("update");
  const footerTabStop = () => {
    const wanted = footerStop();
    if (wanted === "update" && props.updateReady !== undefined) return "update";
    if (wanted === "settings" || props.working !== undefined) return "settings";
    return "import";
  };
  const onFooterKeyDown = (event: KeyboardEvent) => {
    if (!["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"].includes(event.key)) return;
    const buttons = Array.from((event.currentTarget as HTMLElement).querySelectorAll<HTMLButtonElement>("button:not(:disabled)"));
    const at = buttons.indexOf(event.target as HTMLButtonElement);
    const key = event.key === "ArrowRight" ? "ArrowDown" : event.key === "ArrowLeft" ? "ArrowUp" : event.key;
    const next = rovingIndex(key, at, buttons.length);
    if (next === undefined) return;
    event.preventDefault();
    buttons[next]?.focus();
  };

  // The open session is in view in the list: a new one (at the top) after scrolling down, say.
  createEffect(
    on(
      () => props.chat.selectedId(),
      (id) => {
        if (id === undefined) return;
        const index = untrack(() => itemIndexOf(id));
        if (index >= 0) virtualizer.scrollToIndex(index, { align: "auto" });
      },
      { defer: true },
    ),
  );

  const onScroll = () => {
    const element = scroller;
    if (element === undefined || results() !== undefined) return;
    const nearEnd = element.scrollTop + element.clientHeight > element.scrollHeight - rowHeight * 10;
    if (nearEnd && props.chat.hasMoreSessions() && !props.chat.sessionsLoading()) void props.chat.loadMoreSessions();
  };

  return (
    <aside
      id="sidebar"
      class="sidebar"
      classList={{ "sidebar--selecting": selection().ids.size > 0 }}
      aria-labelledby="sessions-title"
      onKeyDown={(event) => {
        if (event.key === "Escape" && selection().ids.size > 0) {
          event.preventDefault();
          setSelection(noSelection);
        }
      }}
    >
      <h1 class="brand">
        <img class="brand-mark" src="/favicon.png" alt="" width="22" height="22" />
        {t("common.appName")}
      </h1>
      {/* Attached to a Dossier server: say so plainly, so nobody mistakes its sessions for this computer's. */}
      <Show when={props.chat.backend.server}>
        {(url) => (
          <p class="ledger-in-use" data-testid="ledger-in-use" data-url={url()} title={url()}>
            {t("remote.sidebar", { host: new URL(url()).host })}
          </p>
        )}
      </Show>
      <button type="button" class="new-session" data-testid="new-session" data-writes onClick={() => void props.chat.newSession()}>
        <Icon name="plus" /> {t("sessions.newSession")}
      </button>
      <Show when={props.onOpenSearch}>
        {(open) => (
          <button type="button" class="search-all" data-testid="open-search" title={t("palette.searchAllHint")} onClick={() => { open()(); }}>
            <Icon name="search" /> <span class="search-all-label">{t("palette.searchAll")}</span>
            <kbd class="shortcut">{t("palette.searchAllShortcut")}</kbd>
          </button>
        )}
      </Show>
      <label class="visually-hidden" for="session-search">
        {t("sessions.searchSessions")}
      </label>
      <input
        id="session-search"
        ref={(element) => props.searchRef?.(element)}
        class="session-search"
        type="search"
        placeholder={t("sessions.searchPlaceholder")}
        value={search()}
        onInput={(event) => setSearch(event.currentTarget.value)}
      />
      <div class="sidebar-heading">
        <h2 id="sessions-title" class="sidebar-title">
          {archived() === undefined ? t("sessions.title") : t("sessions.archivedTitle")}
        </h2>
        <button type="button" class="link-button" aria-pressed={archived() !== undefined} onClick={toggleArchived}>
          {archived() === undefined ? t("sessions.showArchived") : t("sessions.showCurrent")}
        </button>
      </div>
      <Show when={selection().ids.size > 0}>
        <SessionBulkActions
          archive={props.onArchive}
          chat={props.chat}
          sessionIds={selectedInOrder(selection(), order())}
          archivedView={archived() !== undefined}
          onDone={() => {
            setSelection(noSelection);
            refresh();
          }}
          onClear={() => setSelection(noSelection)}
        />
      </Show>
      <Show when={props.chat.sessionsLoaded() && shown().length === 0}>
        <div class="empty-state empty-state--compact">
          <Show
            when={results() === undefined && archived() === undefined}
            fallback={<p class="empty-state-body">{t("sessions.searchEmpty")}</p>}
          >
            <p class="empty-state-title">{t("sessions.emptyTitle")}</p>
            <p class="empty-state-body">{t("sessions.emptyBody")}</p>
          </Show>
        </div>
      </Show>
      <div class="session-scroller" ref={scroller} onScroll={onScroll} data-testid="session-list">
        <p id="session-list-keys" class="visually-hidden">
          {t("sessions.sessionListKeys")}
        </p>
        <ul
          class="session-list"
          aria-labelledby="sessions-title"
          style={{ height: `${String(virtualizer.getTotalSize())}px` }}
          onKeyDown={onListKeyDown}
          onFocusIn={(event) => {
            const id = (event.target as HTMLElement).closest<HTMLElement>("[data-session-id]")?.dataset.sessionId;
            if (id !== undefined) setRoving(id);
          }}
        >
          <For each={virtualizer.getVirtualItems()}>
            {(row) => (
              <Show when={items()[row.index]} keyed>
                {(item) =>
                  item.kind === "heading" ? (
                    <li class="session-row-slot session-group" style={{ transform: `translateY(${String(row.start)}px)`, height: `${String(headingHeight)}px` }}>
                      <h3 class="session-group-title" data-testid="session-group">
                        {item.label}
                      </h3>
                    </li>
                  ) : (
                    <li class="session-row-slot" style={{ transform: `translateY(${String(row.start)}px)`, height: `${String(rowHeight)}px` }}>
                      <SessionRow
                        chat={props.chat}
                        session={props.chat.state.sessions[item.session.id] ?? item.session}
                        onRestored={() => setArchived((list) => list?.filter((entry) => entry.id !== item.session.id))}
                        onArchive={() => void props.onArchive([item.session.id]).then(refresh)}
                        checked={selection().ids.has(item.session.id)}
                        tabStop={tabStop() === item.session.id}
                        onSelect={(how) => { select(item.session.id, how); }}
                        onChanged={refresh}
                      />
                    </li>
                  )
                }
              </Show>
            )}
          </For>
        </ul>
      </div>
      {/* The app's own actions: one Tab stop, ←/→ between them (a toolbar). */}
      <div class="sidebar-footer" role="toolbar" aria-label={t("app.actions")} onKeyDown={onFooterKeyDown}>
        <Show when={props.updateReady}>
          {(ready) => (
            <UpdateBadge
              update={ready().update}
              tabStop={footerTabStop() === "update"}
              onFocus={() => setFooterStop("update")}
              onOpen={() => { ready().open(); }}
              onDismiss={() => { ready().dismiss(); }}
            />
          )}
        </Show>
        <button
          type="button"
          class="sidebar-settings"
          data-testid="import"
          data-writes
          title={t("sessions.importHint")}
          disabled={props.working !== undefined}
          tabIndex={footerTabStop() === "import" ? 0 : -1}
          onFocus={() => setFooterStop("import")}
          onClick={() => { props.onImport(); }}
        >
          <Icon name="import" /> {props.working === "import" ? t("sessions.importing") : t("sessions.importSession")}
        </button>
        <Show when={props.onOpenSettings}>
          {(open) => (
            <button
              type="button"
              class="sidebar-settings"
              data-testid="open-settings"
              title={t("settings.open")}
              tabIndex={footerTabStop() === "settings" ? 0 : -1}
              onFocus={() => setFooterStop("settings")}
              onClick={() => { open()(); }}
            >
              <Icon name="settings" /> {t("settings.title")}
            </button>
          )}
        </Show>
      </div>
    </aside>
  );
};

const SessionRow: Component<{
  chat: Chat;
  session: Session;
  onRestored: () => void;
  onArchive: () => void;
  checked: boolean;
  /** The list's one Tab stop is this row's button. */
  tabStop: boolean;
  onSelect: (how: "toggle" | "extend") => void;
  onChanged: () => void;
}> = (props) => {
  const { t, locale } = useLanguage();
  const [mode, setMode] = createSignal<"view" | "rename" | "confirm-delete">("view");
  const [menuPlace, setMenuPlace] = createSignal<RowMenuPlace>();
  const readOnly = useReadOnly();
  /** Rename and delete write: a read-only ledger never opens them (F2, Delete, a double click). */
  const askTo = (next: "rename" | "confirm-delete") => {
    if (!readOnly()) setMode(next);
  };
  const selected = () => props.chat.selectedId() === props.session.id;
  const title = () => displayTitle(props.session.title, t, locale());
  /** A fork shows its source's title, a fork mark and its number, so a cut-off title still tells forks apart. */
  const fork = () => forkOf(title());
  let row: HTMLDivElement | undefined;
  let openButton: HTMLButtonElement | undefined;
  let menuButton: HTMLButtonElement | undefined;
  // Leaving rename or the delete question puts focus back on the row, not on the page's body.
  createEffect(
    on(mode, (current, previous) => {
      if (current !== "view" || previous === undefined || previous === "view") return;
      queueMicrotask(() => {
        const active = document.activeElement;
        if (active === null || active === document.body || row?.contains(active) === true) openButton?.focus();
      });
    }),
  );
  // The delete question is a small in-place dialog: a click anywhere else means "keep it".
  createEffect(
    on(mode, (current) => {
      if (current !== "confirm-delete") return;
      const onPointerDown = (event: PointerEvent) => {
        if (row?.contains(event.target as Node | null) !== true) setMode("view");
      };
      document.addEventListener("pointerdown", onPointerDown, true);
      onCleanup(() => { document.removeEventListener("pointerdown", onPointerDown, true); });
    }),
  );
  const closeMenu = (returnFocus: boolean) => {
    const place = menuPlace();
    setMenuPlace(undefined);
    if (returnFocus) (place?.returnFocus ?? openButton)?.focus();
  };
  /** A right click (or the context-menu key) anywhere on the row opens its menu there. */
  const onContextMenu = (event: MouseEvent) => {
    // Everything in the menu writes: a read-only ledger keeps the browser's own menu.
    if (readOnly() || mode() !== "view") return;
    event.preventDefault();
    // The context-menu key has no pointer position: the menu opens under the row.
    const fromKeyboard = event.clientX === 0 && event.clientY === 0;
    const box = row?.getBoundingClientRect();
    setMenuPlace(
      fromKeyboard && box !== undefined
        ? { left: box.left + 8, top: box.bottom + 2, bottomIfAbove: box.top - 2, returnFocus: openButton }
        : { left: event.clientX, top: event.clientY, bottomIfAbove: event.clientY, returnFocus: openButton },
    );
  };
  /** →/← step through the row's controls that are shown; Delete asks, F2 renames. */
  const onRowKeyDown = (event: KeyboardEvent) => {
    if (mode() !== "view" || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
      const controls = Array.from(row?.querySelectorAll<HTMLElement>(".session-check, .session-open, .session-actions button") ?? []).filter(
        (control) => getComputedStyle(control).display !== "none",
      );
      const at = controls.indexOf(event.target as HTMLElement);
      const next = controls[at + (event.key === "ArrowRight" ? 1 : -1)];
      event.preventDefault();
      next?.focus();
    } else if (event.key === "Delete") {
      event.preventDefault();
      askTo("confirm-delete");
    } else if (event.key === "F2") {
      event.preventDefault();
      askTo("rename");
    }
  };

  const commitRename = (input: HTMLInputElement) => {
    const title = input.value.trim();
    setMode("view");
    if (title !== "" && title !== props.session.title) void props.chat.renameSession(props.session.id, title);
  };
  const pin = () => void props.chat.pinSession(props.session.id, !props.session.pinned).then(props.onChanged);

  return (
    <div
      class="session-row"
      classList={{ "session-row--selected": selected(), "session-row--checked": props.checked, "session-row--menu-open": menuPlace() !== undefined }}
      data-testid="session-row"
      data-session-id={props.session.id}
      ref={row}
      onKeyDown={onRowKeyDown}
      onContextMenu={onContextMenu}
    >
      <Show when={mode() === "view"}>
        <input
          type="checkbox"
          class="session-check"
          data-testid="session-check"
          data-writes
          checked={props.checked}
          tabIndex={-1}
          aria-label={t("sessions.selectSession", { title: title() })}
          onClick={(event) => {
            props.onSelect(event.shiftKey ? "extend" : "toggle");
          }}
        />
        <button
          type="button"
          class="session-open"
          ref={openButton}
          tabIndex={props.tabStop ? 0 : -1}
          aria-describedby="session-list-keys"
          aria-current={selected() ? "true" : undefined}
          title={fork() === undefined ? title() : t("sessions.forkRowHint", { title: fork()?.source ?? "", number: fork()?.number ?? 0 })}
          onClick={(event) => {
            if (event.ctrlKey || event.metaKey) props.onSelect("toggle");
            else if (event.shiftKey) props.onSelect("extend");
            else void props.chat.openSession(props.session.id);
          }}
          onDblClick={() => { askTo("rename"); }}
        >
          <Show when={fork()} fallback={<span class="session-title">{title()}</span>}>
            {(forked) => (
              <>
                <span class="session-fork-mark" data-testid="session-fork-mark">
                  <Icon name="fork" size={13} />
                </span>
                <span class="session-title">{forked().source}</span>
                {/* Read whole by a screen reader ("… (fork #2)"); seen as a short "#2" that is never cut. */}
                <span class="session-fork-number">
                  <span class="visually-hidden"> (fork </span>#{forked().number}
                  <span class="visually-hidden">)</span>
                </span>
              </>
            )}
          </Show>
        </button>
        <div class="session-actions">
          {/* The one quick action, on wide rows only (CSS): pinning is what people do most from the list. */}
          <Show when={props.session.time.archived === undefined}>
            <button
              type="button"
              class="icon-button session-quick"
              tabIndex={-1}
              classList={{ "icon-button--on": props.session.pinned }}
              title={props.session.pinned ? t("sessions.unpinSession") : t("sessions.pinSession")}
              aria-label={props.session.pinned ? t("sessions.unpinSession") : t("sessions.pinSession")}
              aria-pressed={props.session.pinned}
              data-testid="pin-session"
              data-writes
              onClick={pin}
            >
              <Icon name="pin" />
            </button>
          </Show>
          <button
            type="button"
            class="icon-button session-more"
            tabIndex={-1}
            ref={menuButton}
            data-testid="session-row-menu"
            data-writes
            aria-haspopup="menu"
            aria-expanded={menuPlace() !== undefined}
            title={t("common.moreActions")}
            aria-label={t("sessions.sessionRowActionsFor", { title: title() })}
            onClick={() => {
              if (menuPlace() !== undefined) closeMenu(false);
              else if (menuButton !== undefined) setMenuPlace(placeUnder(menuButton));
            }}
            onKeyDown={(event) => {
              if ((event.key === "ArrowDown" || event.key === "ArrowUp") && menuButton !== undefined) {
                event.preventDefault();
                setMenuPlace(placeUnder(menuButton));
              }
            }}
          >
            <Icon name="more" />
          </button>
        </div>
        <Show when={menuPlace()}>
          {(place) => (
            <SessionRowMenu
              session={props.session}
              label={t("sessions.sessionRowActionsFor", { title: title() })}
              place={place()}
              onClose={closeMenu}
              onPin={pin}
              onSelect={() => { props.onSelect("toggle"); }}
              onRename={() => { askTo("rename"); }}
              onArchive={() => { props.onArchive(); }}
              onRestore={() => void props.chat.restoreSession(props.session.id).then(props.onRestored)}
              onDelete={() => { askTo("confirm-delete"); }}
            />
          )}
        </Show>
      </Show>
      <Show when={mode() === "rename"}>
        <input
          class="rename-input"
          aria-label={t("sessions.renameSessionField")}
          value={props.session.title}
          ref={(element) => { queueMicrotask(() => { element.focus(); element.select(); }); }}
          onKeyDown={(event) => {
            if (event.key === "Enter") commitRename(event.currentTarget);
            if (event.key === "Escape") setMode("view");
          }}
          onBlur={(event) => { commitRename(event.currentTarget); }}
        />
      </Show>
      <Show when={mode() === "confirm-delete"}>
        <div
          class="confirm"
          role="alertdialog"
          aria-label={t("sessions.deleteConfirm", { title: title() })}
          onKeyDown={(event) => {
            if (event.key === "Escape") {
              event.preventDefault();
              setMode("view");
            }
            cycleTab(event, event.currentTarget);
          }}
        >
          <p class="confirm-text" data-testid="delete-question">
            {t("sessions.deleteConfirm", { title: title() })}
          </p>
          <button type="button" class="danger-button" onClick={() => void props.chat.deleteSession(props.session.id).then(props.onChanged)}>
            {t("sessions.deleteConfirmYes")}
          </button>
          <button type="button" class="plain-button" ref={(element) => { queueMicrotask(() => { element.focus(); }); }} onClick={() => setMode("view")}>
            {t("sessions.deleteConfirmNo")}
          </button>
        </div>
      </Show>
    </div>
  );
};
