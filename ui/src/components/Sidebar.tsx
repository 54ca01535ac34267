// The left column: the app's name and the list of sessions, which is empty until the chat is
// connected.
import type { Component } from "solid-js";
import type { Translate } from "../lib/i18n";

export const Sidebar: Component<{ t: Translate }> = (props) => (
  <aside class="sidebar" aria-labelledby="sessions-title">
    <h1 class="brand">
      <img class="brand-mark" src="/favicon.png" alt="" width="22" height="22" />
      {props.t("appName")}
    </h1>
    <h2 id="sessions-title" class="sidebar-title">
      {props.t("sessionsTitle")}
    </h2>
    <div class="empty-state empty-state--compact">
      <p class="empty-state-title">{props.t("sessionsEmptyTitle")}</p>
      <p class="empty-state-body">{props.t("sessionsEmptyBody")}</p>
    </div>
  </aside>
);
