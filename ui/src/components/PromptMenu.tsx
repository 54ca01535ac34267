// The composer's `/` menu: typing `/` at the start of an empty message lists connected MCP
// servers' prompts (read again each time the menu opens), filtered as the words after `/` are
// typed. Arrows move, Enter or Tab chooses, Esc closes until the `/` is gone. A prompt with
// arguments asks for them first (required ones must be filled); the prompt's text, fetched from
// its server, then replaces the `/…` in the message. The message field keeps the focus for the
// list; the arguments form takes it and gives it back.
import { type Component, createEffect, createMemo, createSignal, For, on, Show } from "solid-js";
import type { McpPromptItem } from "../lib/bindings/McpPromptItem";

import { filterPrompts, missingArguments, moveHighlight, promptArguments, promptLabel, slashQuery } from "../lib/mcp-offers";
import type { McpOffers } from "../lib/chat";
import { toBackendError } from "../lib/transport";
import { useLanguage } from "../lib/language";

export interface PromptMenuProps {
  mcp: McpOffers;
  text: string;
  onText: (text: string) => void;
  /** Gives the composer the menu's key handler; it answers true when it used the key. */
  keys: (handler: (event: KeyboardEvent) => boolean) => void;
  /** Puts the focus back in the message field. */
  onDone: () => void;
}

export const PromptMenu: Component<PromptMenuProps> = (props) => {
  const { t } = useLanguage();
  const [prompts, setPrompts] = createSignal<McpPromptItem[]>([]);
  const [highlight, setHighlight] = createSignal(0);
  const [dismissed, setDismissed] = createSignal(false);
  const [asking, setAsking] = createSignal<McpPromptItem | undefined>();
  const [values, setValues] = createSignal<Record<string, string>>({});
  const [missing, setMissing] = createSignal<string[]>([]);
  const [failure, setFailure] = createSignal<string | undefined>();
  const query = () => slashQuery(props.text);
  const shown = createMemo(() => {
    const current = query();
    return current === undefined || dismissed() || asking() !== undefined ? [] : filterPrompts(prompts(), current);
  });

  // The menu opens when the text starts being a `/…`; it reads the prompts then.
  createEffect(
    on(
      () => query() !== undefined,
      (isOpen) => {
        setDismissed(false);
        setHighlight(0);
        setFailure(undefined);
        if (!isOpen) return;
        props.mcp.prompts().then(setPrompts, (error: unknown) => {
          console.warn("could not list the MCP prompts", error);
          setPrompts([]);
        });
      },
    ),
  );

  const insert = async (prompt: McpPromptItem, args: Record<string, string>) => {
    setFailure(undefined);
    try {
      const fetched = await props.mcp.promptText(prompt.clientName, prompt.name, promptArguments(args));
      setAsking(undefined);
      props.onText(fetched.text);
      props.onDone();
    } catch (error) {
      setFailure(toBackendError(error).message);
    }
  };

  const choose = (prompt: McpPromptItem | undefined) => {
    if (prompt === undefined) return;
    if (prompt.arguments.length === 0) {
      void insert(prompt, {});
      return;
    }
    setValues({});
    setMissing([]);
    setFailure(undefined);
    setAsking(prompt);
  };

  const submitArguments = (event: SubmitEvent) => {
    event.preventDefault();
    const prompt = asking();
    if (prompt === undefined) return;
    const left = missingArguments(prompt.arguments, values());
    setMissing(left);
    if (left.length === 0) void insert(prompt, values());
  };

  const cancelArguments = () => {
    setAsking(undefined);
    props.onDone();
  };

  // eslint-disable-next-line solid/reactivity -- given once; the handler reads the signals at each key press
  props.keys((event) => {
    const list = shown();
    if (list.length === 0) return false;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      setHighlight((index) => moveHighlight(index, event.key === "ArrowDown" ? 1 : -1, list.length));
    } else if ((event.key === "Enter" && !event.shiftKey && !event.isComposing) || event.key === "Tab") {
      choose(list[highlight() % list.length]);
    } else if (event.key === "Escape") {
      setDismissed(true);
    } else {
      return false;
    }
    event.preventDefault();
    return true;
  });

  return (
    <>
      <Show when={shown().length > 0}>
        <ul class="mention-menu prompt-menu" role="listbox" data-testid="prompt-menu" aria-label={t("mcp.promptsLabel")}>
          <For each={shown()}>
            {(prompt, index) => (
              <li
                role="option"
                class="mention-option"
                data-testid="prompt-option"
                data-name={promptLabel(prompt)}
                aria-selected={index() === highlight() % shown().length}
                onMouseDown={(event) => {
                  event.preventDefault();
                  choose(prompt);
                }}
              >
                <strong>/{promptLabel(prompt)}</strong>
                <Show when={prompt.description}>
                  <span class="mention-description">{prompt.description}</span>
                </Show>
              </li>
            )}
          </For>
        </ul>
      </Show>
      <Show when={failure() !== undefined && asking() === undefined}>
        <p class="mention-menu field-problem" role="alert" data-testid="prompt-error">{failure()}</p>
      </Show>
      <Show when={asking()}>
        {(prompt) => (
          <form
            class="mention-menu prompt-arguments"
            data-testid="prompt-arguments"
            aria-label={t("mcp.promptArguments", { name: promptLabel(prompt()) })}
            onSubmit={submitArguments}
            onKeyDown={(event) => {
              if (event.key === "Escape") {
                event.preventDefault();
                cancelArguments();
              }
            }}
            novalidate
          >
            <p class="prompt-arguments-title">{t("mcp.promptArguments", { name: promptLabel(prompt()) })}</p>
            <For each={prompt().arguments}>
              {(argument, index) => (
                <label>
                  {argument.name}
                  {argument.required ? ` (${t("mcp.promptRequired")})` : ""}
                  <input
                    name={argument.name}
                    data-testid="prompt-argument"
                    value={values()[argument.name] ?? ""}
                    placeholder={argument.description ?? ""}
                    aria-invalid={missing().includes(argument.name)}
                    ref={(element) => {
                      if (index() === 0) queueMicrotask(() => { element.focus(); });
                    }}
                    onInput={(event) => {
                      const value = event.currentTarget.value;
                      setValues((current) => ({ ...current, [argument.name]: value }));
                    }}
                  />
                </label>
              )}
            </For>
            <Show when={missing().length > 0}>
              <p class="field-problem" role="alert">{t("mcp.promptMissing", { names: missing().join(", ") })}</p>
            </Show>
            <Show when={failure()}>{(message) => <p class="field-problem" role="alert">{message()}</p>}</Show>
            <div class="provider-form-actions">
              <button type="submit" class="send-button" data-testid="prompt-insert">{t("mcp.promptInsert")}</button>
              <button type="button" class="plain-button" onClick={cancelArguments}>{t("mcp.cancel")}</button>
            </div>
          </form>
        )}
      </Show>
    </>
  );
};
