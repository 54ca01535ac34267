// The settings view: the model providers Dossier can use. Each shows its kind, address, models
// and a hint of its key (never the key); a form adds or changes one, with the key going to the
// OS keychain. Saving reloads the model list. Below, how much room the sessions take and where.
// Opened from the sidebar or with Ctrl/Cmd+,. First, the theme and language (also in a browser, where
// the server's providers are listed read-only instead of the form). Last, Updates (desktop only): the version, automatic
// checks on or off, and check → download with progress → restart (lib/updates.ts).
import { type Component, createSignal, For, Match, onCleanup, onMount, Show, Switch } from "solid-js";
import { McpSettings } from "./McpSettings";
import { LocalModelSettings } from "./LocalModelSettings";
import type { ProviderSetting } from "../lib/bindings/ProviderSetting";
import { humanSize } from "../lib/i18n";
import { AppearanceSettings } from "./AppearanceSettings";
import { ServerProviders } from "./ServerProviders";
import { DataSettings } from "./DataSettings";
import { ServerConnectionSettings } from "./ServerConnectionSettings";
import type { ServerConnectionCommands } from "../lib/server-connection";
import { createDialogFocus, revealInPlace } from "../lib/keyboard-focus";
import { checkProviderForm, describeKey, emptyForm, type FormField, formFromSetting, kindLabel, type ProviderForm, providerKinds } from "../lib/settings";
import { createProviderSettingsStore } from "../lib/provider-settings-store";
import type { Backend } from "../lib/transport";
import type { UpdateStatus } from "../lib/shell-bindings/UpdateStatus";
import { desktopUpdateCommands, failureOf, installNote, noUpdateCommands, progressPercent, streamingOf, type UpdateCommands, updateFlow, updateOf, type UpdateView } from "../lib/updates";
import { useLanguage } from "../lib/language";

export interface SettingsProps {
  backend: Backend;
  onClose: () => void;
  /** After a change: the providers (and so the models) are different now. */
  onChanged: () => void;
  /** The shell's update commands (tests pass a fake); the desktop app's by default. */
  updates?: UpdateCommands;
  /**
   * Opened from the sidebar's update notice: focus starts on the Updates section, scrolled into
   * view; from the notice that the server refused the token, on "Connect to a Dossier server".
   */
  startAt?: SettingsStart | undefined;
  /** The attached server no longer accepts this computer's access token (the window's notice). */
  tokenRefused?: boolean;
  /** The shell's "Connect to a Dossier server" commands (tests pass a fake); the desktop app's by default. */
  serverConnection?: ServerConnectionCommands;
}

export type SettingsStart = "updates" | "server" | "models";

