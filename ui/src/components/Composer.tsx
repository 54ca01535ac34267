// The message box at the bottom. Writing works; sending does not exist in this build, so the
// Send button is disabled and a visible notice (also announced with the field) says why.
import type { Component } from "solid-js";
import type { Translate } from "../lib/i18n";

export const Composer: Component<{ t: Translate }> = (props) => (
  <form
    class="composer"
    onSubmit={(event) => {
      event.preventDefault();
    }}
  >
    <label for="composer-input" class="visually-hidden">
      {props.t("composerLabel")}
    </label>
    <textarea
      id="composer-input"
      class="composer-input"
      rows={3}
      placeholder={props.t("composerPlaceholder")}
      aria-describedby="composer-notice"
    />
    <div class="composer-footer">
      <p id="composer-notice" class="notice">
        <svg class="notice-icon" viewBox="0 0 16 16" aria-hidden="true">
          <circle cx="8" cy="8" r="7" fill="none" stroke="currentColor" stroke-width="1.5" />
          <rect x="7.25" y="7" width="1.5" height="4.5" rx="0.75" fill="currentColor" />
          <circle cx="8" cy="4.75" r="0.95" fill="currentColor" />
        </svg>
        {props.t("sendDisabledNotice")}
      </p>
      <button type="submit" class="send-button" disabled aria-describedby="composer-notice">
        {props.t("sendButton")}
      </button>
    </div>
  </form>
);
