// What the window shows with no session open: a greeting, a few example prompts (each puts its
// words in the composer; "Summarise a document I attach" opens the file picker too) and, while only the built-in offline model answers, "Add a model
// provider" (on the desktop, after "Run a model on this computer" with the recommended model's
// download size, which opens Settings → Models on this computer) — or, on a server (a browser, or the window attached to one), where the server's
// providers come from, since they are not added here. The examples and that button are one Tab stop walked with the arrow keys, so the
// composer stays a few Tab presses from a fresh load.
import { type Component, createSignal, For, Show } from "solid-js";
import { humanSize, type MessageKey } from "../lib/i18n";
import { rovingIndex } from "../lib/keyboard-focus";
import { useLanguage } from "../lib/language";

const examples: MessageKey[] = ["welcome.exampleSummarise", "welcome.exampleExplain", "welcome.examplePlan", "welcome.exampleEmail"];
/** The example that is about a file the person attaches. */
const attachingExample: MessageKey = "welcome.exampleSummarise";

export const Welcome: Component<{
  offlineOnly: boolean;
  /** The providers are a server's, set up where it runs: Settings can only list them. */
  serverProviders: boolean;
  /** `pickFiles`: the example is about a file, so the file picker opens too. */
  onExample: (text: string, pickFiles: boolean) => void;
  onAddProvider: () => void;
  /**
   * The size of the model recommended for this computer, when the window can run one (the
   * desktop app on its own ledger): "Run a model on this computer" is offered beside the provider.
   */
  localModelSize?: number | undefined;
  onRunLocally?: (() => void) | undefined;
}> = (props) => {
  const { t } = useLanguage();
  const [active, setActive] = createSignal(0);
  // With "Run a model on this computer" before it, "Add a model provider" is one further along.
  const providerIndex = () => examples.length + (props.onRunLocally !== undefined ? 1 : 0);
  let group: HTMLDivElement | undefined;
  const onKeyDown = (event: KeyboardEvent) => {
    const buttons = Array.from(group?.querySelectorAll<HTMLButtonElement>("button") ?? []);
    const key = event.key === "ArrowRight" ? "ArrowDown" : event.key === "ArrowLeft" ? "ArrowUp" : event.key;
    const next = rovingIndex(key, buttons.indexOf(event.target as HTMLButtonElement), buttons.length);
    if (next === undefined) return;
    event.preventDefault();
    setActive(next);
    buttons[next]?.focus();
  };
  return (
    <div class="conversation conversation--empty" data-testid="welcome">
      <div class="welcome">
        <img class="welcome-mark" src="/favicon.png" alt="" width="40" height="40" />
        <h2 class="welcome-title">{t("welcome.title")}</h2>
        <p class="welcome-body">{t("welcome.body")}</p>
        <div class="welcome-actions" role="group" aria-label={t("welcome.examples")} ref={group} onKeyDown={onKeyDown}>
          <For each={examples}>
            {(key, index) => (
              <button
                type="button"
                class="welcome-example"
                data-testid="welcome-example"
                data-writes
                tabIndex={active() === index() ? 0 : -1}
                onFocus={() => setActive(index())}
                onClick={() => { props.onExample(t(key), key === attachingExample); }}
              >
                {t(key)}
              </button>
            )}
          </For>
          <Show when={props.offlineOnly && props.onRunLocally !== undefined}>
            <button
              type="button"
              class="welcome-provider"
              data-testid="welcome-run-locally"
              tabIndex={active() === examples.length ? 0 : -1}
              onFocus={() => setActive(examples.length)}
              onClick={() => { props.onRunLocally?.(); }}
            >
              {props.localModelSize === undefined ? t("welcome.runLocally") : t("welcome.runLocallySize", { size: humanSize(t, props.localModelSize) })}
            </button>
          </Show>
          <Show when={props.offlineOnly}>
            <button
              type="button"
              class="welcome-provider"
              data-testid="welcome-add-provider"
              tabIndex={active() === providerIndex() ? 0 : -1}
              onFocus={() => setActive(providerIndex())}
              onClick={() => { props.onAddProvider(); }}
            >
              {t(props.serverProviders ? "welcome.serverProviders" : "welcome.addProvider")}
            </button>
          </Show>
        </div>
        <Show when={props.offlineOnly}>
          <p class="welcome-hint">{t(props.serverProviders ? "welcome.serverProviderHint" : "welcome.providerHint")}</p>
        </Show>
      </div>
    </div>
  );
};
