// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@solidjs/testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { DataSettings } from "./DataSettings";
import type { DataCommands } from "../lib/data-folder";
import type { FolderMoveCommands } from "../lib/data-folder-move";
import type { DataOverview } from "../lib/shell-bindings/DataOverview";
import { BackendError } from "../lib/transport";

afterEach(cleanup);

const folder = "/home/ana/.local/share/app.dossier.desktop";

/** A fake shell whose overview is `overview`, recording the move commands called. */
function fakeShell(overview: DataOverview, answers: Partial<FolderMoveCommands> = {}) {
  const calls: string[] = [];
  let current = overview;
  const commands: DataCommands = {
    overview: () => {
      calls.push("overview");
      return Promise.resolve(current);
    },
    backUpNow: () => Promise.resolve({ outcome: "cancelled" }),
    chooseBackup: () => Promise.resolve({ outcome: "cancelled" }),
    restoreChosen: () => Promise.resolve(),
    openFolder: () => Promise.resolve(),
  };
  const moveCommands: FolderMoveCommands = {
    move: () => {
      calls.push("move");
      return Promise.resolve({ outcome: "moved", folder: "/media/ana/disk/Dossier", previousFolder: folder, sessions: 4 });
    },
    removePrevious: () => {
      calls.push("removePrevious");
      current = { ...current, location: { ...current.location, previousFolder: null } };
      return Promise.resolve({ folder: "/old", removed: ["dossier.db", "ledger.lock"], folderRemoved: false });
    },
    keepPrevious: () => {
      calls.push("keepPrevious");
      current = { ...current, location: { ...current.location, previousFolder: null } };
      return Promise.resolve();
    },
    ...answers,
  };
  return { commands, moveCommands, calls };
}

function overview(location: Partial<DataOverview["location"]> = {}): DataOverview {
  return {
    dataFolder: folder,
    location: { folder, source: "default", movable: true, previousFolder: null, ...location },
    backups: [],
    restoreWaiting: false,
  };
}

describe("Settings → Data, moving the data folder", () => {
  it("in a browser says the folder is moved in the desktop app and offers no button", () => {
    render(() => <DataSettings />);
    expect(screen.getByTestId("data-desktop-only").textContent).toContain("the data folder is moved there too");
    expect(screen.queryByTestId("move-data-folder")).toBeNull();
  });

  it("moves through the shell and says Dossier restarts in the new folder", async () => {
    const { commands, moveCommands, calls } = fakeShell(overview());
    render(() => <DataSettings commands={commands} moveCommands={moveCommands} />);
    fireEvent.click(await screen.findByTestId("move-data-folder"));
    expect((await screen.findByTestId("data-moved")).textContent).toContain("/media/ana/disk/Dossier");
    expect(calls).toEqual(["overview", "move"]);
  });

  it("shows a refused folder's reason in the shell's words", async () => {
    const refusal = new BackendError({ kind: "invalid", message: "/home/ana/Photos already holds files that are not Dossier's (for example beach.jpg)." });
    const { commands, moveCommands } = fakeShell(overview(), { move: () => Promise.reject(refusal) });
    render(() => <DataSettings commands={commands} moveCommands={moveCommands} />);
    fireEvent.click(await screen.findByTestId("move-data-folder"));
    const shown = await screen.findByTestId("data-move-error");
    expect(shown.textContent).toContain("beach.jpg");
    expect(shown.getAttribute("data-kind")).toBe("invalid");
  });

  it("a folder set by DOSSIER_DATA_DIR has no move button and says why", async () => {
    const { commands, moveCommands } = fakeShell(overview({ source: "environment", movable: false }));
    render(() => <DataSettings commands={commands} moveCommands={moveCommands} />);
    expect((await screen.findByTestId("data-folder-fixed")).textContent).toContain("DOSSIER_DATA_DIR");
    expect(screen.queryByTestId("move-data-folder")).toBeNull();
  });

  it("after a move asks about the old copy and removes it only when asked", async () => {
    const { commands, moveCommands, calls } = fakeShell(overview({ source: "moved", previousFolder: "/old" }));
    render(() => <DataSettings commands={commands} moveCommands={moveCommands} />);
    const asked = await screen.findByTestId("data-previous-folder");
    expect(asked.textContent).toContain("Remove the old copy?");
    expect(asked.textContent).toContain("/old");
    expect(calls).not.toContain("removePrevious");
    fireEvent.click(screen.getByTestId("remove-previous-folder"));
    expect((await screen.findByTestId("data-previous-removed")).textContent).toContain("Removed 2 of Dossier's files from /old");
    expect(calls).toEqual(["overview", "removePrevious", "overview"]);
    expect(screen.queryByTestId("data-previous-folder")).toBeNull();
  });

  it("keeping the old copy stops asking and removes nothing", async () => {
    const { commands, moveCommands, calls } = fakeShell(overview({ source: "moved", previousFolder: "/old" }));
    render(() => <DataSettings commands={commands} moveCommands={moveCommands} />);
    fireEvent.click(await screen.findByTestId("keep-previous-folder"));
    await screen.findByTestId("move-data-folder");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(calls).toEqual(["overview", "keepPrevious", "overview"]);
    expect(screen.queryByTestId("data-previous-folder")).toBeNull();
  });
});
