// Settings → Data, "Move data folder…" and, after a move, "Remove the old copy?". Rendered by
// DataSettings in the desktop app only; the shell does the work (commands/data/folder_move.rs).
import { type Component, createSignal, Match, Show, Switch } from "solid-js";
import { type FolderMoveCommands, folderMoveFlow, type FolderMoveView } from "../lib/data-folder-move";
import type { Translate } from "../lib/i18n";
import type { DataOverview } from "../lib/shell-bindings/DataOverview";

export interface DataFolderMoveProps {
  t: Translate;
  overview: DataOverview;
  commands: FolderMoveCommands;
  refresh: () => void;
}

export const DataFolderMove: Component<DataFolderMoveProps> = (props) => {
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
        fallback={<p class="settings-path" data-testid="data-folder-fixed">{props.t("dataMoveFixed")}</p>}
      >
        <div class="provider-form-actions">
          <button type="button" class="plain-button" data-testid="move-data-folder" disabled={busy()} onClick={() => void flow.move()}>{props.t("dataMove")}</button>
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
            <progress data-testid="data-move-progress" aria-label={props.t("dataMoving")} /> {props.t("dataMoving")}
          </p>
        </Match>
        <Match when={moved()}>
          {(folder) => <p class="settings-saved" role="status" data-testid="data-moved">{props.t("dataMoved", { folder: folder() })}</p>}
        </Match>
        <Match when={removed()}>
          {(done) => (
            <p class="settings-saved" role="status" data-testid="data-previous-removed">
              {props.t(done().folderRemoved ? "dataPreviousRemovedWithFolder" : "dataPreviousRemoved", { folder: done().folder, count: done().files })}
            </p>
          )}
        </Match>
      </Switch>
      <Show when={props.overview.location.previousFolder}>
        {(previous) => (
          <div class="update-offer" data-testid="data-previous-folder" data-folder={previous()}>
            <p class="confirm-text">{props.t("dataPreviousAsk", { folder: previous() })}</p>
            <button type="button" class="danger-button" data-testid="remove-previous-folder" disabled={busy()} onClick={() => void flow.removePrevious()}>{props.t("dataPreviousRemove")}</button>
            <button type="button" class="plain-button" data-testid="keep-previous-folder" disabled={busy()} onClick={() => void flow.keepPrevious()}>{props.t("dataPreviousKeep")}</button>
          </div>
        )}
      </Show>
    </div>
  );
};
