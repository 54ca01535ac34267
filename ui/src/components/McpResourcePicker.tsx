// The composer's "Resources" button and its searchable list of what connected MCP servers offer to
// read. The list is read when it opens (servers come and go), the search field has the focus,
// arrows move the highlight, Enter chooses, Esc closes; a chosen resource becomes a chip whose
// contents the server reads when the prompt is sent.
import { type Component, createMemo, createSignal, For, Show } from "solid-js";
import type { McpResourceItem } from "../lib/bindings/McpResourceItem";

import { filterResources, moveHighlight } from "../lib/mcp-offers";
import type { McpOffers } from "../lib/chat";
import { toBackendError } from "../lib/transport";
import { Icon } from "./Icon";
import { useLanguage } from "../lib/language";

export interface McpResourcePickerProps {
  mcp: McpOffers;
  onChoose: (item: McpResourceItem) => void;
  /** Where the focus goes back when the list closes (the message field). */
  onClosed?: () => void;
}

export const McpResourcePicker: Component<McpResourcePickerProps> = (props) => {
  const { t } = useLanguage();
  const [open, setOpen] = createSignal(false);
  const [items, setItems] = createSignal<McpResourceItem[] | undefined>();
  const [failure, setFailure] = createSignal<string | undefined>();
  const [query, setQuery] = createSignal("");
  const [highlight, setHighlight] = createSignal(0);
  const shown = createMemo(() => filterResources(items() ?? [], query()));

  const show = async () => {
    setOpen(true);
    setQuery("");
    setHighlight(0);
    setFailure(undefined);
    setItems(undefined);
    try {
      setItems(await props.mcp.resources());
    } catch (error) {
      setFailure(toBackendError(error).message);
      setItems([]);
    }
  };

  const close = () => {
    setOpen(false);
    props.onClosed?.();
  };

  const choose = (item: McpResourceItem | undefined) => {
    if (item === undefined) return;
    props.onChoose(item);
    close();
  };

  return (
    <div class="resource-picker">
      <button
        type="button"
        class="plain-button composer-attach"
        data-testid="attach-resource"
        aria-expanded={open()}
        aria-haspopup="listbox"
        title={t("mcp.resourcesButton")}
        onClick={() => {
          if (open()) close();
          else void show();
        }}
      >
        <Icon name="context" /> <span class="composer-attach-label">{t("mcp.resourcesButton")}</span>
      </button>
      <Show when={open()}>
        <div class="resource-popover" data-testid="resource-picker">
          <input
            class="resource-search"
            type="search"
            data-testid="resource-search"
            aria-label={t("mcp.resourcesSearch")}
            placeholder={t("mcp.resourcesSearch")}
            aria-controls="resource-list"
            aria-activedescendant={shown().length > 0 ? `resource-${String(highlight())}` : undefined}
            value={query()}
            ref={(element) => {
              queueMicrotask(() => { element.focus(); });
            }}
            onInput={(event) => {
              setQuery(event.currentTarget.value);
              setHighlight(0);
            }}
            onKeyDown={(event) => {
              if (event.key === "ArrowDown" || event.key === "ArrowUp") {
                event.preventDefault();
                setHighlight((index) => moveHighlight(index, event.key === "ArrowDown" ? 1 : -1, shown().length));
              } else if (event.key === "Enter") {
                event.preventDefault();
                choose(shown()[highlight()]);
              } else if (event.key === "Escape") {
                event.preventDefault();
                event.stopPropagation();
                close();
              }
            }}
          />
          <Show when={failure()}>{(message) => <p class="field-problem" role="alert">{message()}</p>}</Show>
          <Show when={items() === undefined}>
            <p class="resource-empty">{t("mcp.resourcesLoading")}</p>
          </Show>
          <Show when={items() !== undefined && failure() === undefined && shown().length === 0}>
            <p class="resource-empty" data-testid="resource-empty">
              {t(items()?.length === 0 ? "mcp.resourcesNone" : "mcp.resourcesNoMatch")}
            </p>
          </Show>
          <ul class="resource-list" id="resource-list" role="listbox" aria-label={t("mcp.resourcesButton")}>
            <For each={shown()}>
              {(item, index) => (
                <li
                  id={`resource-${String(index())}`}
                  role="option"
                  class="mention-option"
                  data-testid="resource-option"
                  data-uri={item.uri}
                  aria-selected={index() === highlight()}
                  onMouseEnter={() => setHighlight(index())}
                  onMouseDown={(event) => {
                    // Keeps the focus in the search field until the choice is made.
                    event.preventDefault();
                    choose(item);
                  }}
                >
                  <strong>{item.name}</strong>
                  <span class="mention-description">
                    {item.clientName} · {item.uri}
                  </span>
                </li>
              )}
            </For>
          </ul>
        </div>
      </Show>
    </div>
  );
};
