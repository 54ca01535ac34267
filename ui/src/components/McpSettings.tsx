// Settings → MCP servers: each configured server with its live status (connecting, connected with
// its counts, failed with the error and the last lines of its stderr, disconnected), its Connect /
// Disconnect / Restart buttons, a form to add or change one (local: a command line and its
// environment; remote: a URL and its headers; typed values go to the keychain), and "Import from
// Claude Desktop…" (the open dialog on the desktop, a file input in a browser). A connected
// server's tools and their "Always allow" switches are their own component (McpToolSwitches).
// Statuses follow the `mcp.status` event; the list is read again after every change and on a resync
// (lib/mcp-settings-store.ts, the only caller of the backend's MCP calls).
import { type Component, createSignal, For, onCleanup, onMount, Show } from "solid-js";
import type { McpServerSetting } from "../lib/bindings/McpServerSetting";
import type { MessageKey } from "../lib/i18n";
import { checkMcpForm, describeMcpStatus, emptyMcpForm, failedStderr, formFromMcpSetting, mcpActions, type McpForm, type McpFormField } from "../lib/mcp-settings";
import { createMcpSettingsStore } from "../lib/mcp-settings-store";
import type { Backend, McpBackend } from "../lib/transport";
import { McpToolSwitches } from "./McpToolSwitches";
import { useLanguage } from "../lib/language";

export interface McpSettingsProps {
  backend: Backend;
  mcp: McpBackend;
}

