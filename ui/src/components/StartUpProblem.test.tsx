// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from "@solidjs/testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { StartUpProblem } from "./StartUpProblem";
import type { ReadOnlyLedger } from "../lib/bindings/ReadOnlyLedger";
import type { StartUpProblem as Problem } from "../lib/shell-bindings/StartUpProblem";
import type { StartUpCommands } from "../lib/start-up";
import { BackendError } from "../lib/transport";

afterEach(cleanup);


const newer: Problem = {
  kind: "newerDatabase",
  message: "Dossier did not open its saved sessions.\n\nYour saved sessions in /d/dossier.db were last updated by Dossier 3.1.0 (format 42)…",
  dataFolder: "/d",
  madeBy: "3.1.0",
  safeCopy: null,
};

function fakeCommands(answers: Partial<StartUpCommands> = {}) {
  const calls: string[] = [];
  const readOnly: ReadOnlyLedger = { madeBy: "3.1.0", schemaVersion: 42, knownVersion: 9 };
  const commands: StartUpCommands = {
    state: () => Promise.resolve({ problem: newer, readOnly: null }),
    openReadOnly: () => {
      calls.push("openReadOnly");
      return Promise.resolve(readOnly);
    },
    restoreNewestBackup: () => {
      calls.push("restoreNewestBackup");
      return Promise.resolve();
    },
    openDataFolder: () => {
      calls.push("openDataFolder");
      return Promise.resolve();
    },
    quit: () => {
      calls.push("quit");
      return Promise.resolve();
    },
    ...answers,
  };
  return { commands, calls };
}

describe("the start-up page", () => {
  it("names the newer version and opens read-only", async () => {
    const { commands, calls } = fakeCommands();
    const opened: (ReadOnlyLedger | null)[] = [];
    render(() => <StartUpProblem problem={newer} commands={commands} onOpened={(readOnly) => opened.push(readOnly)} />);
    expect(screen.getByRole("heading").textContent).toBe("These sessions were saved by a newer Dossier");
    expect(screen.getByTestId("start-up-made-by").textContent).toContain("last written by Dossier 3.1.0");
    expect(screen.getByTestId("start-up-message").textContent).toContain("format 42");
    expect(screen.getByTestId("start-up-data-folder").textContent).toBe("Data folder: /d");
    fireEvent.click(screen.getByTestId("open-read-only"));
    await waitFor(() => {
      expect(opened).toEqual([{ madeBy: "3.1.0", schemaVersion: 42, knownVersion: 9 }]);
    });
    fireEvent.click(screen.getByTestId("start-up-open-folder"));
    fireEvent.click(screen.getByTestId("start-up-quit"));
    await waitFor(() => {
      expect(calls).toEqual(["openReadOnly", "openDataFolder", "quit"]);
    });
  });

  it("offers no read-only open for a failed update, and names the copy to keep", () => {
    const { commands } = fakeCommands();
    const failed: Problem = { kind: "migrationFailed", message: "step 8 failed: …", dataFolder: "/d", madeBy: null, safeCopy: "/d/backups/dossier-x-schema-7.db" };
    render(() => <StartUpProblem problem={failed} commands={commands} onOpened={() => undefined} />);
    expect(screen.getByRole("heading").textContent).toBe("Updating your saved sessions failed");
    expect(screen.queryByTestId("open-read-only")).toBeNull();
    expect(screen.getByTestId("start-up-safe-copy").textContent).toBe("The copy to keep: /d/backups/dossier-x-schema-7.db");
    expect(screen.queryByTestId("restore-newest-backup")).toBeNull();
  });

  it("restores a damaged file's newest good backup, then hands over to the app", async () => {
    const { commands, calls } = fakeCommands();
    const opened: (ReadOnlyLedger | null)[] = [];
    const damaged: Problem = { kind: "damagedDatabase", message: "damaged", dataFolder: "/d", madeBy: null, safeCopy: "/d/backups/good.db" };
    render(() => <StartUpProblem problem={damaged} commands={commands} onOpened={(readOnly) => opened.push(readOnly)} />);
    expect(screen.queryByTestId("start-up-no-good-backup")).toBeNull();
    expect(screen.getAllByRole("button").map((button) => button.textContent)).toEqual(["Restore the newest good backup", "Open data folder", "Quit"]);
    expect(screen.getByTestId("restore-newest-backup").getAttribute("title")).toContain("/d/backups/good.db");
    fireEvent.click(screen.getByTestId("restore-newest-backup"));
    await waitFor(() => {
      expect(opened).toEqual([null]);
    });
    expect(calls).toEqual(["restoreNewestBackup"]);
  });

  it("says plainly when a damaged file has no good backup, with no restore button", () => {
    const { commands } = fakeCommands();
    const damaged: Problem = { kind: "damagedDatabase", message: "damaged", dataFolder: "/d", madeBy: null, safeCopy: null };
    render(() => <StartUpProblem problem={damaged} commands={commands} onOpened={() => undefined} />);
    expect(screen.getByTestId("start-up-no-good-backup").textContent).toContain("No good backup was found");
    expect(screen.getAllByRole("button").map((button) => button.textContent)).toEqual(["Open data folder", "Quit"]);
  });

  it("shows a failed restore in the shell's words and stays on the page", async () => {
    const { commands } = fakeCommands({
      restoreNewestBackup: () => Promise.reject(new BackendError({ kind: "internal", message: "The copy of the backup /d/backups/good.db did not check out…" })),
    });
    const opened: (ReadOnlyLedger | null)[] = [];
    const damaged: Problem = { kind: "damagedDatabase", message: "damaged", dataFolder: "/d", madeBy: null, safeCopy: "/d/backups/good.db" };
    render(() => <StartUpProblem problem={damaged} commands={commands} onOpened={(readOnly) => opened.push(readOnly)} />);
    fireEvent.click(screen.getByTestId("restore-newest-backup"));
    expect((await screen.findByTestId("start-up-failure")).textContent).toBe("The copy of the backup /d/backups/good.db did not check out…");
    expect(opened).toEqual([]);
    expect(screen.getByTestId<HTMLButtonElement>("restore-newest-backup").disabled).toBe(false);
  });

  it("shows a refused read-only open in the shell's words", async () => {
    const { commands } = fakeCommands({
      openReadOnly: () => Promise.reject(new BackendError({ kind: "conflict", message: "Opening read-only is only offered…" })),
    });
    render(() => <StartUpProblem problem={newer} commands={commands} onOpened={() => undefined} />);
    fireEvent.click(screen.getByTestId("open-read-only"));
    expect((await screen.findByTestId("start-up-failure")).textContent).toBe("Opening read-only is only offered…");
  });
});
