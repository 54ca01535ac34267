import { cleanup, fireEvent, render, screen, waitFor } from "@solidjs/testing-library";
import { createComponent } from "solid-js";
import { afterEach, describe, expect, it } from "vitest";
import { Settings } from "../components/Settings";
import { language, LanguageContext } from "./language";
import type { AvailableUpdate } from "./shell-bindings/AvailableUpdate";
import type { DownloadProgress } from "./shell-bindings/DownloadProgress";
import type { RestartPlan } from "./shell-bindings/RestartPlan";
import type { UpdateStatus } from "./shell-bindings/UpdateStatus";
import { BackendError } from "./transport";
import { fakeBackend } from "./transport/fake-backend";
import { initialView, installNote, progressPercent, type UpdateCommands, updateFlow, type UpdateView } from "./updates";

afterEach(cleanup);

const release: AvailableUpdate = { version: "0.2.0", notes: "Faster search.\nSessions open where you left them.", publishedAt: "2026-11-30T12:00:00Z" };

function status(overrides: Partial<UpdateStatus> = {}): UpdateStatus {
  return { currentVersion: "0.1.0", installKind: "appImage", automaticChecks: true, lastCheckedAt: null, available: null, downloaded: false, ...overrides };
}

/** A scripted shell: each command answers from the script and is recorded. */
function fakeCommands(script: {
  found?: AvailableUpdate | null;
  checkFails?: BackendError;
  progress?: DownloadProgress[];
  downloadFails?: BackendError;
  plan?: RestartPlan;
  start?: UpdateStatus;
}) {
  const calls: string[] = [];
  const listeners = new Set<(update: AvailableUpdate) => void>();
  let current = script.start ?? status();
  const commands: UpdateCommands = {
    status: () => Promise.resolve(current),
    setAutomaticChecks: (enabled) => {
      calls.push(`automatic ${String(enabled)}`);
      current = { ...current, automaticChecks: enabled };
      return Promise.resolve(current);
    },
    check: () => {
      calls.push("check");
      return script.checkFails ? Promise.reject(script.checkFails) : Promise.resolve(script.found ?? null);
    },
    download: (onProgress) => {
      calls.push("download");
      for (const step of script.progress ?? []) onProgress(step);
      return script.downloadFails ? Promise.reject(script.downloadFails) : Promise.resolve(release);
    },
    restart: (now) => {
      calls.push(`restart now=${String(now)}`);
      return Promise.resolve(script.plan ?? { plan: "now" });
    },
    onAvailable: (handler) => {
      listeners.add(handler);
      return () => listeners.delete(handler);
    },
  };
  const announce = (update: AvailableUpdate) => {
    for (const listener of listeners) listener(update);
  };
  return { commands, calls, announce, listeners };
}

describe("updateFlow", () => {
  it("goes from a check to the offer, through each progress step, to ready and a restart", async () => {
    const { commands, calls } = fakeCommands({
      found: release,
      progress: [
        { downloaded: 1000, total: 4000 },
        { downloaded: 4000, total: 4000 },
      ],
    });
    const views: UpdateView[] = [];
    const flow = updateFlow(commands, (view) => views.push(view));
    await flow.check();
    expect(views).toEqual([{ step: "checking" }, { step: "available", update: release }]);
    await flow.download();
    expect(views.slice(2).map((view) => [view.step, progressPercent(view)])).toEqual([
      ["downloading", undefined],
      ["downloading", 25],
      ["downloading", 100],
      ["ready", undefined],
    ]);
    await flow.restart(false);
    expect(flow.view()).toEqual({ step: "restarting" });
    expect(calls).toEqual(["check", "download", "restart now=false"]);
  });

  it("says when Dossier is up to date", async () => {
    const flow = updateFlow(fakeCommands({ found: null }).commands, () => undefined);
    await flow.check();
    expect(flow.view()).toEqual({ step: "upToDate" });
  });

  it("keeps the offer and shows why when the signature is refused", async () => {
    const refused = new BackendError({ kind: "invalid", message: "The update was refused because its signature does not match Dossier's signing key" });
    const flow = updateFlow(fakeCommands({ found: release, downloadFails: refused }).commands, () => undefined);
    await flow.check();
    await flow.download();
    expect(flow.view()).toEqual({ step: "failed", error: refused, update: release });
  });

  it("waits for streaming replies, then can be told to restart now", async () => {
    const { commands, calls } = fakeCommands({ plan: { plan: "whenRepliesFinish", streaming: 2 } });
    const flow = updateFlow(commands, () => undefined);
    flow.start(status({ available: release, downloaded: true }));
    expect(flow.view()).toEqual({ step: "ready", update: release });
    await flow.restart(false);
    expect(flow.view()).toEqual({ step: "waitingForReplies", update: release, streaming: 2 });
    await flow.restart(true);
    expect(calls).toEqual(["restart now=false", "restart now=true"]);
  });

  it("takes an update found at start only while nothing else is under way", () => {
    const flow = updateFlow(fakeCommands({}).commands, () => undefined);
    flow.offer(release);
    expect(flow.view()).toEqual({ step: "available", update: release });
    flow.start(status({ available: release, downloaded: true }));
    flow.offer({ ...release, version: "0.3.0" });
    expect(flow.view()).toEqual({ step: "ready", update: release });
  });

  it("reports an unreachable server on a check the person asked for", async () => {
    const offline = new BackendError({ kind: "unavailable", message: "Could not reach the update server: connection refused" });
    const flow = updateFlow(fakeCommands({ checkFails: offline }).commands, () => undefined);
    await flow.check();
    expect(flow.view()).toEqual({ step: "failed", error: offline, update: undefined });
  });
});

