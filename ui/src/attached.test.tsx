// The whole app while the desktop window is attached to a Dossier server: the sidebar names the
// server, Settings lists the server's providers read-only, and the app's own updates still reach
// Settings → Updates from the sidebar's notice.
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

const available: AvailableUpdate = { version: "0.2.0", notes: null, publishedAt: null };

const updates: UpdateCommands = {
  status: (): Promise<UpdateStatus> =>
    Promise.resolve({ currentVersion: "0.1.0", installKind: "deb", automaticChecks: true, lastCheckedAt: null, available, downloaded: false }),
  setAutomaticChecks: () => Promise.reject(new Error("not used here")),
  check: () => Promise.resolve(available),
  download: () => Promise.reject(new Error("not used here")),
  restart: () => Promise.reject(new Error("not used here")),
  onAvailable: () => () => undefined,
};

function attachedBackend() {
  return { ...fakeBackend(), transport: "attached" as const, server: "https://dossier.example.com:4096" };
}

describe("the app attached to a Dossier server", () => {
  it("names the server in the sidebar; on this computer's ledger nothing is said", async () => {
    render(() => <App locale="en" backend={attachedBackend()} />);
    const shown = await screen.findByTestId("ledger-in-use");
    expect(shown.textContent).toBe("On server dossier.example.com:4096");
    expect(shown.dataset.url).toBe("https://dossier.example.com:4096");
    cleanup();
    render(() => <App locale="en" backend={fakeBackend()} />);
    await screen.findByText("No sessions yet");
    expect(screen.queryByTestId("ledger-in-use")).toBeNull();
  });

  it("lists the server's providers read-only and keeps the app's updates in Settings", async () => {
    render(() => <App locale="en" backend={attachedBackend()} updates={updates} />);
    fireEvent.click(await screen.findByRole("button", { name: "Dossier 0.2.0 is ready" }));
    const section = await screen.findByTestId("updates");
    await waitFor(() => {
      expect(document.activeElement).toBe(section);
    });
    expect((await screen.findByTestId("update-available")).dataset.version).toBe("0.2.0");
    expect(await screen.findByTestId("server-provider-row")).toBeTruthy();
    expect(screen.queryByTestId("add-provider")).toBeNull();
  });
});
