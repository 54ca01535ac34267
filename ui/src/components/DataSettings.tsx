// Settings → Data: back up now, restore from a backup, the automatic backups and the data folder.
// The shell does the work (src-tauri/src/commands/data.rs); this section shows its answers. In a
// browser it says that backups are made in the desktop app, with no buttons that could not work.
// In the desktop window attached to a Dossier server it all still acts on this computer's own
// ledger, not the server's sessions on screen, and it says so first.
import { type Component, createSignal, For, Match, onMount, Show, Switch } from "solid-js";
import { type DataCommands, dataFlow, type DataView, desktopDataCommands } from "../lib/data-folder";
import { desktopFolderMoveCommands, type FolderMoveCommands } from "../lib/data-folder-move";
import { DataFolderMove } from "./DataFolderMove";
import { humanSize } from "../lib/i18n";
import type { DataOverview } from "../lib/shell-bindings/DataOverview";
import { revealInPlace } from "../lib/keyboard-focus";
import { toBackendError } from "../lib/transport";
import { useLanguage } from "../lib/language";

export interface DataSettingsProps {
  /** The shell's data commands (tests pass a fake); the desktop app's by default, none in a browser. */
  commands?: DataCommands;
  /** The shell's "Move data folder…" commands (tests pass a fake); the desktop app's by default. */
  moveCommands?: FolderMoveCommands;
  /** The window shows a Dossier server's sessions; this section is still this computer's ledger's. */
  attached?: boolean;
}

export const DataSettings: Component<DataSettingsProps> = (props) => {
  const { t } = useLanguage();
  // eslint-disable-next-line solid/reactivity -- chosen once, for the app's lifetime
  const commands = props.commands ?? desktopDataCommands();
  // eslint-disable-next-line solid/reactivity -- chosen once, for the app's lifetime
  const moveCommands = props.moveCommands ?? desktopFolderMoveCommands();
  const [overview, setOverview] = createSignal<DataOverview | undefined>();
  const [view, setView] = createSignal<DataView>({ step: "idle" });
  const refresh = () => {
    commands?.overview().then(setOverview, (error: unknown) => {
      setView({ step: "failed", error: toBackendError(error) });
    });
  };
  const flow = commands === undefined ? undefined : dataFlow(commands, (next) => {
    setView(next);
    if (next.step === "backedUp") refresh();
  }, refresh);
  onMount(refresh);
  const failure = () => {
    const current = view();
    return current.step === "failed" ? current.error : undefined;
  };
  const savedTo = () => {
    const current = view();
    return current.step === "backedUp" ? current.path : undefined;
  };
  const confirming = () => {
    const current = view();
    return current.step === "confirming" ? current : undefined;
  };
  const working = () => ["backingUp", "choosing", "restoring"].includes(view().step);

  return (
    <section class="settings-data" data-testid="data-settings" aria-labelledby="data-title">
      <h3 class="settings-section" id="data-title">{t("data.title")}</h3>
      <Show when={flow} fallback={<p class="notice notice--unavailable" data-testid="data-desktop-only">{t("data.desktopOnly")}</p>}>
        {(steps) => (
          <>
            <Show when={props.attached === true}>
              <p class="settings-path" data-testid="data-attached">{t("data.attachedLead")}</p>
            </Show>
            <Show when={overview()}>
              {(current) => (
                <p class="settings-path" data-testid="data-folder" data-folder={current().dataFolder}>
                  {t(props.attached === true ? "data.folderAttached" : "data.folder", { folder: current().dataFolder })}{" "}
                  <button type="button" class="plain-button" data-testid="open-data-folder" onClick={() => {
                    commands?.openFolder().catch((error: unknown) => {
                      setView({ step: "failed", error: toBackendError(error) });
                    });
                  }}>{t("data.openFolder")}</button>
                </p>
              )}
            </Show>
            <Show when={overview()?.restoreWaiting}>
              <p class="notice notice--busy" role="status" data-testid="data-restore-waiting">{t(props.attached === true ? "data.restoreWaitingAttached" : "data.restoreWaiting")}</p>
            </Show>
            <Show when={moveCommands}>{(move) => <Show when={overview()}>{(current) => <DataFolderMove overview={current()} commands={move()} refresh={refresh} />}</Show>}</Show>
            <Switch>
              <Match when={failure()}>
                {(error) => (
                  <p class={`notice notice--${error().kind}`} role="alert" data-testid="data-error" data-kind={error().kind}>
                    {error().message}
                  </p>
                )}
              </Match>
              <Match when={savedTo()}>
                {(path) => (
                  <p class="settings-saved" role="status" data-testid="backup-saved">
                    {t("data.backedUp", { path: path() })}
                  </p>
                )}
              </Match>
              <Match when={working()}>
                <p class="settings-path" role="status">
                  <progress data-testid="data-progress" aria-label={t("data.working")} /> {view().step === "restoring" ? t(props.attached === true ? "data.restoringAttached" : "data.restoring") : t("data.working")}
                </p>
              </Match>
            </Switch>
            <Show
              when={confirming()}
              fallback={
                <div class="provider-form-actions">
                  <button type="button" class="plain-button" data-testid="back-up-now" disabled={working()} onClick={() => void steps().backUp()}>{t("data.backUpNow")}</button>
                  <button type="button" class="plain-button" data-testid="restore-backup" data-writes disabled={working()} onClick={() => void steps().choose()}>{t("data.restore")}</button>
                </div>
              }
            >
              {(asked) => (
                <div class="update-offer" data-testid="restore-confirm" ref={revealInPlace}>
                  <p class="confirm-text">{t(props.attached === true ? "data.restoreConfirmAttached" : "data.restoreConfirm", { path: asked().path, count: asked().sessions })}</p>
                  <button type="button" class="danger-button" data-testid="confirm-restore" onClick={() => void steps().restore()}>{t("data.restoreNow")}</button>
                  <button type="button" class="plain-button" data-testid="cancel-restore" data-reveal-focus onClick={() => { steps().cancel(); }}>{t("settings.cancel")}</button>
                </div>
              )}
            </Show>
            <h4 class="settings-section">{t("data.automaticBackups")}</h4>
            <Show when={(overview()?.backups.length ?? 0) > 0} fallback={<p class="settings-empty" data-testid="no-backups">{t("data.noBackups")}</p>}>
              <ul class="provider-list" data-testid="backup-list">
                <For each={overview()?.backups ?? []}>
                  {(backup) => (
                    <li class="provider-row" data-testid="backup-row" data-path={backup.path}>
                      <span class="provider-detail">{backup.name}</span>{" "}
                      <span class="provider-detail">{humanSize(t, backup.bytes)}, {new Date(backup.modified).toLocaleString()}</span>
                    </li>
                  )}
                </For>
              </ul>
            </Show>
          </>
        )}
      </Show>
    </section>
  );
};
