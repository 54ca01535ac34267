// The start-up page's commands (src-tauri/src/commands/start_up.rs): what the window shows
// first — the page that explains why the ledger could not be opened, or the app, read-only or
// not — and the page's buttons. Desktop only: a browser talks to a server that refuses to start
// on such a database, so it never gets here.
import { invoke, isTauri } from "@tauri-apps/api/core";
import type { ReadOnlyLedger } from "./bindings/ReadOnlyLedger";
import type { CommandName } from "./shell-bindings/CommandName";
import type { StartUpState } from "./shell-bindings/StartUpState";
import { toBackendError } from "./transport";

/** The shell's start-up commands; a fake in tests. */
export interface StartUpCommands {
  state: () => Promise<StartUpState>;
  /** "Open read-only": offered for sessions a newer Dossier saved. */
  openReadOnly: () => Promise<ReadOnlyLedger>;
  /** "Restore the newest good backup": offered for a damaged file when a good backup was found. */
  restoreNewestBackup: () => Promise<void>;
  openDataFolder: () => Promise<void>;
  quit: () => Promise<void>;
}

async function call<T>(command: CommandName): Promise<T> {
  try {
    return await invoke<T>(command);
  } catch (error) {
    throw toBackendError(error);
  }
}

/** The shell's commands when the page runs in the desktop app; nothing in a browser. */
export function desktopStartUpCommands(): StartUpCommands | undefined {
  if (!isTauri()) return undefined;
  return {
    state: () => call("start_up_state"),
    openReadOnly: () => call("open_read_only"),
    restoreNewestBackup: () => call("restore_newest_backup"),
    openDataFolder: () => call("open_start_up_data_folder"),
    quit: () => call("quit_dossier"),
  };
}

/** What a browser, or a shell that could not say, starts with: the app, writable. */
export const openedNormally: StartUpState = { problem: null, readOnly: null };

/** The state to start with; a failed question is taken as "opened normally", since every command then says what is wrong. */
export async function startUpState(commands: StartUpCommands | undefined): Promise<StartUpState> {
  if (commands === undefined) return openedNormally;
  try {
    return await commands.state();
  } catch (error) {
    console.error("could not ask how the ledger opened", error);
    return openedNormally;
  }
}
