// The sidebar's "Dossier X.Y is ready": an update found by the start-up check (or by a check in
// Settings) is seen without opening Settings. It shows what the shell holds as available (so it
// goes away once the update is installed and Dossier restarts as the new version) unless the
// person dismissed that very version; a newer one shows again. The dismissed version is kept in
// localStorage: it is a preference of this window, not something the shell needs to know.
import { type Accessor, createSignal, onCleanup } from "solid-js";
import type { AvailableUpdate } from "./shell-bindings/AvailableUpdate";
import type { UpdateCommands } from "./updates";

/** Where the version whose notice was dismissed is remembered between launches. */
export const dismissedUpdateKey = "dossier.updateNoticeDismissed";

/** The update to show in the sidebar: the available one, unless its version was dismissed. */
export function noticedUpdate(available: AvailableUpdate | undefined, dismissedVersion: string | null): AvailableUpdate | undefined {
  if (available === undefined || available.version === dismissedVersion) return undefined;
  return available;
}

export interface UpdateNotice {
  /** What the sidebar shows, if anything. */
  shown: Accessor<AvailableUpdate | undefined>;
  /** Hides the notice for this version (a later version shows again). */
  dismiss: (version: string) => void;
  /** Asks the shell again: after Settings closes, a check there may have found or installed one. */
  refresh: () => void;
}

/**
 * Listens for the start-up check's answer and reads what the shell already holds (the check may
 * have finished before the page listened). Without a desktop shell there is never a notice.
 * Call inside a component or root: the listener is dropped with it.
 */
export function createUpdateNotice(commands: UpdateCommands | undefined, storage: Pick<Storage, "getItem" | "setItem">): UpdateNotice {
  const [available, setAvailable] = createSignal<AvailableUpdate | undefined>();
  const [dismissed, setDismissed] = createSignal(storage.getItem(dismissedUpdateKey));
  // An announcement is newer than any status asked for before it: such an answer is dropped.
  let announcements = 0;
  const refresh = () => {
    if (commands === undefined) return;
    const asked = announcements;
    commands.status().then(
      (status) => {
        if (asked === announcements) setAvailable(status.available ?? undefined);
      },
      (error: unknown) => {
        console.warn("could not read whether an update is available", error);
      },
    );
  };
  if (commands !== undefined) {
    onCleanup(
      commands.onAvailable((update) => {
        announcements += 1;
        setAvailable(update);
      }),
    );
    refresh();
  }
  return {
    shown: () => noticedUpdate(available(), dismissed()),
    dismiss: (version) => {
      storage.setItem(dismissedUpdateKey, version);
      setDismissed(version);
    },
    refresh,
  };
}
