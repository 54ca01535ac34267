// The app's frame: the sessions sidebar on the left, the conversation and its composer on the
// right. Nothing is wired to the core yet, so every part says so instead of pretending.
import type { Component } from "solid-js";
import { Composer } from "./components/Composer";
import { Conversation } from "./components/Conversation";
import { Sidebar } from "./components/Sidebar";
import { type Locale, type Translate, messages } from "./lib/i18n";
import type { Transport } from "./lib/transport";

export interface AppProps {
  locale: Locale;
  transport: Transport;
}

export const App: Component<AppProps> = (props) => {
  const t: Translate = (key) => messages[props.locale][key];

  return (
    <div class="app">
      <Sidebar t={t} />
      <main class="main" aria-label={t("conversationLabel")}>
        <Conversation t={t} transport={props.transport} />
        <Composer t={t} />
      </main>
    </div>
  );
};