describe("helpers", () => {
  it("starts from what the start-up check found", () => {
    expect(initialView(status())).toEqual({ step: "idle" });
    expect(initialView(status({ available: release }))).toEqual({ step: "available", update: release });
    expect(initialView(status({ available: release, downloaded: true }))).toEqual({ step: "ready", update: release });
  });

  it("has no percentage without a known size", () => {
    expect(progressPercent({ step: "downloading", update: release, progress: { downloaded: 10, total: null } })).toBeUndefined();
    expect(progressPercent({ step: "downloading", update: release, progress: undefined })).toBeUndefined();
    expect(progressPercent({ step: "downloading", update: release, progress: { downloaded: 999, total: 1000 } })).toBe(99);
  });

  it("tells .deb, .rpm and source copies how they update, and no one else", () => {
    expect(installNote("deb")).toBe("updates.viaPackageManagerDeb");
    expect(installNote("rpm")).toBe("updates.viaPackageManagerRpm");
    expect(installNote("source")).toBe("updates.fromSource");
    expect(installNote("appImage")).toBeUndefined();
    expect(installNote("windowsInstaller")).toBeUndefined();
  });
});

describe("Settings → Updates", () => {
  const open = (commands: UpdateCommands, locale: "en" | "zh-CN" = "en") =>
    render(() => createComponent(LanguageContext.Provider, { value: language(locale), get children() { return createComponent(Settings, { backend: fakeBackend([]), onClose: () => undefined, onChanged: () => undefined, updates: commands }); } }));

  it("shows the version, finds the update with its notes, downloads with a progress bar and offers the restart", async () => {
    let finishDownload: (() => void) | undefined;
    const { commands, calls } = fakeCommands({ found: release });
    commands.download = (onProgress) => {
      calls.push("download");
      onProgress({ downloaded: 3000, total: 4000 });
      return new Promise((resolve) => {
        finishDownload = () => {
          resolve(release);
        };
      });
    };
    open(commands);
    expect((await screen.findByTestId("current-version")).textContent).toContain("This is Dossier 0.1.0.");
    fireEvent.click(screen.getByTestId("check-updates"));
    const offer = await screen.findByTestId("update-available");
    expect(offer.textContent).toContain("Dossier 0.2.0 is ready");
    expect(screen.getByTestId("update-notes").textContent).toBe(release.notes);

    fireEvent.click(screen.getByTestId("download-update"));
    const bar = await screen.findByTestId("update-progress");
    expect((bar as HTMLProgressElement).value).toBe(75);
    expect(offer.textContent).toContain("Downloading… 75%");

    finishDownload?.();
    fireEvent.click(await screen.findByTestId("restart-to-update"));
    await screen.findByTestId("update-restarting");
    expect(calls).toEqual(["check", "download", "restart now=false"]);
  });

  it("shows a refused signature in plain words and offers the download again", async () => {
    const refused = new BackendError({ kind: "invalid", message: "The update was refused because its signature does not match Dossier's signing key, so it may have been damaged or altered. Nothing was installed." });
    open(fakeCommands({ start: status({ available: release }), downloadFails: refused }).commands);
    fireEvent.click(await screen.findByTestId("download-update"));
    const alert = await screen.findByTestId("update-error");
    expect(alert.textContent).toBe(refused.message);
    expect(alert.dataset.kind).toBe("invalid");
    expect(screen.getByTestId("download-update")).toBeTruthy();
    expect(screen.queryByTestId("restart-to-update")).toBeNull();
  });

  it("turns automatic checks off and tells a .deb install that the package manager does the update", async () => {
    const { commands, calls } = fakeCommands({ start: status({ installKind: "deb" }) });
    open(commands, "zh-CN");
    expect((await screen.findByTestId("update-install-note")).textContent).toContain("dpkg");
    const box = screen.getByTestId<HTMLInputElement>("automatic-update-checks");
    expect(box.checked).toBe(true);
    fireEvent.click(box);
    await waitFor(() => {
      expect(calls).toEqual(["automatic false"]);
    });
    expect(box.checked).toBe(false);
  });

  it("a copy built from source can check but offers no download", async () => {
    open(fakeCommands({ start: status({ installKind: "source", available: release }) }).commands);
    expect((await screen.findByTestId("update-install-note")).textContent).toContain("built from source");
    expect(screen.getByTestId("update-available").textContent).toContain("Dossier 0.2.0 is ready");
    expect(screen.queryByTestId("download-update")).toBeNull();
  });

  it("shows an update the start-up check finds while Settings is open, and stops listening when closed", async () => {
    const { commands, announce, listeners } = fakeCommands({});
    const view = open(commands);
    await screen.findByTestId("check-updates");
    announce(release);
    expect((await screen.findByTestId("update-available")).textContent).toContain("Dossier 0.2.0 is ready");
    view.unmount();
    expect(listeners.size).toBe(0);
  });

  it("says it waits for replies being written", async () => {
    open(fakeCommands({ start: status({ available: release, downloaded: true }), plan: { plan: "whenRepliesFinish", streaming: 1 } }).commands);
    fireEvent.click(await screen.findByTestId("restart-to-update"));
    expect((await screen.findByTestId("update-waiting")).textContent).toBe("Replies still being written: 1. Dossier restarts as soon as they finish.");
    expect(screen.getByTestId("restart-now")).toBeTruthy();
  });
});
