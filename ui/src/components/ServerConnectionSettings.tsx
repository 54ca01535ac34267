// Settings → "Connect to a Dossier server" (desktop only): the address and access token, "Test
// connection" (the shell asks the server and says in plain words what is wrong), then Connect;
// the token goes to the keychain, never into this page again. While attached, which server is in
// use, "Copy my local sessions to the server" and "Use this computer's ledger". Either switch reloads the window (lib/server-connection.ts).
// When the server no longer accepts the token (the window's notice opens this section), the form
// comes back under the server in use, its address filled in, for a new token.
import { type Component, createSignal, For, onMount, Show } from "solid-js";

import { connectable, connectionFlow, type ConnectionView, desktopServerConnectionCommands, type ServerConnectionCommands } from "../lib/server-connection";
import type { LedgerInUse } from "../lib/shell-bindings/LedgerInUse";
import { toBackendError } from "../lib/transport";
import { useLanguage } from "../lib/language";

export interface ServerConnectionSettingsProps {
  /** The shell's commands (tests pass a fake); the desktop app's by default, none in a browser. */
  commands?: ServerConnectionCommands;
  /** After a switch: the window starts again on the other ledger (tests pass a spy). */
  onSwitched?: () => void;
  /** The attached server no longer accepts this computer's access token. */
  tokenRefused?: boolean;
}

export const ServerConnectionSettings: Component<ServerConnectionSettingsProps> = (props) => {
  const { t } = useLanguage();
  // eslint-disable-next-line solid/reactivity -- chosen once, for the app's lifetime
  const commands = props.commands ?? desktopServerConnectionCommands();
  const [inUse, setInUse] = createSignal<LedgerInUse | undefined>();
  const [url, setUrl] = createSignal("");
  const [token, setToken] = createSignal("");
  const [view, setView] = createSignal<ConnectionView>({ step: "idle" });
  const reload = () => { location.reload(); };
  // eslint-disable-next-line solid/reactivity -- chosen once, like the commands
  const switched = props.onSwitched ?? reload;
  const flow = commands === undefined ? undefined : connectionFlow(commands, setView, switched);
  onMount(() => {
    commands?.ledgerInUse().then(
      (current) => {
        setInUse(current);
        if (current.ledger === "local" && current.lastServer !== undefined) setUrl(current.lastServer);
        // A new token for the same server, should it refuse this one.
        if (current.ledger === "server") setUrl(current.url);
      },
      (error: unknown) => {
        setView({ step: "failed", error: toBackendError(error) });
      },
    );
  });
  const failure = () => {
    const current = view();
    return current.step === "failed" ? current.error : undefined;
  };
  const passed = () => {
    const current = view();
    return current.step === "passed" ? current.check : undefined;
  };
  const working = () => ["testing", "connecting", "switching", "copying"].includes(view().step);
  const copied = () => {
    const current = view();
    return current.step === "copied" ? current.report : undefined;
  };
  const server = () => {
    const current = inUse();
    return current?.ledger === "server" ? current : undefined;
  };

  /** The address and token, "Test connection", then Connect (also a new token for the server in use). */
  const tokenForm = () => (
    <Show when={flow}>
      {(steps) => (
        <form
          class="provider-form"
          data-testid="server-connection-form"
          novalidate
          onSubmit={(event) => {
            event.preventDefault();
            void steps().test(url().trim(), token().trim());
          }}
        >
          <Show when={server() === undefined}>
            <p class="settings-path">{t("remote.lead")}</p>
          </Show>
          <label>
            {t("remote.url")}
            <input name="serverUrl" value={url()} placeholder="https://dossier.example.com" autocomplete="url" onInput={(event) => { setUrl(event.currentTarget.value); }} onChange={(event) => { setUrl(event.currentTarget.value); }} />
          </label>
          <label>
            {t("remote.token")}
            <input name="serverToken" type="password" autocomplete="off" value={token()} onInput={(event) => { setToken(event.currentTarget.value); }} onChange={(event) => { setToken(event.currentTarget.value); }} />
          </label>
          <Show when={passed()}>
            {(check) => (
              <p class="settings-saved" role="status" data-testid="server-connection-passed">
                {t("remote.passed", { version: check().version, url: check().url })}
              </p>
            )}
          </Show>
          <div class="provider-form-actions">
            <button type="submit" class="plain-button" data-testid="test-server-connection" disabled={working() || url().trim() === "" || token().trim() === ""}>
              {view().step === "testing" ? t("remote.testing") : t("remote.test")}
            </button>
            <Show when={connectable(view(), url().trim(), token().trim())}>
              <button type="button" class="send-button" data-testid="connect-server" disabled={working()} onClick={() => void steps().connect(url().trim(), token().trim())}>
                {t("remote.connect")}
              </button>
            </Show>
            <Show when={view().step === "connecting"}>
              <span class="settings-path" role="status">{t("remote.connecting")}</span>
            </Show>
          </div>
        </form>
      )}
    </Show>
  );

  return (
    <Show when={flow}>
      {(steps) => (
        <section class="settings-server" data-testid="server-connection" aria-labelledby="server-connection-title" tabIndex={-1}>
          <h3 class="settings-section" id="server-connection-title">{t("remote.title")}</h3>
          <Show when={failure()}>
            {(error) => (
              <p class={`notice notice--${error().kind}`} role="alert" data-testid="server-connection-error" data-kind={error().kind}>
                {error().message}
              </p>
            )}
          </Show>
          <Show when={server()} fallback={tokenForm()}>
            {(current) => (
              <>
                <p class="settings-path" data-testid="server-in-use" data-url={current().url}>
                  {t("remote.inUse", { url: current().url })}
                </p>
                <Show when={!current().tokenRemembered}>
                  <p class="notice notice--unavailable" data-testid="server-token-not-remembered">{t("remote.notRemembered")}</p>
                </Show>
                <Show when={props.tokenRefused === true}>
                  <p class="notice notice--unauthorized" role="status" data-testid="server-token-refused">{t("remote.refused")}</p>
                  {tokenForm()}
                </Show>
                <Show when={copied()}>
                  {(report) => (
                    <div class="settings-saved" role="status" data-testid="copy-report" data-copied={report().copied}>
                      <p>{t("remote.copied", { count: report().copied })}</p>
                      <For each={report().failed}>
                        {(failure) => <p class="field-problem" data-testid="copy-failure">{t("remote.copyFailed", { title: failure.title, reason: failure.reason })}</p>}
                      </For>
                    </div>
                  )}
                </Show>
                <div class="provider-form-actions">
                  {/* A refused token would refuse every copy too. */}
                  <Show when={props.tokenRefused !== true}>
                    <button type="button" class="plain-button" data-testid="copy-local-sessions" disabled={working()} onClick={() => void steps().copyLocalSessions()}>
                      {view().step === "copying" ? t("remote.copying") : t("remote.copy")}
                    </button>
                  </Show>
                  <button type="button" class="plain-button" data-testid="use-local-ledger" disabled={working()} onClick={() => void steps().useLocal()}>
                    {t("remote.useLocal")}
                  </button>
                </div>
              </>
            )}
          </Show>
        </section>
      )}
    </Show>
  );
};