export const McpSettings: Component<McpSettingsProps> = (props) => {
  const { t } = useLanguage();
  // eslint-disable-next-line solid/reactivity -- the backend is fixed for the app's lifetime
  const store = createMcpSettingsStore(props.backend, props.mcp);
  const { listing, statuses, failure, notice, busy } = store;
  const [form, setForm] = createSignal<McpForm | undefined>();
  const [editing, setEditing] = createSignal<string | undefined>();
  const [problems, setProblems] = createSignal<Partial<Record<McpFormField, MessageKey>>>({});
  const [confirming, setConfirming] = createSignal<string | undefined>();
  let fileInput: HTMLInputElement | undefined;

  onMount(() => {
    onCleanup(store.watch());
  });

  const edit = (setting: McpServerSetting | undefined) => {
    setEditing(setting?.name);
    setForm(setting === undefined ? emptyMcpForm() : formFromMcpSetting(setting));
    setProblems({});
    store.clearNotice();
  };

  const update = (patch: Partial<McpForm>) => {
    const current = form();
    if (current !== undefined) setForm({ ...current, ...patch });
  };

  const updateValue = (index: number, patch: { name?: string; value?: string }) => {
    const current = form();
    if (current === undefined) return;
    update({ values: current.values.map((row, position) => (position === index ? { ...row, ...patch } : row)) });
  };

  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    const current = form();
    if (current === undefined) return;
    const checked = checkMcpForm(current);
    if ("problems" in checked) {
      setProblems(checked.problems);
      return;
    }
    setProblems({});
    if (await store.save(checked.input)) setForm(undefined);
  };

  const importFromClaude = () => {
    const withDialog = store.importWithDialog;
    if (withDialog !== undefined) void withDialog();
    else fileInput?.click();
  };

  const importChosenFile = (file: File | undefined) => {
    const importText = store.importText;
    if (file === undefined || importText === undefined) return;
    void importText(file.text());
  };

  const problem = (field: McpFormField) => {
    const key = problems()[field];
    return key === undefined ? undefined : t(key);
  };

  return (
    <section class="settings-mcp" data-testid="mcp-settings" aria-labelledby="mcp-title">
      <h3 class="settings-section" id="mcp-title">{t("mcp.title")}</h3>
      <Show when={failure()}>
        {(error) => (
          <p class={`notice notice--${error().kind}`} role="alert" data-testid="mcp-error" data-kind={error().kind}>
            {error().message}
          </p>
        )}
      </Show>
      <Show when={notice()}>{(key) => <p class="settings-saved" role="status" data-testid="mcp-notice">{t(key())}</p>}</Show>
      <Show when={listing()?.servers.length === 0}>
        <p class="settings-empty">{t("mcp.empty")}</p>
      </Show>
      <ul class="provider-list">
        <For each={listing()?.servers ?? []}>
          {(server) => {
            const status = () => statuses()[server.name];
            const actions = () => mcpActions(status());
            return (
              <li class="provider-row mcp-server-row" data-testid="mcp-server" data-name={server.name} data-status={status()?.status ?? "unknown"}>
                <div class="provider-facts">
                  <p class="provider-name">
                    {server.name} <span class="provider-kind">{t(server.kind === "local" ? "mcp.kindLocal" : "mcp.kindRemote")}</span>
                  </p>
                  <p class="provider-detail">{server.kind === "local" ? server.command.join(" ") : server.url}</p>
                  <Show when={server.values.length > 0}>
                    <p class="provider-detail">
                      {t(server.kind === "local" ? "mcp.fieldEnvironment" : "mcp.fieldHeaders")}: {server.values.map((value) => value.name).join(", ")}
                    </p>
                  </Show>
                  <Show when={server.problem}>{(text) => <p class="field-problem">{text()}</p>}</Show>
                  <p class="provider-detail" classList={{ "mcp-status--failed": status()?.status === "failed" }} data-testid="mcp-status">
                    {describeMcpStatus(t, status())}
                  </p>
                  <Show when={status()?.status === "connected"}>
                    <McpToolSwitches store={store} server={server.name} />
                  </Show>
                </div>
                <div class="provider-actions">
                  <Show
                    when={confirming() === server.name}
                    fallback={
                      <>
                        <Show when={actions().connect}>
                          <button type="button" class="plain-button" data-testid="mcp-connect" disabled={busy()} onClick={() => void store.connect(server.name)}>{t("mcp.connect")}</button>
                        </Show>
                        <Show when={actions().disconnect}>
                          <button type="button" class="plain-button" data-testid="mcp-disconnect" disabled={busy()} onClick={() => void store.disconnect(server.name)}>{t("mcp.disconnect")}</button>
                        </Show>
                        <Show when={actions().restart}>
                          <button type="button" class="plain-button" data-testid="mcp-restart" disabled={busy()} onClick={() => void store.restart(server.name)}>{t("mcp.restart")}</button>
                        </Show>
                        <button type="button" class="plain-button" data-testid="mcp-edit" disabled={busy()} onClick={() => { edit(server); }}>{t("mcp.edit")}</button>
                        <button type="button" class="plain-button" data-testid="mcp-remove" disabled={busy()} onClick={() => setConfirming(server.name)}>{t("mcp.remove")}</button>
                      </>
                    }
                  >
                    <span class="confirm-text">{t("mcp.removeConfirm", { name: server.name })}</span>
                    <button type="button" class="danger-button" data-testid="mcp-remove-confirm" onClick={() => { setConfirming(undefined); void store.remove(server.name); }}>{t("mcp.remove")}</button>
                    <button type="button" class="plain-button" onClick={() => { setConfirming(undefined); }}>{t("mcp.cancel")}</button>
                  </Show>
                </div>
                {/* Below the facts and the buttons, across the card: a trace is wide. */}
                <Show when={failedStderr(status())}>
                  {(lines) => (
                    <details class="mcp-stderr" data-testid="mcp-stderr">
                      <summary>{t("mcp.stderr")}</summary>
                      <pre>{lines().join("\n")}</pre>
                    </details>
                  )}
                </Show>
              </li>
            );
          }}
        </For>
      </ul>
      <Show
        when={form()}
        fallback={
          <div class="provider-form-actions">
            <button type="button" class="new-session settings-add" data-testid="mcp-add" onClick={() => { edit(undefined); }}>{t("mcp.add")}</button>
            <Show when={store.importWithDialog !== undefined || store.importText !== undefined}>
              <button type="button" class="plain-button" data-testid="mcp-import" disabled={busy()} onClick={importFromClaude}>{t("mcp.import")}</button>
            </Show>
            <Show when={store.importWithDialog === undefined && store.importText !== undefined}>
              <input
                ref={fileInput}
                type="file"
                accept=".json,application/json"
                hidden
                aria-label={t("mcp.importFile")}
                data-testid="mcp-import-file"
                onChange={(event) => {
                  importChosenFile(event.currentTarget.files?.[0]);
                  event.currentTarget.value = "";
                }}
              />
            </Show>
          </div>
        }
      >
        {(current) => (
          <form class="provider-form" data-testid="mcp-form" onSubmit={(event) => void save(event)} novalidate>
            <label>
              {t("mcp.fieldName")}
              <input name="name" value={current().name} disabled={editing() !== undefined} onInput={(event) => { update({ name: event.currentTarget.value }); }} aria-invalid={problem("name") !== undefined} />
              <Show when={problem("name")}>{(text) => <span class="field-problem">{text()}</span>}</Show>
            </label>
            <label>
              {t("mcp.fieldKind")}
              <select name="kind" value={current().kind} onChange={(event) => { update({ kind: event.currentTarget.value === "remote" ? "remote" : "local" }); }}>
                <option value="local">{t("mcp.kindLocal")}</option>
                <option value="remote">{t("mcp.kindRemote")}</option>
              </select>
            </label>
            <Show
              when={current().kind === "local"}
              fallback={
                <label>
                  {t("mcp.fieldUrl")}
                  <input name="url" value={current().url} placeholder="http://127.0.0.1:3001/mcp" onInput={(event) => { update({ url: event.currentTarget.value }); }} aria-invalid={problem("url") !== undefined} />
                  <Show when={problem("url")}>{(text) => <span class="field-problem">{text()}</span>}</Show>
                </label>
              }
            >
              <label>
                {t("mcp.fieldCommand")}
                <input name="command" value={current().commandLine} onInput={(event) => { update({ commandLine: event.currentTarget.value }); }} aria-invalid={problem("commandLine") !== undefined} />
                <span class="field-hint">{t("mcp.commandHint")}</span>
                <Show when={problem("commandLine")}>{(text) => <span class="field-problem">{text()}</span>}</Show>
              </label>
            </Show>
            <fieldset class="mcp-values">
              <legend>{t(current().kind === "local" ? "mcp.fieldEnvironment" : "mcp.fieldHeaders")}</legend>
              <span class="field-hint">{t("mcp.valuesHint")}</span>
              <For each={current().values}>
                {(row, index) => (
                  <div class="mcp-value-row" data-testid="mcp-value-row">
                    <input name="value-name" aria-label={t("mcp.valueName")} placeholder={t("mcp.valueName")} value={row.name} disabled={row.stored} onInput={(event) => { updateValue(index(), { name: event.currentTarget.value }); }} />
                    <input
                      name="value-value"
                      type="password"
                      autocomplete="off"
                      aria-label={t("mcp.valueValue")}
                      placeholder={row.stored ? t("mcp.valueKeep") : t("mcp.valueValue")}
                      value={row.value}
                      onInput={(event) => { updateValue(index(), { value: event.currentTarget.value }); }}
                      onChange={(event) => { updateValue(index(), { value: event.currentTarget.value }); }}
                    />
                    <button type="button" class="plain-button" aria-label={t("mcp.valueRemove")} title={t("mcp.valueRemove")} onClick={() => { update({ values: current().values.filter((_, position) => position !== index()) }); }}>✕</button>
                  </div>
                )}
              </For>
              <button type="button" class="plain-button" data-testid="mcp-value-add" onClick={() => { update({ values: [...current().values, { name: "", value: "", stored: false }] }); }}>{t("mcp.valueAdd")}</button>
              <Show when={problem("values")}>{(text) => <span class="field-problem">{text()}</span>}</Show>
            </fieldset>
            <label class="checkbox-label">
              <input type="checkbox" name="enabled" checked={current().enabled} onChange={(event) => { update({ enabled: event.currentTarget.checked }); }} />
              {t("mcp.fieldEnabled")}
            </label>
            <label>
              {t("mcp.fieldTimeout")}
              <input name="timeout" inputmode="numeric" value={current().timeout} placeholder="5000" onInput={(event) => { update({ timeout: event.currentTarget.value }); }} aria-invalid={problem("timeout") !== undefined} />
              <Show when={problem("timeout")}>{(text) => <span class="field-problem">{text()}</span>}</Show>
            </label>
            <div class="provider-form-actions">
              <button type="submit" class="send-button" data-testid="mcp-save" disabled={busy()}>{t("mcp.save")}</button>
              <button type="button" class="plain-button" onClick={() => { setForm(undefined); }}>{t("mcp.cancel")}</button>
            </div>
          </form>
        )}
      </Show>
    </section>
  );
};
