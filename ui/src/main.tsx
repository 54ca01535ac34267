// Entry point: the appearance (theme and language, from the system or the person's choice) and the
// transport, then the app — or, when the desktop app could not open its ledger, the start-up page
// (components/StartUpProblem.tsx), which hands over to the app once the ledger opens (read-only,
// or restored from a backup).
import { createEffect, createSignal, Show } from "solid-js";
import { render } from "solid-js/web";
import { App } from "./App";
import { StartUpProblem } from "./components/StartUpProblem";
import { appAppearance, applyAppearance } from "./lib/appearance";
import { warmHighlighting } from "./lib/highlight-warm-up";
import { shortcutKeys, translator } from "./lib/i18n";
import { language, LanguageContext } from "./lib/language";
import { desktopStartUpCommands, startUpState } from "./lib/start-up";
import { createBackend, detectTransport } from "./lib/transport";
import "./styles.css";

const root = document.getElementById("root");
if (root === null) {
  throw new Error("index.html has no #root element to render into");
}

const appearance = appAppearance();
// Before the backend is ready, so the first paint is already in the right colours.
applyAppearance(document.documentElement, appearance.theme(), appearance.locale());

const startUpCommands = desktopStartUpCommands();

void Promise.all([createBackend(detectTransport()), startUpState(startUpCommands)]).then(([backend, initial]) => {
  render(() => {
    const [startUp, setStartUp] = createSignal(initial);
    createEffect(() => {
      applyAppearance(document.documentElement, appearance.theme(), appearance.locale());
      document.title = translator(appearance.locale())("common.appName");
    });
    const keys = shortcutKeys(navigator.userAgent);
    const app = () => <App locale={appearance.locale()} keys={keys} backend={backend} readOnly={startUp().readOnly ?? undefined} />;
    const shownProblem = () => {
      const problem = startUp().problem;
      return problem === null || startUpCommands === undefined ? undefined : { problem, commands: startUpCommands };
    };
    return (
      <Show when={shownProblem()} fallback={app()}>
        {(shown) => (
          <LanguageContext.Provider value={language(appearance.locale, keys)}>
            <StartUpProblem
              problem={shown().problem}
              commands={shown().commands}
              onOpened={(readOnly) => setStartUp({ problem: null, readOnly })}
            />
          </LanguageContext.Provider>
        )}
      </Show>
    );
  }, root);
  // After the first screen: the code blocks' grammars compiled while nothing else is happening.
  warmHighlighting();
});
