// Settings → Data: the shell's commands behind "Back up now", "Restore from a backup…" and "Open
// data folder" (src-tauri/src/commands/data.rs), and the one state the section renders. Desktop
// only: the backup and the restore replace files beside the ledger, which a browser page cannot
// reach; the browser build says so instead of showing buttons that could not work.
import { invoke, isTauri } from "@tauri-apps/api/core";
import type { BackupOutcome } from "./shell-bindings/BackupOutcome";
import type { ChosenRestore } from "./shell-bindings/ChosenRestore";
import type { CommandName } from "./shell-bindings/CommandName";
import type { DataOverview } from "./shell-bindings/DataOverview";
import { type BackendError, toBackendError } from "./transport";

/** The shell's data commands; a fake in tests. */
export interface DataCommands {
  overview: () => Promise<DataOverview>;
  backUpNow: () => Promise<BackupOutcome>;
  chooseBackup: () => Promise<ChosenRestore>;
  /** Restores the chosen backup; the app then restarts to open it. */
  restoreChosen: () => Promise<void>;
  openFolder: () => Promise<void>;
}

async function call<T>(command: CommandName): Promise<T> {
  try {
    return await invoke<T>(command);
  } catch (error) {
    throw toBackendError(error);
  }
}

/** The shell's commands when the page runs in the desktop app; nothing in a browser. */
export function desktopDataCommands(): DataCommands | undefined {
  if (!isTauri()) return undefined;
  return {
    overview: () => call("data_overview"),
    backUpNow: () => call("back_up_now"),
    chooseBackup: () => call("choose_backup"),
    restoreChosen: () => call("restore_chosen_backup"),
    openFolder: () => call("open_data_folder"),
  };
}

/** What the section shows besides the overview. */
export type DataView =
  | { step: "idle" }
  | { step: "backingUp" }
  | { step: "backedUp"; path: string }
  | { step: "choosing" }
  | { step: "confirming"; path: string; sessions: number }
  | { step: "restoring" }
  | { step: "failed"; error: BackendError };

/** The steps behind the section's buttons; each moves the view on with the shell's answer. */
export function dataFlow(commands: DataCommands, show: (view: DataView) => void, refresh: () => void) {
  const fail = (error: unknown) => {
    show({ step: "failed", error: toBackendError(error) });
  };
  return {
    backUp: async () => {
      show({ step: "backingUp" });
      try {
        const outcome = await commands.backUpNow();
        show(outcome.outcome === "saved" ? { step: "backedUp", path: outcome.path } : { step: "idle" });
      } catch (error) {
        fail(error);
      }
    },
    choose: async () => {
      show({ step: "choosing" });
      try {
        const chosen = await commands.chooseBackup();
        show(chosen.outcome === "chosen" ? { step: "confirming", path: chosen.path, sessions: chosen.sessions } : { step: "idle" });
      } catch (error) {
        fail(error);
      }
    },
    restore: async () => {
      show({ step: "restoring" });
      try {
        // The app restarts into the restored ledger; the page goes with it.
        await commands.restoreChosen();
      } catch (error) {
        fail(error);
        refresh();
      }
    },
    cancel: () => {
      show({ step: "idle" });
    },
  };
}
