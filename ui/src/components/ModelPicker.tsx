// The model picker: a button showing the current model, opening a searchable list grouped by
// provider. The choice is remembered per session (and the session keeps its last model).
import { type Component, createMemo, createSignal, For, Show } from "solid-js";
import type { Chat } from "../lib/chat";
import type { Translate } from "../lib/i18n";

export const ModelPicker: Component<{ t: Translate; chat: Chat; sessionId: string }> = (props) => {
  const [open, setOpen] = createSignal(false);
  const [search, setSearch] = createSignal("");
  const current = () => props.chat.choiceFor(props.sessionId).model;
  const currentName = () => {
    const chosen = current();
    const providers = props.chat.catalog().providers;
    const provider = chosen === undefined ? providers[0] : providers.find((candidate) => candidate.id === chosen.providerID);
    const model = chosen === undefined ? provider?.models[0] : provider?.models.find((candidate) => candidate.id === chosen.modelID);
    const variant = props.chat.choiceFor(props.sessionId).variant;
    if (model === undefined) return props.t("modelLabel");
    const shownVariant = variant !== undefined && model.variants.includes(variant) ? ` (${variant})` : "";
    return `${provider?.name ?? ""} · ${model.name}${shownVariant}`;
  };
  const groups = createMemo(() => {
    const query = search().trim().toLowerCase();
    return props.chat
      .catalog()
      .providers.map((provider) => ({
        provider,
        models: provider.models.filter((model) => query === "" || `${provider.name} ${model.name} ${model.id}`.toLowerCase().includes(query)),
      }))
      .filter((group) => group.models.length > 0);
  });

  return (
    <div class="model-picker">
      <button type="button" class="plain-button" data-testid="model-picker" aria-haspopup="listbox" aria-expanded={open()} onClick={() => setOpen(!open())}>
        <span class="visually-hidden">{props.t("modelLabel")}: </span>
        {currentName()}
      </button>
      <Show when={open()}>
        <div class="popover" role="dialog" aria-label={props.t("modelLabel")}>
          <input
            class="popover-search"
            type="search"
            aria-label={props.t("modelSearch")}
            placeholder={props.t("modelSearch")}
            value={search()}
            ref={(element) => { queueMicrotask(() => { element.focus(); }); }}
            onInput={(event) => setSearch(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === "Escape") setOpen(false);
            }}
          />
          <Show when={groups().length > 0} fallback={<p class="popover-empty">{props.t("modelNone")}</p>}>
            <For each={groups()}>
              {(group) => (
                <div role="group" aria-label={group.provider.name}>
                  <p class="popover-group">{group.provider.name}</p>
                  <For each={group.models}>
                    {(model) => (
                      <>
                      <button
                        type="button"
                        class="popover-option"
                        aria-pressed={current()?.providerID === model.providerID && current()?.modelID === model.id}
                        onClick={() => {
                          props.chat.setChoice(props.sessionId, { model: { providerID: model.providerID, modelID: model.id } });
                          setOpen(false);
                        }}
                      >
                        {model.name}
                      </button>
                      <Show when={model.variants.length > 0}>
                        <div class="popover-variants" role="group" aria-label={props.t("variantLabel")}>
                          <For each={model.variants}>
                            {(variant) => (
                              <button
                                type="button"
                                class="plain-button"
                                aria-pressed={current()?.modelID === model.id && props.chat.choiceFor(props.sessionId).variant === variant}
                                onClick={() => {
                                  props.chat.setChoice(props.sessionId, { model: { providerID: model.providerID, modelID: model.id }, variant });
                                  setOpen(false);
                                }}
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
