// Settings → Models on this computer: the curated library (size, memory needed, licence, the
// "Recommended for this computer" badge), each model's Download, or its progress bar with bytes,
// speed and time left — and "Waiting for the server…" with no speed when nothing arrives — with
// Pause / Resume / Cancel, Delete for an installed model (its space said before and after), and
// "Add a model file…" (the open dialog, desktop only; dropping a .gguf on the window does the same,
// App.tsx). Downloads follow the `dossier.model.download` event; the list is read again when one
// ends and on a resync (lib/local-models-store.ts). The core does the work
// (src-tauri/core/src/local_models/).
import { type Component, createSignal, For, Index, onCleanup, onMount, Show } from "solid-js";
import type { LibraryModel } from "../lib/bindings/LibraryModel";
import { humanSize } from "../lib/i18n";
import { type DownloadAction, downloadActions, isUnderWay, percent, progressLine } from "../lib/local-models";
import { createLocalModelStore } from "../lib/local-models-store";
import { revealInPlace } from "../lib/keyboard-focus";
import type { Backend } from "../lib/transport";
import { useLanguage } from "../lib/language";

export const LocalModelSettings: Component<{
  backend: Backend;
  /** A model was deleted or added from a file: the model picker reads its list again. (An
   * installed download is followed by the chat itself, lib/chat.ts, as it may end after Settings
   * closed.) */
  onModelsChanged?: () => void;
}> = (props) => {
  const { t } = useLanguage();
  // eslint-disable-next-line solid/reactivity -- the backend is fixed for the app's lifetime
  const store = createLocalModelStore(props.backend);
  const { view, failure } = store;
  const [notice, setNotice] = createSignal<string | undefined>();
  const [confirming, setConfirming] = createSignal<string | undefined>();

  onMount(() => {
    onCleanup(store.watch());
  });

  const act = (model: LibraryModel, action: DownloadAction) => {
    setNotice(undefined);
    void store.act(model.entry.id, action);
  };

  const startDownload = (model: LibraryModel) => {
    setNotice(undefined);
    void store.start(model.entry.id);
  };

  const remove = async (modelId: string, name: string) => {
    setConfirming(undefined);
    setNotice(undefined);
    const freed = await store.remove(modelId);
    if (freed === undefined) return;
    setNotice(t("localModels.deleted", { name, size: humanSize(t, freed) }));
    props.onModelsChanged?.();
  };

  const addFile = async () => {
    setNotice(undefined);
    const added = await store.addWithDialog?.();
    if (added === undefined) return;
    setNotice(t("localModels.added", { name: added.modelId }));
    props.onModelsChanged?.();
  };

  const actionLabel = (action: DownloadAction) => t(action === "pause" ? "localModels.pause" : action === "resume" ? "localModels.resume" : "localModels.cancelDownload");

  const deleteControls = (modelId: string, name: string, size: number) => (
    <Show
      when={confirming() === modelId}
      fallback={
        <button type="button" class="plain-button" data-testid="delete-local-model" aria-label={t("localModels.deleteNamed", { name })} onClick={() => { setConfirming(modelId); }}>
          {t("localModels.delete")}
        </button>
      }
    >
      <div class="update-offer" data-testid="delete-local-model-confirm" ref={revealInPlace}>
        <p class="confirm-text">{t("localModels.deleteConfirm", { name, size: humanSize(t, size) })}</p>
        <button type="button" class="danger-button" data-testid="confirm-delete-local-model" onClick={() => void remove(modelId, name)}>{t("localModels.deleteNow")}</button>
        <button type="button" class="plain-button" data-reveal-focus onClick={() => { setConfirming(undefined); }}>{t("settings.cancel")}</button>
      </div>
    </Show>
  );

  return (
    <section class="settings-local-models" data-testid="local-model-settings" aria-labelledby="local-models-title" tabIndex={-1}>
      <h3 class="settings-section" id="local-models-title">{t("localModels.title")}</h3>
      <p class="settings-path">{t(props.backend.transport === "tauri" ? "localModels.lead" : "localModels.browserLead")}</p>
      <Show when={failure()}>
        {(error) => <p class={`notice notice--${error().kind}`} role="alert" data-testid="local-models-error" data-kind={error().kind}>{error().message}</p>}
      </Show>
      <Show when={notice()}>{(text) => <p class="settings-saved" role="status" data-testid="local-models-notice">{text()}</p>}</Show>
      <Show when={view()} fallback={<p class="settings-path" role="status">{t("localModels.loading")}</p>}>
        {(current) => (
          <>
            <Show when={current().totalMemoryBytes !== undefined && current().freeDiskBytes !== undefined}>
              <p class="settings-path" data-testid="local-models-computer">
                {t("localModels.memory", { memory: humanSize(t, current().totalMemoryBytes ?? 0), disk: humanSize(t, current().freeDiskBytes ?? 0) })}
              </p>
            </Show>
            <ul class="local-model-list">
              {/* Index, not For: a row stays (and keeps its focused button) while its download moves. */}
              <Index each={current().library}>
                {(model) => {
                  const download = () => model().download;
                  const name = () => model().entry.displayName;
                  return (
                    <li class="local-model" data-testid="local-model" data-model-id={model().entry.id}>
                      <div class="local-model-head">
                        <strong>{name()}</strong>
                        <Show when={model().recommended}>
                          <span class="local-model-badge" data-testid="local-model-recommended">{t("localModels.recommended")}</span>
                        </Show>
                        <Show when={model().installed}>
                          <span class="local-model-badge local-model-badge--installed" data-testid="local-model-installed">{t("localModels.installed")}</span>
                        </Show>
                      </div>
                      <p class="local-model-facts">
                        {[t("localModels.size", { size: humanSize(t, model().entry.sizeBytes) }), t("localModels.needs", { memory: humanSize(t, model().entry.memoryBytes) }), t("localModels.licence", { licence: model().entry.licence })].join(" · ")}
                      </p>
                      <Show
                        when={isUnderWay(download()) ? download() : undefined}
                        fallback={
                          <div class="provider-form-actions">
                            <Show
                              when={model().installed}
                              fallback={
                                <button type="button" class="plain-button" data-testid="download-local-model" aria-label={t("localModels.downloadNamed", { name: name() })} onClick={() => { startDownload(model()); }}>
                                  {t("localModels.download")}
                                </button>
                              }
                            >
                              {deleteControls(model().entry.id, name(), model().entry.sizeBytes)}
                            </Show>
                          </div>
                        }
                      >
                        {(progress) => (
                          <div class="local-model-download" data-testid="local-model-download" data-status={progress().status}>
                            <progress max="100" value={percent(progress())} aria-label={t("localModels.progress", { name: name() })} data-testid="local-model-progress" />
                            <p class="local-model-progress-line" role="status" data-testid="local-model-progress-line">{progressLine(t, progress())}</p>
                            <Show when={progress().message}>{(message) => <p class="local-model-message" data-testid="local-model-message">{message()}</p>}</Show>
                            <div class="provider-form-actions">
                              <For each={downloadActions(progress().status)}>
                                {(action) => (
                                  <button type="button" class="plain-button" data-testid={`local-model-${action}`} onClick={() => { act(model(), action); }}>
                                    {actionLabel(action)}
                                  </button>
                                )}
                              </For>
                            </div>
                          </div>
                        )}
                      </Show>
                    </li>
                  );
                }}
              </Index>
            </ul>
            <Show when={current().otherInstalled.length > 0}>
              <h4 class="settings-section">{t("localModels.otherModels")}</h4>
              <ul class="local-model-list">
                <For each={current().otherInstalled}>
                  {(model) => (
                    <li class="local-model" data-testid="other-local-model" data-model-id={model.modelId}>
                      <div class="local-model-head"><strong>{model.modelId}</strong></div>
                      <p class="local-model-facts">{[humanSize(t, model.sizeBytes), model.architecture, model.quantization].filter((fact) => fact !== undefined).join(" · ")}</p>
                      <div class="provider-form-actions">{deleteControls(model.modelId, model.modelId, model.sizeBytes)}</div>
                    </li>
                  )}
                </For>
              </ul>
            </Show>
            <Show when={store.addWithDialog !== undefined}>
              <div class="provider-form-actions">
                <button type="button" class="plain-button" data-testid="add-model-file" onClick={() => void addFile()}>{t("localModels.addFile")}</button>
              </div>
              <p class="settings-path">{t("localModels.addFileHint")}</p>
            </Show>
            <p class="settings-path" data-testid="local-models-folder">{t("localModels.folder", { folder: current().modelsFolder })}</p>
          </>
        )}
      </Show>
    </section>
  );
};
