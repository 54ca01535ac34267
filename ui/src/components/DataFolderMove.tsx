// Settings → Data, "Move data folder…" and, after a move, "Remove the old copy?". Rendered by
// DataSettings in the desktop app only; the shell does the work (commands/data/folder_move.rs).
import { type Component, createSignal, Match, Show, Switch } from "solid-js";
import { type FolderMoveCommands, folderMoveFlow, type FolderMoveView } from "../lib/data-folder-move";

import type { DataOverview } from "../lib/shell-bindings/DataOverview";
import { useLanguage } from "../lib/language";

export interface DataFolderMoveProps {
  overview: DataOverview;
  commands: FolderMoveCommands;
  refresh: () => void;
}

export const DataFolderMove: Component<DataFolderMoveProps> = (props) => {
  const { t } = useLanguage();
  const [view, setView] = createSignal<FolderMoveView>({ step: "idle" });
  // eslint-disable-next-line solid/reactivity -- the commands are chosen once, for the app's lifetime
  const flow = folderMoveFlow(props.commands, setView, () => { props.refresh(); });
  const busy = () => ["moving", "removing"].includes(view().step);
  const failure = () => {
    const current = view();
    return current.step === "failed" ? current.error : undefined;
  };
  const moved = () => {
    const current = view();
    return current.step === "moved" ? current.folder : undefined;
  };
  const removed = () => {
    const current = view();
    return current.step === "removed" ? current : undefined;
  };

  return (
    <div class="settings-data-move" data-testid="data-folder-move">
      <Show
        when={props.overview.location.movable}
        fallback={<p class="settings-path" data-testid="data-folder-fixed">{t("data.moveFixed")}</p>}
      >
        <div class="provider-form-actions">
          <button type="button" class="plain-button" data-testid="move-data-folder" disabled={busy()} onClick={() => void flow.move()}>{t("data.move")}</button>
        </div>
      </Show>
      <Switch>
        <Match when={failure()}>
          {(error) => (
            <p class={`notice notice--${error().kind}`} role="alert" data-testid="data-move-error" data-kind={error().kind}>
              {error().message}
            </p>
          )}
        </Match>
        <Match when={view().step === "moving"}>
          <p class="settings-path" role="status">
            <progress data-testid="data-move-progress" aria-label={t("data.moving")} /> {t("data.moving")}
          </p>
        </Match>
        <Match when={moved()}>
          {(folder) => <p class="settings-saved" role="status" data-testid="data-moved">{t("data.moved", { folder: folder() })}</p>}
        </Match>
        <Match when={removed()}>
          {(done) => (
            <p class="settings-saved" role="status" data-testid="data-previous-removed">
              {t(done().folderRemoved ? "data.previousRemovedWithFolder" : "data.previousRemoved", { folder: done().folder, count: done().files })}
            </p>
          )}
        </Match>
      </Switch>
      <Show when={props.overview.location.previousFolder}>
        {(previous) => (
          <div class="update-offer" data-testid="data-previous-folder" data-folder={previous()}>
            <p class="confirm-text">{t("data.previousAsk", { folder: previous() })}</p>
            <button type="button" class="danger-button" data-testid="remove-previous-folder" disabled={busy()} onClick={() => void flow.removePrevious()}>{t("data.previousRemove")}</button>
            <button type="button" class="plain-button" data-testid="keep-previous-folder" disabled={busy()} onClick={() => void flow.keepPrevious()}>{t("data.previousKeep")}</button>
          </div>
        )}
      </Show>
    </div>
  );
};
