// The main area: a status line and, for now, an honest empty state where messages will go.
import type { Component } from "solid-js";
import type { Translate } from "../lib/i18n";
import type { Transport } from "../lib/transport";

export const Conversation: Component<{ t: Translate; transport: Transport }> = (props) => (
  <>
    <header class="main-header">
      <p class="status" data-testid="connection-status">
        <span class="status-dot" aria-hidden="true" />
        {props.t("statusNotConnected")}
        <span class="status-separator" aria-hidden="true">
          ·
        </span>
        {props.transport === "tauri" ? props.t("transportTauri") : props.t("transportHttp")}
      </p>
    </header>
    <section class="conversation" aria-labelledby="conversation-empty-title">
      <div class="empty-state">
        <h2 id="conversation-empty-title" class="empty-state-title">
          {props.t("conversationEmptyTitle")}
        </h2>
        <p class="empty-state-body">{props.t("conversationEmptyBody")}</p>
      </div>
    </section>
  </>
);
