// The page the window opens on when the ledger could not be opened (src-tauri/src/start_up_problem.rs):
// what happened in the core's words (which copy is safe, what to do), the data folder, and the
// buttons that work without a ledger — "Open read-only" for sessions a newer Dossier saved,
// "Restore the newest good backup" for a damaged file (the shell keeps the damaged file aside and
// opens the restored one), "Open data folder" and "Quit". Nothing here writes to the refused file.
import { type Component, createSignal, Show } from "solid-js";
import type { Translate } from "../lib/i18n";
import type { MessageKey } from "../lib/i18n";
import type { ReadOnlyLedger } from "../lib/bindings/ReadOnlyLedger";
import type { ProblemKind } from "../lib/shell-bindings/ProblemKind";
import type { StartUpProblem as Problem } from "../lib/shell-bindings/StartUpProblem";
import type { StartUpCommands } from "../lib/start-up";
import { type BackendError, toBackendError } from "../lib/transport";

export interface StartUpProblemProps {
  t: Translate;
  problem: Problem;
  commands: StartUpCommands;
  /** The ledger opened (read-only, or restored and writable): the app takes over the window. */
  onOpened: (readOnly: ReadOnlyLedger | null) => void;
}

const titles: Readonly<Record<ProblemKind, MessageKey>> = {
  newerDatabase: "startUpNewerTitle",
  migrationFailed: "startUpMigrationTitle",
  damagedDatabase: "startUpDamagedTitle",
  other: "startUpOtherTitle",
};

export const StartUpProblem: Component<StartUpProblemProps> = (props) => {
  const [working, setWorking] = createSignal(false);
  const [failure, setFailure] = createSignal<BackendError | undefined>();
  const run = async (action: () => Promise<void>) => {
    setFailure(undefined);
    setWorking(true);
    try {
      await action();
    } catch (error) {
      setFailure(toBackendError(error));
    } finally {
      setWorking(false);
    }
  };
  const openReadOnly = async () => {
    props.onOpened(await props.commands.openReadOnly());
  };
  const restoreNewest = async () => {
    await props.commands.restoreNewestBackup();
    props.onOpened(null);
  };
  const openDataFolder = () => props.commands.openDataFolder();
  const quit = () => props.commands.quit();
  const maker = () => {
    const version = props.problem.madeBy;
    return version === null ? props.t("startUpNewerMaker") : props.t("startUpMaker", { version });
  };

  return (
    <main class="start-up" data-testid="start-up-problem" data-kind={props.problem.kind} aria-labelledby="start-up-title">
      <h1 class="start-up-title" id="start-up-title">{props.t(titles[props.problem.kind])}</h1>
      <Show when={props.problem.kind === "newerDatabase"}>
        <p class="start-up-lead" data-testid="start-up-made-by">{props.t("startUpNewerLead", { maker: maker() })}</p>
      </Show>
      <section class="start-up-details" aria-label={props.t("startUpWhatHappened")}>
        <p class="start-up-message" data-testid="start-up-message">{props.problem.message}</p>
        <Show when={props.problem.safeCopy}>
          {(path) => <p class="start-up-path" data-testid="start-up-safe-copy">{props.t("startUpSafeCopy", { path: path() })}</p>}
        </Show>
        <p class="start-up-path" data-testid="start-up-data-folder">{props.t("startUpDataFolder", { folder: props.problem.dataFolder })}</p>
        <Show when={props.problem.kind === "damagedDatabase" && props.problem.safeCopy === null}>
          <p class="start-up-note" data-testid="start-up-no-good-backup">{props.t("startUpNoGoodBackup")}</p>
        </Show>
      </section>
      <div class="start-up-actions">
        <Show when={props.problem.kind === "newerDatabase"}>
          <button
            type="button"
            class="plain-button start-up-primary"
            data-testid="open-read-only"
            disabled={working()}
            title={props.t("startUpOpenReadOnlyHint", { maker: maker() })}
            onClick={() => void run(openReadOnly)}
          >
            {props.t("startUpOpenReadOnly")}
          </button>
        </Show>
        <Show when={props.problem.kind === "damagedDatabase" ? props.problem.safeCopy : null}>
          {(path) => (
            <button
              type="button"
              class="plain-button start-up-primary"
              data-testid="restore-newest-backup"
              disabled={working()}
              title={props.t("startUpRestoreNewestHint", { path: path() })}
              onClick={() => void run(restoreNewest)}
            >
              {working() ? props.t("startUpRestoring") : props.t("startUpRestoreNewest")}
            </button>
          )}
        </Show>
        <button type="button" class="plain-button" data-testid="start-up-open-folder" disabled={working()} onClick={() => void run(openDataFolder)}>
          {props.t("startUpOpenFolder")}
        </button>
        <button type="button" class="plain-button" data-testid="start-up-quit" onClick={() => void run(quit)}>
          {props.t("startUpQuit")}
        </button>
      </div>
      <Show when={failure()}>
        {(error) => <p class="notice notice--error" role="alert" data-testid="start-up-failure">{error().message}</p>}
      </Show>
    </main>
  );
};
