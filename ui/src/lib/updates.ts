// Settings → Updates: what the section shows and the steps behind its buttons. The shell does the
// work (src-tauri/src/updates.rs: check, signed download, restart when no reply is streaming);
// this module holds the one state the section renders and moves it on each answer. Desktop only:
// the updater replaces the app, which the browser build is not.
import { Channel, invoke, isTauri } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import type { AvailableUpdate } from "./shell-bindings/AvailableUpdate";
import type { DownloadProgress } from "./shell-bindings/DownloadProgress";
import type { InstallKind } from "./shell-bindings/InstallKind";
import type { RestartPlan } from "./shell-bindings/RestartPlan";
import type { UpdateStatus } from "./shell-bindings/UpdateStatus";
import type { MessageKey } from "./i18n";
import { type BackendError, tauriEventNames, toBackendError } from "./transport";
import type { CommandName } from "./shell-bindings/CommandName";

/** The shell's update commands; a fake in tests. */
export interface UpdateCommands {
  status: () => Promise<UpdateStatus>;
  setAutomaticChecks: (enabled: boolean) => Promise<UpdateStatus>;
  check: () => Promise<AvailableUpdate | null>;
  download: (onProgress: (progress: DownloadProgress) => void) => Promise<AvailableUpdate>;
  restart: (now: boolean) => Promise<RestartPlan>;
  /** The start-up check found an update (it may finish while Settings is open); returns the unsubscribe. */
  onAvailable: (handler: (update: AvailableUpdate) => void) => () => void;
}

/** The shell's event for `onAvailable` (the generated `EventName`, via `tauriEventNames`). */
export const UPDATE_AVAILABLE_EVENT = tauriEventNames.updateAvailable;

async function call<T>(command: CommandName, args: Record<string, unknown> = {}): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (error) {
    throw toBackendError(error);
  }
}

/** The shell's commands when the page runs in the desktop app; nothing elsewhere (a browser, tests). */
export function desktopUpdateCommands(): UpdateCommands | undefined {
  return isTauri() ? tauriUpdateCommands() : undefined;
}

export function tauriUpdateCommands(): UpdateCommands {
  return {
    status: () => call("update_status"),
    setAutomaticChecks: (enabled) => call("set_automatic_update_checks", { enabled }),
    check: () => call("check_for_update"),
    download: (onProgress) => {
      const channel = new Channel<DownloadProgress>();
      channel.onmessage = onProgress;
      return call("download_update", { onProgress: channel });
    },
    restart: (now) => call("restart_to_update", { now }),
    onAvailable: (handler) => {
      let stopped = false;
      let unlisten: (() => void) | undefined;
      listen<AvailableUpdate>(UPDATE_AVAILABLE_EVENT, (event) => {
        handler(event.payload);
      }).then(
        (stop) => {
          if (stopped) stop();
          else unlisten = stop;
        },
        (error: unknown) => {
          console.warn("cannot hear about updates found at start", error);
        },
      );
      return () => {
        stopped = true;
        unlisten?.();
      };
    },
  };
}

/** Stands in where there is no shell (the section is then not shown, so nothing calls it). */
export const noUpdateCommands: UpdateCommands = {
  status: () => Promise.reject(new Error("no desktop shell")),
  setAutomaticChecks: () => Promise.reject(new Error("no desktop shell")),
  check: () => Promise.reject(new Error("no desktop shell")),
  download: () => Promise.reject(new Error("no desktop shell")),
  restart: () => Promise.reject(new Error("no desktop shell")),
  onAvailable: () => () => undefined,
};

/** What the Updates section shows. */
export type UpdateView =
  | { step: "idle" }
  | { step: "checking" }
  | { step: "upToDate" }
  | { step: "available"; update: AvailableUpdate }
  | { step: "downloading"; update: AvailableUpdate; progress: DownloadProgress | undefined }
  | { step: "ready"; update: AvailableUpdate }
  | { step: "restarting" }
  | { step: "waitingForReplies"; update: AvailableUpdate; streaming: number }
  | { step: "failed"; error: BackendError; update: AvailableUpdate | undefined };

/** The update a view is about, if any. */
export function updateOf(view: UpdateView): AvailableUpdate | undefined {
  return "update" in view ? view.update : undefined;
}

/** The error a failed step shows. */
export function failureOf(view: UpdateView): BackendError | undefined {
  return view.step === "failed" ? view.error : undefined;
}

/** Replies the restart is waiting for (0 when it is not waiting). */
export function streamingOf(view: UpdateView): number {
  return view.step === "waitingForReplies" ? view.streaming : 0;
}

/** Where Settings starts: an update the start-up check (or an earlier visit) found is shown at once. */
export function initialView(status: UpdateStatus): UpdateView {
  if (status.available === null) return { step: "idle" };
  return status.downloaded ? { step: "ready", update: status.available } : { step: "available", update: status.available };
}

/** Whole percent of a download, or undefined while the size is unknown (the bar then shows activity only). */
export function progressPercent(view: UpdateView): number | undefined {
  if (view.step !== "downloading") return undefined;
  const progress = view.progress;
  if (progress === undefined || progress.total === null || progress.total <= 0) return undefined;
  return Math.min(100, Math.floor((progress.downloaded / progress.total) * 100));
}

/** What a person should know about how this copy updates, if anything. */
export function installNote(kind: InstallKind): MessageKey | undefined {
  switch (kind) {
    case "deb":
      return "updates.viaPackageManagerDeb";
    case "rpm":
      return "updates.viaPackageManagerRpm";
    case "source":
      return "updates.fromSource";
    default:
      return undefined;
  }
}

/**
 * The section's steps. Each button runs one of these; `show` receives every view in order, so the
 * progress bar moves while the download runs and a failure keeps the update it was about.
 */
export function updateFlow(commands: UpdateCommands, show: (view: UpdateView) => void) {
  let current: UpdateView = { step: "idle" };
  const set = (view: UpdateView) => {
    current = view;
    show(view);
  };
  const fail = (error: unknown, update: AvailableUpdate | undefined) => {
    set({ step: "failed", error: toBackendError(error), update });
  };

  return {
    view: () => current,
    start: (status: UpdateStatus) => {
      set(initialView(status));
    },
    /** An update the start-up check found: shown unless the person is already past that point. */
    offer: (update: AvailableUpdate) => {
      if (current.step === "idle" || current.step === "upToDate") set({ step: "available", update });
    },
    check: async () => {
      set({ step: "checking" });
      try {
        const found = await commands.check();
        set(found === null ? { step: "upToDate" } : { step: "available", update: found });
      } catch (error) {
        fail(error, undefined);
      }
    },
    download: async () => {
      const update = updateOf(current);
      if (update === undefined) return;
      set({ step: "downloading", update, progress: undefined });
      try {
        await commands.download((progress) => {
          if (current.step === "downloading") set({ ...current, progress });
        });
        set({ step: "ready", update });
      } catch (error) {
        // A refused signature or a broken connection: nothing was installed, the offer stays.
        fail(error, update);
      }
    },
    restart: async (now: boolean) => {
      const update = updateOf(current);
      try {
        const plan = await commands.restart(now);
        if (plan.plan === "whenRepliesFinish" && update !== undefined) {
          set({ step: "waitingForReplies", update, streaming: plan.streaming });
        } else {
          set({ step: "restarting" });
        }
      } catch (error) {
        fail(error, update);
      }
    },
  };
}

export type UpdateFlow = ReturnType<typeof updateFlow>;
