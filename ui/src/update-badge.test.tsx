// The sidebar's update notice in the whole app: seen before Settings is opened, opens Settings →
// Updates, reachable from the keyboard, dismissed for one version.
// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from "@solidjs/testing-library";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App } from "./App";
import type { AvailableUpdate } from "./lib/shell-bindings/AvailableUpdate";
import type { UpdateStatus } from "./lib/shell-bindings/UpdateStatus";
import { fakeBackend } from "./lib/transport/fake-backend";
import type { UpdateCommands } from "./lib/updates";

afterEach(cleanup);
beforeEach(() => {
  localStorage.clear();
});

const next: AvailableUpdate = { version: "0.2.0", notes: "Faster search.", publishedAt: null };

/** The shell after a start-up check: `available` is what it holds; `announce` is the check's event. */
function fakeUpdates(available: AvailableUpdate | null) {
  let held = available;
  const listeners = new Set<(update: AvailableUpdate) => void>();
  const status = (): UpdateStatus => ({ currentVersion: "0.1.0", installKind: "deb", automaticChecks: true, lastCheckedAt: null, available: held, downloaded: false });
  const commands: UpdateCommands = {
    status: () => Promise.resolve(status()),
    setAutomaticChecks: () => Promise.resolve(status()),
    check: () => Promise.resolve(held),
    download: () => Promise.reject(new Error("not used here")),
    restart: () => Promise.reject(new Error("not used here")),
    onAvailable: (handler) => {
      listeners.add(handler);
      return () => listeners.delete(handler);
    },
  };
  return {
    commands,
    /** A new release on the server: found by the next check, announced by nobody. */
    publish: (update: AvailableUpdate) => {
      held = update;
    },
    announce: (update: AvailableUpdate) => {
      held = update;
      for (const listener of listeners) listener(update);
    },
  };
}

describe("the update notice in the sidebar", () => {
  it("appears when the start-up check finds an update, before Settings is opened, and opens Settings at Updates", async () => {
    const shell = fakeUpdates(null);
    render(() => <App locale="en" backend={fakeBackend()} updates={shell.commands} />);
    await screen.findByText("No sessions yet");
    expect(screen.queryByTestId("update-badge")).toBeNull();
    shell.announce(next);
    const open = await screen.findByRole("button", { name: "Dossier 0.2.0 is ready" });
    expect(screen.getByTestId("update-badge").dataset.version).toBe("0.2.0");
    expect(screen.queryByTestId("settings")).toBeNull();
    fireEvent.click(open);
    const updates = await screen.findByTestId("updates");
    await waitFor(() => {
      expect(document.activeElement).toBe(updates);
    });
    expect((await screen.findByTestId("update-available")).dataset.version).toBe("0.2.0");
  });

  it("is the app actions' Tab stop, with ←/→ to Import and Settings, and labelled in Chinese too", async () => {
    const shell = fakeUpdates(next);
    render(() => <App locale="zh-CN" backend={fakeBackend()} updates={shell.commands} />);
    const open = await screen.findByRole("button", { name: "Dossier 0.2.0 已就绪" });
    const toolbar = open.closest<HTMLElement>("[role=toolbar]") ?? document.body;
    const stops = Array.from(toolbar.querySelectorAll<HTMLButtonElement>("button")).filter((button) => button.tabIndex === 0);
    expect(stops).toEqual([open]);
    expect(screen.getByRole("button", { name: "不再提示 Dossier 0.2.0" })).toBeTruthy();
    open.focus();
    fireEvent.keyDown(open, { key: "ArrowRight" });
    fireEvent.keyDown(document.activeElement ?? open, { key: "ArrowRight" });
    expect(document.activeElement).toBe(screen.getByTestId("import"));
    expect(open.tabIndex).toBe(-1);
    expect(screen.getByTestId("import").tabIndex).toBe(0);
  });

  it("once dismissed stays hidden for that version, also at the next start, and a newer one shows again", async () => {
    const shell = fakeUpdates(next);
    const first = render(() => <App locale="en" backend={fakeBackend()} updates={shell.commands} />);
    await screen.findByTestId("update-badge");
    const dismiss = screen.getByRole("button", { name: "Hide the notice for Dossier 0.2.0" });
    dismiss.focus();
    fireEvent.click(dismiss);
    await waitFor(() => {
      expect(screen.queryByTestId("update-badge")).toBeNull();
    });
    // Focus stays in the app actions rather than falling to the page.
    await waitFor(() => {
      expect(document.activeElement).toBe(screen.getByTestId("import"));
    });
    first.unmount();

    render(() => <App locale="en" backend={fakeBackend()} updates={shell.commands} />);
    await screen.findByText("No sessions yet");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(screen.queryByTestId("update-badge")).toBeNull();
    shell.announce({ ...next, version: "0.3.0" });
    expect((await screen.findByTestId("update-badge")).dataset.version).toBe("0.3.0");
  });

  it("shows an update a check in Settings found once Settings closes", async () => {
    const shell = fakeUpdates(null);
    render(() => <App locale="en" backend={fakeBackend()} updates={shell.commands} />);
    fireEvent.click(await screen.findByTestId("open-settings"));
    // The release server now has 0.2.0; the person asks in Settings, sees it, and closes Settings.
    shell.publish(next);
    fireEvent.click(await screen.findByTestId("check-updates"));
    await screen.findByTestId("update-available");
    expect(screen.queryByTestId("update-badge")).toBeNull();
    fireEvent.click(screen.getByTestId("close-settings"));
    expect((await screen.findByTestId("update-badge")).dataset.version).toBe("0.2.0");
  });
});
