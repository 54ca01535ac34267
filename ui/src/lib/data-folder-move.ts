// Settings → Data, "Move data folder…": the shell's commands (src-tauri/src/commands/data/
// folder_move.rs) and the one state the part of the section renders. Desktop only: the move copies
// the ledger to a folder on this computer and restarts the app, which a browser page cannot do.
import { invoke, isTauri } from "@tauri-apps/api/core";
import type { PreviousFolderRemoved } from "./bindings/PreviousFolderRemoved";
import type { CommandName } from "./shell-bindings/CommandName";
import type { FolderMoveOutcome } from "./shell-bindings/FolderMoveOutcome";
import { type BackendError, toBackendError } from "./transport";

/** The shell's move commands; a fake in tests. */
export interface FolderMoveCommands {
  /** Asks for the folder and moves there; the app then restarts on it. */
  move: () => Promise<FolderMoveOutcome>;
  removePrevious: () => Promise<PreviousFolderRemoved>;
  keepPrevious: () => Promise<void>;
}

async function call<T>(command: CommandName): Promise<T> {
  try {
    return await invoke<T>(command);
  } catch (error) {
    throw toBackendError(error);
  }
}

/** The shell's commands when the page runs in the desktop app; nothing in a browser. */
export function desktopFolderMoveCommands(): FolderMoveCommands | undefined {
  if (!isTauri()) return undefined;
  return {
    move: () => call("move_data_folder"),
    removePrevious: () => call("remove_previous_data_folder"),
    keepPrevious: () => call("keep_previous_data_folder"),
  };
}

/** What the move's part of the section shows besides the overview. */
export type FolderMoveView =
  | { step: "idle" }
  | { step: "moving" }
  | { step: "moved"; folder: string }
  | { step: "removing" }
  | { step: "removed"; folder: string; files: number; folderRemoved: boolean }
  | { step: "failed"; error: BackendError };

/** The steps behind the buttons; each moves the view on with the shell's answer. */
export function folderMoveFlow(commands: FolderMoveCommands, show: (view: FolderMoveView) => void, refresh: () => void) {
  const fail = (error: unknown) => {
    show({ step: "failed", error: toBackendError(error) });
  };
  return {
    move: async () => {
      show({ step: "moving" });
      try {
        const outcome = await commands.move();
        // Moved: the app restarts on the new folder, and the page goes with it.
        show(outcome.outcome === "moved" ? { step: "moved", folder: outcome.folder } : { step: "idle" });
      } catch (error) {
        fail(error);
      }
    },
    removePrevious: async () => {
      show({ step: "removing" });
      try {
        const removed = await commands.removePrevious();
        show({ step: "removed", folder: removed.folder, files: removed.removed.length, folderRemoved: removed.folderRemoved });
      } catch (error) {
        fail(error);
      }
      refresh();
    },
    keepPrevious: async () => {
      try {
        await commands.keepPrevious();
        show({ step: "idle" });
      } catch (error) {
        fail(error);
      }
      refresh();
    },
  };
}
