// What Settings → Models on this computer says about a model and its download, as pure
// functions: the progress line (bytes of total, and speed and time left only while bytes arrive —
// a stalled download says it waits for the server, never a frozen speed), which buttons a
// download offers, and whether a dropped file is a model to add rather than an attachment.
import { humanSize, type MessageKey, type Translate } from "./i18n";
import type { ModelDownloadProgress } from "./bindings/ModelDownloadProgress";
import type { ModelDownloadStatus } from "./bindings/ModelDownloadStatus";

const statusKeys: Record<ModelDownloadStatus, MessageKey> = {
  connecting: "localModels.connecting",
  downloading: "localModels.downloading",
  waiting_for_server: "localModels.waitingForServer",
  paused: "localModels.paused",
  verifying: "localModels.verifying",
  installed: "localModels.installed",
  failed: "localModels.failed",
  cancelled: "localModels.cancelled",
};

/** "2 min 5 s", "45 s", "1 h 3 min". */
export function timeLeft(t: Translate, seconds: number): string {
  if (seconds < 60) return t("localModels.seconds", { count: seconds });
  if (seconds < 3600) return t("localModels.minutes", { minutes: Math.floor(seconds / 60), seconds: seconds % 60 });
  return t("localModels.hours", { hours: Math.floor(seconds / 3600), minutes: Math.floor((seconds % 3600) / 60) });
}

/** The line under a download's progress bar. */
export function progressLine(t: Translate, progress: ModelDownloadProgress): string {
  const amount = t("localModels.amount", { received: humanSize(t, progress.receivedBytes), total: humanSize(t, progress.totalBytes) });
  const parts = [amount, t(statusKeys[progress.status])];
  if (progress.status === "downloading" && progress.bytesPerSecond !== undefined) {
    parts[1] = t("localModels.speed", { speed: humanSize(t, progress.bytesPerSecond) });
    if (progress.secondsLeft !== undefined) parts.push(t("localModels.left", { time: timeLeft(t, progress.secondsLeft) }));
  }
  return parts.join(" · ");
}

/** Percent for the progress bar, 0–100. */
export function percent(progress: ModelDownloadProgress): number {
  if (progress.totalBytes <= 0) return 0;
  return Math.min(100, Math.floor((progress.receivedBytes * 100) / progress.totalBytes));
}

export type DownloadAction = "pause" | "resume" | "cancel";

/** The buttons a download offers in its state. */
export function downloadActions(status: ModelDownloadStatus): DownloadAction[] {
  switch (status) {
    case "connecting":
    case "downloading":
    case "waiting_for_server":
      return ["pause", "cancel"];
    case "paused":
    case "failed":
      return ["resume", "cancel"];
    case "verifying":
    case "installed":
    case "cancelled":
      return [];
  }
}

/** Whether the download is still under way (shown with its bar and buttons). */
export function isUnderWay(progress: ModelDownloadProgress | undefined): progress is ModelDownloadProgress {
  return progress !== undefined && progress.status !== "installed" && progress.status !== "cancelled";
}

/** A dropped or picked file that is a model to add to the library, not a file to attach. */
export function isModelFile(name: string): boolean {
  return name.toLowerCase().endsWith(".gguf");
}
