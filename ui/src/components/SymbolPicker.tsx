// A text file chip's outline picker: the file's functions, classes, sections… (built-in grammars,
// docs/symbols.md), read when the list opens. The search field has the focus, arrows move the
// highlight, Enter chooses, Esc closes. Choosing a symbol narrows the chip to its lines; "Whole
// file" widens it again.
import { type Component, createMemo, createSignal, For, onMount, Show } from "solid-js";
import type { DocumentSymbol } from "../lib/bindings/DocumentSymbol";
import { useLanguage } from "../lib/language";
import { moveHighlight } from "../lib/mcp-offers";
import { filterOutline, flattenOutline, symbolRange } from "../lib/symbol-outline";
import { toBackendError } from "../lib/transport";

export interface SymbolPickerProps {
  /** The file's name, for the button's accessible label. */
  name: string;
  path: string;
  range: { start: number; end: number } | undefined;
  fileSymbols: (path: string) => Promise<DocumentSymbol[]>;
  onNarrow: (range: { start: number; end: number } | undefined) => void;
}

/**
 * The chip whose picker button takes the focus back once narrowed: narrowing replaces the chip's
 * attachment, so the composer draws a new chip (and a new picker) in place of the one chosen in.
 */
let focusAfterNarrow: string | undefined;

export const SymbolPicker: Component<SymbolPickerProps> = (props) => {
  const { t } = useLanguage();
  const [open, setOpen] = createSignal(false);
  const [symbols, setSymbols] = createSignal<DocumentSymbol[] | undefined>();
  const [failure, setFailure] = createSignal<string | undefined>();
  const [query, setQuery] = createSignal("");
  const [highlight, setHighlight] = createSignal(0);
  // Row 0 is "Whole file"; the symbols follow.
  const shown = createMemo(() => filterOutline(flattenOutline(symbols() ?? []), query()));
  const optionCount = () => shown().length + 1;
  let button: HTMLButtonElement | undefined;

  const show = async () => {
    setOpen(true);
    setQuery("");
    setHighlight(0);
    setFailure(undefined);
    setSymbols(undefined);
    try {
      setSymbols(await props.fileSymbols(props.path));
    } catch (error) {
      setFailure(toBackendError(error).message);
      setSymbols([]);
    }
  };

  const close = () => {
    setOpen(false);
    if (button?.isConnected === true) {
      focusAfterNarrow = undefined;
      button.focus();
    }
  };

  const choose = (index: number) => {
    focusAfterNarrow = props.path;
    if (index === 0) props.onNarrow(undefined);
    else {
      const row = shown()[index - 1];
      if (row === undefined) return;
      props.onNarrow(symbolRange(row.symbol));
    }
    close();
  };

  onMount(() => {
    const path = props.path;
    queueMicrotask(() => {
      if (focusAfterNarrow !== path || button?.isConnected !== true) return;
      focusAfterNarrow = undefined;
      button.focus();
    });
  });

  const optionId = (index: number) => `symbol-${props.path}-${String(index)}`;

  return (
    <span class="symbol-picker">
      <button
        type="button"
        ref={button}
        class="plain-button chip-symbol"
        data-testid="chip-symbol"
        aria-expanded={open()}
        aria-haspopup="listbox"
        aria-label={t("composer.symbolPickerLabel", { name: props.name })}
        title={t("composer.symbolPickerLabel", { name: props.name })}
        onClick={() => {
          if (open()) close();
          else void show();
        }}
      >
        {props.range === undefined ? t("composer.symbolWholeFile") : t("composer.symbolLines", { start: props.range.start, end: props.range.end })}
      </button>
      <Show when={open()}>
        <div class="resource-popover symbol-popover" data-testid="symbol-picker">
          <input
            class="resource-search"
            type="search"
            data-testid="symbol-search"
            aria-label={t("composer.symbolSearch")}
            placeholder={t("composer.symbolSearch")}
            aria-activedescendant={optionId(highlight())}
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
                setHighlight((index) => moveHighlight(index, event.key === "ArrowDown" ? 1 : -1, optionCount()));
              } else if (event.key === "Enter") {
                event.preventDefault();
                choose(highlight());
              } else if (event.key === "Escape") {
                event.preventDefault();
                event.stopPropagation();
                close();
              }
            }}
          />
          <Show when={failure()}>{(message) => <p class="field-problem" role="alert">{message()}</p>}</Show>
          <Show when={symbols() === undefined}>
            <p class="resource-empty">{t("composer.symbolsLoading")}</p>
          </Show>
          <Show when={symbols()?.length === 0 && failure() === undefined}>
            <p class="resource-empty" data-testid="symbol-empty">{t("composer.symbolsNone")}</p>
          </Show>
          <ul class="resource-list" role="listbox" aria-label={t("composer.symbolPickerLabel", { name: props.name })}>
            <li
              id={optionId(0)}
              role="option"
              class="mention-option"
              data-testid="symbol-option"
              aria-selected={highlight() === 0}
              onMouseEnter={() => setHighlight(0)}
              onMouseDown={(event) => {
                event.preventDefault();
                choose(0);
              }}
            >
              <strong>{t("composer.symbolWholeFile")}</strong>
            </li>
            <For each={shown()}>
              {(row, index) => (
                <li
                  id={optionId(index() + 1)}
                  role="option"
                  class="mention-option"
                  data-testid="symbol-option"
                  aria-selected={highlight() === index() + 1}
                  style={{ "padding-inline-start": `${String(0.5 + row.depth)}em` }}
                  onMouseEnter={() => setHighlight(index() + 1)}
                  onMouseDown={(event) => {
                    event.preventDefault();
                    choose(index() + 1);
                  }}
                >
                  <strong>{row.symbol.name}</strong>
                  <span class="mention-description">
                    {t("composer.symbolLines", { start: row.symbol.line + 1, end: row.symbol.endLine + 1 })}
                  </span>
                </li>
              )}
            </For>
          </ul>
        </div>
      </Show>
    </span>
  );
};
