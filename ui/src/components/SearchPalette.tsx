// The Ctrl/Cmd+K palette: search every session's titles, messages, reasoning and attachment
// names as you type; ↑/↓ move, Enter opens the session at the message the excerpt comes from,
// Esc closes. Archived sessions are searched when asked.
import { type Component, createEffect, createMemo, createSignal, For, on, onCleanup, onMount, Show } from "solid-js";
import type { SearchResult } from "../lib/bindings/SearchResult";
import type { Chat } from "../lib/chat";

import { cycleTab } from "../lib/keyboard-focus";
import { createLiveSearch } from "../lib/live-search";
import { destination, type PaletteItem, paletteItems, stepIndex } from "../lib/search-palette";
import { displayTitle, plainExcerptPieces } from "../lib/session-title";
import { ExcerptText, fieldLabel } from "./ExcerptText";
import { useLanguage } from "../lib/language";

/** How many sessions one answer lists; the palette is for jumping, not browsing. */
export const paletteResultLimit = 20;

export const SearchPalette: Component<{ chat: Chat; onClose: () => void; onChosen?: () => void }> = (props) => {
  const { t, locale } = useLanguage();
  const [includeArchived, setIncludeArchived] = createSignal(false);
  const [active, setActive] = createSignal(-1);
  // eslint-disable-next-line solid/reactivity -- the chat is fixed for the app's lifetime
  const chat = props.chat;
  const search = createLiveSearch<SearchResult[]>((text) =>
    chat.search({ text, limit: paletteResultLimit, include_archived: includeArchived() }),
  );
  // Closing without a choice gives focus back; a choice moves on to the conversation instead.
  let previousFocus = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
  let field: HTMLInputElement | undefined;
  let list: HTMLUListElement | undefined;

  // While a new answer is on its way the last one stays, so the list does not flicker.
  const items = createMemo<PaletteItem[]>((previous) => {
    const state = search.state();
    if (state.status === "done") return paletteItems(state.results);
    return state.status === "loading" ? previous : [];
  }, []);
  createEffect(on(items, (current) => setActive(current.length > 0 ? 0 : -1)));
  createEffect(
    on(active, (index) => {
      const option = list?.querySelector<HTMLElement>(`[data-index="${String(index)}"]`);
      // jsdom has no layout and no scrollIntoView.
      if (option !== undefined && option !== null && typeof option.scrollIntoView === "function") option.scrollIntoView({ block: "nearest" });
    }),
  );

  onMount(() => {
    field?.focus();
  });
  onCleanup(() => {
    search.dispose();
    previousFocus?.focus();
  });

  const choose = (item: PaletteItem | undefined) => {
    if (item === undefined) return;
    const { sessionId, messageId } = destination(item);
    previousFocus = undefined;
    props.onClose();
    chat.rememberSession(item.session);
    if (messageId === undefined) void chat.openSession(sessionId);
    else void chat.revealMessage(sessionId, messageId, "jump");
    props.onChosen?.();
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      setActive((index) => stepIndex(index, event.key === "ArrowDown" ? 1 : -1, items().length));
    } else if (event.key === "Enter" && event.target === field) {
      event.preventDefault();
      choose(items()[active()]);
    } else if (event.key === "Escape") {
      event.preventDefault();
      props.onClose();
    } else if (event.currentTarget instanceof HTMLElement) {
      // Modal: Tab cycles between the field and the archived switch.
      cycleTab(event, event.currentTarget);
    }
  };

  const optionId = (index: number) => `palette-option-${String(index)}`;
  const state = search.state;

  return (
    <div class="palette-backdrop" onClick={() => { props.onClose(); }}>
      <div
        class="palette"
        role="dialog"
        aria-modal="true"
        aria-label={t("palette.title")}
        data-testid="search-palette"
        onClick={(event) => { event.stopPropagation(); }}
        onKeyDown={onKeyDown}
      >
        <div class="palette-header">
          <input
            ref={field}
            class="palette-input"
            type="text"
            role="combobox"
            aria-expanded={items().length > 0}
            aria-controls="palette-results"
            aria-autocomplete="list"
            aria-activedescendant={active() >= 0 ? optionId(active()) : undefined}
            aria-label={t("palette.title")}
            placeholder={t("palette.placeholder")}
            data-testid="palette-input"
            value={search.query()}
            onInput={(event) => { search.setQuery(event.currentTarget.value); }}
          />
          <label class="palette-toggle">
            <input
              type="checkbox"
              data-testid="palette-archived"
              checked={includeArchived()}
              onChange={(event) => {
                setIncludeArchived(event.currentTarget.checked);
                search.refresh();
              }}
            />
            {t("palette.includeArchived")}
          </label>
        </div>
        <ul id="palette-results" ref={list} class="palette-results" role="listbox" aria-label={t("palette.title")}>
          <For each={items()}>
            {(item, index) => (
              <li
                id={optionId(index())}
                class="palette-result"
                classList={{ "palette-result--first": item.first }}
                role="option"
                aria-selected={active() === index()}
                data-index={index()}
                data-testid="palette-result"
                data-session-id={item.session.id}
                data-message-id={item.excerpt.messageID ?? ""}
                onMouseMove={() => setActive(index())}
                onClick={() => { choose(item); }}
              >
                <Show when={item.first}>
                  <span class="palette-session">
                    <span class="palette-session-title">{displayTitle(item.session.title, t, locale())}</span>
                    <Show when={item.session.time.archived !== undefined}>
                      <span class="palette-badge">{t("palette.archived")}</span>
                    </Show>
                  </span>
                </Show>
                <span class="palette-excerpt">
                  <span class="palette-field">{fieldLabel(t, item.excerpt.field)}</span>
                  <span class="palette-excerpt-text" data-testid="palette-excerpt">
                    <ExcerptText pieces={plainExcerptPieces(item.excerpt.field, item.excerpt.pieces)} />
                  </span>
                </span>
              </li>
            )}
          </For>
        </ul>
        <Show when={items().length === 0}>
          <p class="palette-status" role="status" data-testid="palette-status">
            {(() => {
              const current = state();
              switch (current.status) {
                case "idle":
                  return t("palette.hint");
                case "loading":
                  return t("palette.searching");
                case "done":
                  return t("palette.empty", { query: search.query().trim() });
                case "error":
                  return t("palette.error", { message: current.message });
              }
            })()}
          </p>
        </Show>
        <p class="palette-keys" aria-hidden="true">
          {t("palette.keys")}
        </p>
      </div>
    </div>
  );
};
