// Entry point: picks the locale and the transport once, then renders the app.
import { render } from "solid-js/web";
import { App } from "./App";
import { pickLocale, shortcutKeys, translator } from "./lib/i18n";
import { createBackend, detectTransport } from "./lib/transport";
import "./styles.css";

const root = document.getElementById("root");
if (root === null) {
  throw new Error("index.html has no #root element to render into");
}

const locale = pickLocale(navigator.language);
document.documentElement.lang = locale;
document.title = translator(locale)("appName");

void createBackend(detectTransport()).then((backend) => {
  render(() => <App locale={locale} keys={shortcutKeys(navigator.userAgent)} backend={backend} />, root);
});
