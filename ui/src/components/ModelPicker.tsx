// The model picker: a button showing the current model, opening a searchable list grouped by
// provider. The choice is remembered per session (and the session keeps its last model). ↓ from
// the search field enters the list, ↑/↓ (Home, End) move in it, Enter picks and goes back to the
// composer; Esc closes onto the picker's button.
import { type Component, createMemo, createSignal, For, Show } from "solid-js";
import type { Chat } from "../lib/chat";
import { modelName, providerName } from "../lib/display-names";

import { rovingIndex } from "../lib/keyboard-focus";
import { Icon } from "./Icon";
import { useLanguage } from "../lib/language";

export const ModelPicker: Component<{ chat: Chat; sessionId: string; onPicked?: () => void }> = (props) => {
  const { t } = useLanguage();
  const [open, setOpen] = createSignal(false);
  const [search, setSearch] = createSignal("");
  /** The model replies use: the one chosen, else the catalog's first (the default). */
  const current = () => {
    const chosen = props.chat.choiceFor(props.sessionId).model;
    if (chosen !== undefined) return chosen;
    const provider = props.chat.catalog().providers[0];
    const model = provider?.models[0];
    return model === undefined ? undefined : { providerID: model.providerID, modelID: model.id };
  };
  const currentName = () => {
    const chosen = current();
    const providers = props.chat.catalog().providers;
    const provider = chosen === undefined ? providers[0] : providers.find((candidate) => candidate.id === chosen.providerID);
    const model = chosen === undefined ? provider?.models[0] : provider?.models.find((candidate) => candidate.id === chosen.modelID);
    const variant = props.chat.choiceFor(props.sessionId).variant;
    if (model === undefined) return t("composer.modelLabel");
    const shownVariant = variant !== undefined && model.variants.includes(variant) ? ` (${variant})` : "";
    return `${provider === undefined ? "" : providerName(t, provider)} · ${modelName(t, model)}${shownVariant}`;
  };
  const groups = createMemo(() => {
    const query = search().trim().toLowerCase();
    return props.chat
      .catalog()
      .providers.map((provider) => ({
        provider,
        models: provider.models.filter((model) => query === "" || `${provider.name} ${providerName(t, provider)} ${model.name} ${modelName(t, model)} ${model.id}`.toLowerCase().includes(query)),
      }))
      .filter((group) => group.models.length > 0);
  });

  let trigger: HTMLButtonElement | undefined;
  let popover: HTMLDivElement | undefined;
  const pick = (choice: Parameters<Chat["setChoice"]>[1]) => {
    props.chat.setChoice(props.sessionId, choice);
    setOpen(false);
    props.onPicked?.();
  };
  const close = () => {
    setOpen(false);
    trigger?.focus();
  };
  /** ↑/↓ walk the search field and every model and variant button as one list. */
  const onPopoverKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Escape") {
      event.preventDefault();
      close();
      return;
    }
    const stops = Array.from(popover?.querySelectorAll<HTMLElement>(".popover-search, .popover-option, .popover-variants button") ?? []);
    const at = stops.indexOf(event.target as HTMLElement);
    // Home and End belong to the text in the search field.
    if (at === 0 && (event.key === "Home" || event.key === "End")) return;
    const next = rovingIndex(event.key, at, stops.length);
    if (next === undefined) return;
    event.preventDefault();
    stops[next]?.focus();
  };

  return (
    <div class="model-picker">
      <button type="button" class="plain-button model-picker-button" ref={trigger} data-testid="model-picker" aria-haspopup="listbox" aria-expanded={open()} title={currentName()} onClick={() => setOpen(!open())}>
        <span class="visually-hidden">{t("composer.modelLabel")}: </span>
        <span class="model-picker-name">{currentName()}</span>
      </button>
      <Show when={open()}>
        <div class="popover" ref={popover} role="dialog" aria-label={t("composer.modelLabel")} onKeyDown={onPopoverKeyDown}>
          <input
            class="popover-search"
            type="search"
            aria-label={t("composer.modelSearch")}
            placeholder={t("composer.modelSearch")}
            value={search()}
            ref={(element) => { queueMicrotask(() => { element.focus(); }); }}
            onInput={(event) => setSearch(event.currentTarget.value)}
          />
          <Show when={groups().length > 0} fallback={<p class="popover-empty">{t("composer.modelNone")}</p>}>
            <For each={groups()}>
              {(group) => (
                <div role="group" aria-label={providerName(t, group.provider)}>
                  <p class="popover-group">{providerName(t, group.provider)}</p>
                  <For each={group.models}>
                    {(model) => (
                      <>
                      <button
                        type="button"
                        class="popover-option"
                        data-testid="model-option"
                        aria-pressed={current()?.providerID === model.providerID && current()?.modelID === model.id}
                        onClick={() => { pick({ model: { providerID: model.providerID, modelID: model.id } }); }}
                      >
                        <span class="popover-option-name">{modelName(t, model)}</span>
                        <Show when={current()?.providerID === model.providerID && current()?.modelID === model.id}>
                          <span class="popover-current" data-testid="model-current">
                            <Icon name="check" /> {t("composer.modelCurrent")}
                          </span>
                        </Show>
                      </button>
                      <Show when={model.variants.length > 0}>
                        <div class="popover-variants" role="group" aria-label={t("composer.variantLabel")}>
                          <For each={model.variants}>
                            {(variant) => (
                              <button
                                type="button"
                                class="plain-button"
                                aria-pressed={current()?.modelID === model.id && props.chat.choiceFor(props.sessionId).variant === variant}
                                onClick={() => { pick({ model: { providerID: model.providerID, modelID: model.id }, variant }); }}
                              >
                                {variant}
                              </button>
                            )}
                          </For>
                        </div>
                      </Show>
                      </>
                    )}
                  </For>
                </div>
              )}
            </For>
          </Show>
        </div>
      </Show>
    </div>
  );
};
