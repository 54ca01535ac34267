// The page the window opens on when the ledger could not be opened (src-tauri/src/start_up_problem.rs):
// what happened in the core's words (which copy is safe, what to do), the data folder, and the
// buttons that work without a ledger — "Open read-only" for sessions a newer Dossier saved,
// "Restore the newest good backup" for a damaged file (the shell keeps the damaged file aside and
// opens the restored one), "Open data folder" and "Quit". Nothing here writes to the refused file.
import { type Component, createSignal, Show } from "solid-js";

import type { MessageKey } from "../lib/i18n";
import type { ReadOnlyLedger } from "../lib/bindings/ReadOnlyLedger";
import type { ProblemKind } from "../lib/shell-bindings/ProblemKind";
import type { StartUpProblem as Problem } from "../lib/shell-bindings/StartUpProblem";
import type { StartUpCommands } from "../lib/start-up";
import { type BackendError, toBackendError } from "../lib/transport";
import { useLanguage } from "../lib/language";

export interface StartUpProblemProps {
  problem: Problem;
  commands: StartUpCommands;
  /** The ledger opened (read-only, or restored and writable): the app takes over the window. */
  onOpened: (readOnly: ReadOnlyLedger | null) => void;
}

const titles: Readonly<Record<ProblemKind, MessageKey>> = {
  newerDatabase: "startUp.newerTitle",
  migrationFailed: "startUp.migrationTitle",
  damagedDatabase: "startUp.damagedTitle",
  other: "startUp.otherTitle",
};

export const StartUpProblem: Component<StartUpProblemProps> = (props) => {
  const { t } = useLanguage();
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
    return version === null ? t("startUp.newerMaker") : t("startUp.maker", { version });
  };

  return (
    <main class="start-up" data-testid="start-up-problem" data-kind={props.problem.kind} aria-labelledby="start-up-title">
      <h1 class="start-up-title" id="start-up-title">{t(titles[props.problem.kind])}</h1>
      <Show when={props.problem.kind === "newerDatabase"}>
        <p class="start-up-lead" data-testid="start-up-made-by">{t("startUp.newerLead", { maker: maker() })}</p>
      </Show>
      <section class="start-up-details" aria-label={t("startUp.whatHappened")}>
        <p class="start-up-message" data-testid="start-up-message">{props.problem.message}</p>
        <Show when={props.problem.safeCopy}>
          {(path) => <p class="start-up-path" data-testid="start-up-safe-copy">{t("startUp.safeCopy", { path: path() })}</p>}
        </Show>
        <p class="start-up-path" data-testid="start-up-data-folder">{t("startUp.dataFolder", { folder: props.problem.dataFolder })}</p>
        <Show when={props.problem.kind === "damagedDatabase" && props.problem.safeCopy === null}>
          <p class="start-up-note" data-testid="start-up-no-good-backup">{t("startUp.noGoodBackup")}</p>
        </Show>
      </section>
      <div class="start-up-actions">
        <Show when={props.problem.kind === "newerDatabase"}>
          <button
            type="button"
            class="plain-button start-up-primary"
            data-testid="open-read-only"
            disabled={working()}
            title={t("startUp.openReadOnlyHint", { maker: maker() })}
            onClick={() => void run(openReadOnly)}
          >
            {t("startUp.openReadOnly")}
          </button>
        </Show>
        <Show when={props.problem.kind === "damagedDatabase" ? props.problem.safeCopy : null}>
          {(path) => (
            <button
              type="button"
              class="plain-button start-up-primary"
              data-testid="restore-newest-backup"
              disabled={working()}
              title={t("startUp.restoreNewestHint", { path: path() })}
              onClick={() => void run(restoreNewest)}
            >
              {working() ? t("startUp.restoring") : t("startUp.restoreNewest")}
            </button>
          )}
        </Show>
        <button type="button" class="plain-button" data-testid="start-up-open-folder" disabled={working()} onClick={() => void run(openDataFolder)}>
          {t("startUp.openFolder")}
        </button>
        <button type="button" class="plain-button" data-testid="start-up-quit" onClick={() => void run(quit)}>
          {t("startUp.quit")}
        </button>
      </div>
      <Show when={failure()}>
        {(error) => <p class="notice notice--error" role="alert" data-testid="start-up-failure">{error().message}</p>}
      </Show>
    </main>
  );
};
