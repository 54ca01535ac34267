// Entry point: the appearance (theme and language, from the system or the person's choice) and the
// transport, then the app.
import { createEffect } from "solid-js";
import { render } from "solid-js/web";
import { App } from "./App";
import { appAppearance, applyAppearance } from "./lib/appearance";
import { shortcutKeys, translator } from "./lib/i18n";
import { createBackend, detectTransport } from "./lib/transport";
import "./styles.css";

const root = document.getElementById("root");
if (root === null) {
  throw new Error("index.html has no #root element to render into");
}

const appearance = appAppearance();
// Before the backend is ready, so the first paint is already in the right colours.
applyAppearance(document.documentElement, appearance.theme(), appearance.locale());

void createBackend(detectTransport()).then((backend) => {
  render(() => {
    createEffect(() => {
      applyAppearance(document.documentElement, appearance.theme(), appearance.locale());
      document.title = translator(appearance.locale())("appName");
    });
    return <App locale={appearance.locale()} keys={shortcutKeys(navigator.userAgent)} backend={backend} />;
  }, root);
});