export const Settings: Component<SettingsProps> = (props) => {
  const { t } = useLanguage();
  const [form, setForm] = createSignal<ProviderForm | undefined>();
  const [editing, setEditing] = createSignal<string | undefined>();
  const [problems, setProblems] = createSignal<Partial<Record<FormField, string>>>({});
  const [saved, setSaved] = createSignal(false);
  const [confirming, setConfirming] = createSignal<string | undefined>();
  // eslint-disable-next-line solid/reactivity -- the backend is fixed for the app's lifetime
  const providers = createProviderSettingsStore(props.backend);
  const { settings, failure, busy, storage } = providers;
  const desktop = () => providers.editable;
  const attached = () => providers.attached;
  const [updateStatus, setUpdateStatus] = createSignal<UpdateStatus | undefined>();
  const [updateView, setUpdateView] = createSignal<UpdateView>({ step: "idle" });
  // eslint-disable-next-line solid/reactivity -- chosen once, like the backend
  const updateCommands = props.updates ?? desktopUpdateCommands();
  const updates = updateFlow(updateCommands ?? noUpdateCommands, setUpdateView);
  const canInstall = () => updateStatus()?.installKind !== "source";
  const setAutomaticChecks = (enabled: boolean) => {
    updateCommands?.setAutomaticChecks(enabled).then(setUpdateStatus, (error: unknown) => {
      providers.showFailure(error);
    });
  };

  onMount(() => {
    if (desktop()) void providers.load();
    // Updates are the app's, whichever ledger the window shows (undefined in a browser).
    if (updateCommands !== undefined) {
      onCleanup(updateCommands.onAvailable(updates.offer));
      updateCommands.status().then(
        (status) => {
          setUpdateStatus(status);
          updates.start(status);
        },
        (error: unknown) => {
          console.warn("could not read the update status", error);
        },
      );
    }
    providers.readStorage();
  });

  const edit = (setting: ProviderSetting | undefined) => {
    setSaved(false);
    setProblems({});
    setEditing(setting?.id);
    setForm(setting === undefined ? emptyForm() : formFromSetting(setting));
  };
  const update = (field: keyof ProviderForm, value: string) => {
    setForm((current) => (current === undefined ? current : { ...current, [field]: value }));
  };

  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    const current = form();
    if (current === undefined) return;
    const checked = checkProviderForm(current);
    if (!checked.ok) {
      setProblems(Object.fromEntries(Object.entries(checked.problems).map(([field, key]) => [field, t(key)])));
      return;
    }
    setProblems({});
    if (await providers.save(checked.input)) {
      // The typed key is not kept in the page once it is in the keychain.
      setForm(undefined);
      setEditing(undefined);
      setSaved(true);
      props.onChanged();
    }
  };

  const remove = async (id: string) => {
    setConfirming(undefined);
    if (await providers.remove(id)) props.onChanged();
  };

  let dialog: HTMLElement | undefined;
  let updatesSection: HTMLElement | undefined;
  // Focus goes in (to Close, the one control always there, or to Updates when asked) and back to
  // what opened it; Tab stays inside.
  const focus = createDialogFocus(
    () => dialog,
    () =>
      (props.startAt === "updates" ? updatesSection : undefined) ??
      (props.startAt === "server" ? (dialog?.querySelector<HTMLElement>("[data-testid=server-connection]") ?? undefined) : undefined) ??
      (props.startAt === "models" ? (dialog?.querySelector<HTMLElement>("[data-testid=local-model-settings]") ?? undefined) : undefined) ??
      dialog?.querySelector<HTMLElement>("[data-testid=close-settings]") ??
      undefined,
  );

  return (
    <div class="settings-backdrop" onClick={(event) => { if (event.target === event.currentTarget) props.onClose(); }}>
      <section class="settings" ref={dialog} role="dialog" aria-modal="true" aria-labelledby="settings-title" data-testid="settings" onKeyDown={focus.onKeyDown}>
        <header class="settings-header">
          <h2 id="settings-title">{t("settings.title")}</h2>
          <button type="button" class="icon-button" aria-label={t("settings.close")} title={t("settings.close")} data-testid="close-settings" onClick={() => { props.onClose(); }}>
            ✕
          </button>
        </header>
        {/* Scrolls under the header, so the title and Close stay in view on a short window. */}
        <div class="settings-body" data-testid="settings-body">
        <AppearanceSettings />
        <Show when={desktop()} fallback={<ServerProviders providers={providers} />}>
          <Show when={settings()?.keychain.available === false}>
            <p class="notice notice--unavailable" role="status" data-testid="keychain-unavailable">
              {t("settings.keychainUnavailable", { reason: settings()?.keychain.reason ?? "" })}
            </p>
          </Show>
          <Show when={failure()}>
            {(error) => (
              <p class={`notice notice--${error().kind}`} role="alert" data-testid="settings-error" data-kind={error().kind}>
                {error().message}
              </p>
            )}
          </Show>
          <Show when={saved()}>
            <p class="settings-saved" role="status" data-testid="settings-saved">{t("settings.saved")}</p>
          </Show>
          <h3 class="settings-section">{t("settings.providers")}</h3>
          <Show when={settings()?.providers.length === 0}>
            <p class="settings-empty">{t("settings.providersEmpty")}</p>
          </Show>
          <ul class="provider-list">
            <For each={settings()?.providers ?? []}>
              {(provider) => (
                <li class="provider-row" data-testid="provider-row" data-provider-id={provider.id}>
                  <div class="provider-facts">
                    <p class="provider-name">
                      {provider.name ?? provider.id} <span class="provider-kind">{kindLabel(t, provider.npm)}</span>
                    </p>
                    <Show when={provider.baseURL}>{(url) => <p class="provider-detail">{url()}</p>}</Show>
                    <p class="provider-detail">{provider.models.join(", ")}</p>
                    <p class="provider-detail" data-testid="provider-key">{describeKey(t, provider.key)}</p>
                  </div>
                  <div class="provider-actions">
                    <Show when={provider.editable} fallback={<span class="provider-kind">{t("settings.detected")}</span>}>
                      <Show
                        when={confirming() === provider.id}
                        fallback={
                          <>
                            <button type="button" class="plain-button" disabled={busy()} onClick={() => { edit(provider); }}>{t("settings.edit")}</button>
                            <Show when={provider.key?.source === "keychain"}>
                              <button type="button" class="plain-button" disabled={busy()} onClick={() => void providers.removeKey(provider.id)}>
                                {t("settings.removeKey")}
                              </button>
                            </Show>
                            <button type="button" class="plain-button" disabled={busy()} onClick={() => setConfirming(provider.id)}>{t("settings.remove")}</button>
                          </>
                        }
                      >
                        <span class="confirm-text">{t("settings.removeConfirm", { name: provider.name ?? provider.id })}</span>
                        <button type="button" class="danger-button" onClick={() => void remove(provider.id)}>{t("settings.remove")}</button>
                        <button type="button" class="plain-button" onClick={() => { setConfirming(undefined); }}>{t("settings.cancel")}</button>
                      </Show>
                    </Show>
                  </div>
                </li>
              )}
            </For>
          </ul>
          <Show
            when={form()}
            fallback={
              <button type="button" class="new-session settings-add" data-testid="add-provider" onClick={() => { edit(undefined); }}>
                {t("settings.add")}
              </button>
            }
          >
            {(current) => (
              <form class="provider-form" data-testid="provider-form" onSubmit={(event) => void save(event)} novalidate>
                <label>
                  {t("settings.fieldId")}
                  <input name="id" value={current().id} disabled={editing() !== undefined} onInput={(event) => { update("id", event.currentTarget.value); }} aria-invalid={problems().id !== undefined} />
                  <Show when={problems().id}>{(text) => <span class="field-problem">{text()}</span>}</Show>
                </label>
                <label>
                  {t("settings.fieldName")}
                  <input name="name" value={current().name} onInput={(event) => { update("name", event.currentTarget.value); }} />
                </label>
                <label>
                  {t("settings.fieldKind")}
                  <select name="npm" value={current().npm} onChange={(event) => { update("npm", event.currentTarget.value); }}>
                    <For each={providerKinds}>{(kind) => <option value={kind.npm}>{t(kind.label)}</option>}</For>
                  </select>
                </label>
                <label>
                  {t("settings.fieldBaseUrl")}
                  <input name="baseURL" value={current().baseURL} placeholder="http://127.0.0.1:8080/v1" onInput={(event) => { update("baseURL", event.currentTarget.value); }} aria-invalid={problems().baseURL !== undefined} />
                  <span class="field-hint">{t("settings.baseUrlHint")}</span>
                  <Show when={problems().baseURL}>{(text) => <span class="field-problem">{text()}</span>}</Show>
                </label>
                <label>
                  {t("settings.fieldModels")}
                  <input name="models" value={current().models} placeholder="gpt-4o-mini, o3" onInput={(event) => { update("models", event.currentTarget.value); }} aria-invalid={problems().models !== undefined} />
                  <span class="field-hint">{t("settings.modelsHint")}</span>
                  <Show when={problems().models}>{(text) => <span class="field-problem">{text()}</span>}</Show>
                </label>
                <label>
                  {t("settings.fieldKey")}
                  <input
                    name="apiKey"
                    type="password"
                    autocomplete="off"
                    value={current().apiKey}
                    placeholder={editing() === undefined ? t("settings.keyPlaceholderNew") : t("settings.keyPlaceholderKeep")}
                    onInput={(event) => { update("apiKey", event.currentTarget.value); }}
                    // Clearing the field (a password manager, WebDriver's clear) fires only `change`.
                    onChange={(event) => { update("apiKey", event.currentTarget.value); }}
                    aria-invalid={problems().apiKey !== undefined}
                  />
                  <Show when={problems().apiKey}>{(text) => <span class="field-problem">{text()}</span>}</Show>
                </label>
                <div class="provider-form-actions">
                  <button type="submit" class="send-button" data-testid="save-provider" disabled={busy()}>{t("settings.save")}</button>
                  <button type="button" class="plain-button" onClick={() => { setForm(undefined); }}>{t("settings.cancel")}</button>
                </div>
              </form>
            )}
          </Show>
          <Show when={settings()?.configPath}>{(path) => <p class="settings-path">{t("settings.savedIn", { path: path() })}</p>}</Show>
          <Show when={storage()}>
            {(use) => (
              <p class="settings-path" data-testid="storage-use">
                {t("settings.storage", { size: humanSize(t, use().bytes), folder: use().dataFolder })}
              </p>
            )}
          </Show>
        </Show>
        {/* The app's own updates: also while the window is attached to a Dossier server. */}
          <Show when={updateCommands !== undefined}>
            <section class="settings-updates" data-testid="updates" aria-labelledby="updates-title" tabIndex={-1} ref={updatesSection}>
              <h3 class="settings-section" id="updates-title">{t("updates.title")}</h3>
              <Show when={updateStatus()}>
                {(status) => (
                  <>
                    <p class="settings-path" data-testid="current-version" data-version={status().currentVersion}>
                      {t("updates.version", { version: status().currentVersion })}
                      <Show when={status().lastCheckedAt}>{(at) => <> {t("updates.lastChecked", { date: new Date(at()).toLocaleString() })}</>}</Show>
                    </p>
                    <Show when={installNote(status().installKind)}>{(key) => <p class="settings-path" data-testid="update-install-note">{t(key())}</p>}</Show>
                    <label class="settings-path">
                      <input type="checkbox" data-testid="automatic-update-checks" checked={status().automaticChecks} onChange={(event) => { setAutomaticChecks(event.currentTarget.checked); }} />{" "}
                      {t("updates.automatic")}
                    </label>
                  </>
                )}
              </Show>
              <Show when={failureOf(updateView())}>
                {(error) => (
                  <p class={`notice notice--${error().kind}`} role="alert" data-testid="update-error" data-kind={error().kind}>
                    {error().message}
                  </p>
                )}
              </Show>
              <Show
                when={updateOf(updateView())}
                fallback={
                  <Show
                    when={updateView().step !== "restarting"}
                    fallback={<p class="settings-saved" role="status" data-testid="update-restarting">{t("updates.restarting")}</p>}
                  >
                    <Show when={updateView().step === "upToDate"}>
                      <p class="settings-saved" role="status" data-testid="update-up-to-date">{t("updates.upToDate")}</p>
                    </Show>
                    <button type="button" class="plain-button" data-testid="check-updates" disabled={updateView().step === "checking"} onClick={() => void updates.check()}>
                      {updateView().step === "checking" ? t("updates.checking") : t("updates.check")}
                    </button>
                  </Show>
                }
              >
                {(update) => (
                  <div class="update-offer" data-testid="update-available" data-version={update().version} data-step={updateView().step}>
                    <p class="provider-name" role="status">{t("updates.ready", { version: update().version })}</p>
                    <Show when={update().notes}>{(notes) => <p class="provider-detail" style={{ "white-space": "pre-wrap" }} data-testid="update-notes">{notes()}</p>}</Show>
                    <Switch>
                      <Match when={updateView().step === "available" || updateView().step === "failed"}>
                        <Show when={canInstall()}>
                          <button type="button" class="send-button" data-testid="download-update" onClick={() => void updates.download()}>{t("updates.download")}</button>
                        </Show>
                      </Match>
                      <Match when={updateView().step === "downloading"}>
                        <p class="settings-path">
                          {/* Without a value the bar is indeterminate (a server that sends no length); `value` must be a number. */}
                          <Show when={progressPercent(updateView())} keyed fallback={<progress data-testid="update-progress" max="100" aria-label={t("updates.progress")} />}>
                            {(percent) => <progress data-testid="update-progress" max="100" value={percent} aria-label={t("updates.progress")} />}
                          </Show>{" "}
                          {progressPercent(updateView()) === undefined
                            ? t("updates.downloadingUnknown")
                            : t("updates.downloading", { percent: progressPercent(updateView()) ?? 0 })}
                        </p>
                      </Match>
                      <Match when={updateView().step === "ready"}>
                        <p class="settings-saved" data-testid="update-verified">{t("updates.verified")}</p>
                        <button type="button" class="send-button" data-testid="restart-to-update" data-reveal-focus ref={revealInPlace} onClick={() => void updates.restart(false)}>{t("updates.restart")}</button>
                      </Match>
                      <Match when={updateView().step === "waitingForReplies"}>
                        <p class="settings-saved" role="status" data-testid="update-waiting">{t("updates.waitingForReplies", { count: streamingOf(updateView()) })}</p>
                        <button type="button" class="danger-button" data-testid="restart-now" onClick={() => void updates.restart(true)}>{t("updates.restartNow")}</button>
                      </Match>
                    </Switch>
                  </div>
                )}
              </Show>
            </section>
          </Show>
        <LocalModelSettings backend={props.backend} onModelsChanged={props.onChanged} />
        <Show when={props.backend.mcp}>{(mcp) => <McpSettings backend={props.backend} mcp={mcp()} />}</Show>
        <ServerConnectionSettings tokenRefused={props.tokenRefused === true} {...(props.serverConnection === undefined ? {} : { commands: props.serverConnection })} />
        <DataSettings attached={attached()} />
        </div>
      </section>
    </div>
  );
};
