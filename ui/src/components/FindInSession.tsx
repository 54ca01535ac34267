// Ctrl/Cmd+F: find within the open session, including messages not loaded yet (the core
// searches the whole session; the conversation loads older pages until a match is on screen).
// Matches go newest first: Enter steps to the older one, Shift+Enter back, Esc closes.
import { type Component, createEffect, createMemo, createSignal, on, onCleanup, onMount, Show } from "solid-js";
import type { SearchResult } from "../lib/bindings/SearchResult";
import type { Chat } from "../lib/chat";
import { type FindMatch, findLimit, findMatches, findTruncated } from "../lib/find-matches";

import { createLiveSearch } from "../lib/live-search";
import { stepIndex } from "../lib/search-palette";
import { ExcerptText } from "./ExcerptText";
import { useLanguage } from "../lib/language";

export const FindInSession: Component<{ chat: Chat; sessionId: string; onClose: () => void }> = (props) => {
  const { t } = useLanguage();
  // eslint-disable-next-line solid/reactivity -- one find bar per session: the app remounts it on a switch
  const { chat, sessionId } = props;
  const search = createLiveSearch<SearchResult[]>((text) => chat.search({ text, sessionID: sessionId, limit: findLimit, include_archived: true }));
  const [current, setCurrent] = createSignal(-1);
  let field: HTMLInputElement | undefined;

  const matches = createMemo<FindMatch[]>((previous) => {
    const state = search.state();
    if (state.status === "done") return findMatches(state.results, sessionId);
    return state.status === "loading" ? previous : [];
  }, []);
  const truncated = () => {
    const state = search.state();
    return state.status === "done" && findTruncated(state.results);
  };

  const show = (index: number) => {
    setCurrent(index);
    const match = matches()[index];
    if (match === undefined) chat.clearFocus();
    else void chat.revealMessage(sessionId, match.messageId, "find");
  };
  createEffect(on(matches, (list) => { show(list.length > 0 ? 0 : -1); }, { defer: true }));

  /** +1 steps to the older match, -1 to the newer one. */
  const step = (delta: number) => {
    if (matches().length > 0) show(stepIndex(current(), delta, matches().length));
  };

  onMount(() => {
    field?.focus();
  });
  onCleanup(() => {
    search.dispose();
    if (chat.focus()?.reason === "find") chat.clearFocus();
  });

  const count = () => {
    const state = search.state();
    if (state.status === "idle") return "";
    if (state.status === "error") return t("palette.error", { message: state.message });
    if (matches().length === 0) return state.status === "loading" ? t("palette.searching") : t("find.none");
    const values = { current: current() + 1, total: matches().length };
    return truncated() ? t("find.countMore", values) : t("find.count", values);
  };

  return (
    <div class="find-bar" role="search" aria-label={t("find.label")} data-testid="find-bar">
      <div class="find-row">
        <input
          ref={field}
          class="find-input"
          type="text"
          aria-label={t("find.label")}
          placeholder={t("find.placeholder")}
          data-testid="find-input"
          value={search.query()}
          onInput={(event) => { search.setQuery(event.currentTarget.value); }}
          onKeyDown={(event) => {
            if (event.key === "Enter") {
              event.preventDefault();
              step(event.shiftKey ? -1 : 1);
            } else if (event.key === "Escape") {
              event.preventDefault();
              props.onClose();
            }
          }}
        />
        <span class="find-count" role="status" data-testid="find-count">
          {count()}
        </span>
        <button type="button" class="icon-button" title={t("find.older")} aria-label={t("find.older")} disabled={matches().length === 0} onClick={() => { step(1); }}>
          ↑
        </button>
        <button type="button" class="icon-button" title={t("find.newer")} aria-label={t("find.newer")} disabled={matches().length === 0} onClick={() => { step(-1); }}>
          ↓
        </button>
        <button type="button" class="icon-button" title={t("find.close")} aria-label={t("find.close")} data-testid="find-close" onClick={() => { props.onClose(); }}>
          ✕
        </button>
      </div>
      <Show when={matches()[current()]}>
        {(match) => (
          <p class="find-excerpt" data-testid="find-excerpt">
            <ExcerptText pieces={match().excerpt.pieces} />
          </p>
        )}
      </Show>
    </div>
  );
};
