// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from "@solidjs/testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { DataSettings } from "./DataSettings";
import type { DataCommands } from "../lib/data-folder";
import { language, LanguageContext } from "../lib/language";
import type { DataOverview } from "../lib/shell-bindings/DataOverview";
import { BackendError } from "../lib/transport";

afterEach(cleanup);


/** A fake shell: records calls, answers from `answers`. */
function fakeCommands(answers: Partial<DataCommands> = {}) {
  const calls: string[] = [];
  let overview: DataOverview = {
    dataFolder: "/home/ana/.local/share/dossier",
    location: { folder: "/home/ana/.local/share/dossier", source: "default", movable: true, previousFolder: null },
    backups: [],
    restoreWaiting: false,
  };
  const commands: DataCommands = {
    overview: () => {
      calls.push("overview");
      return Promise.resolve(overview);
    },
    backUpNow: () => {
      calls.push("backUpNow");
      overview = {
        ...overview,
        backups: [{ path: "/b/dossier-x-schema-8.db", name: "dossier-x-schema-8.db", bytes: 2048, modified: Date.UTC(2026, 11, 1) }],
      };
      return Promise.resolve({ outcome: "saved", path: "/home/ana/dossier-backup.db" });
    },
    chooseBackup: () => {
      calls.push("chooseBackup");
      return Promise.resolve({ outcome: "chosen", path: "/home/ana/dossier-backup.db", sessions: 3 });
    },
    restoreChosen: () => {
      calls.push("restoreChosen");
      return Promise.resolve();
    },
    openFolder: () => {
      calls.push("openFolder");
      return Promise.resolve();
    },
    ...answers,
  };
  return { commands, calls };
}

describe("Settings → Data", () => {
  it("in a browser says backups are made in the desktop app and offers no buttons", () => {
    render(() => <DataSettings />);
    expect(screen.getByTestId("data-desktop-only").textContent).toContain("Backups are made in the desktop app");
    expect(screen.queryByTestId("back-up-now")).toBeNull();
    expect(screen.queryByTestId("restore-backup")).toBeNull();
  });

  it("shows the data folder, backs up and lists the new backup with its size", async () => {
    const { commands, calls } = fakeCommands();
    render(() => <DataSettings commands={commands} />);
    expect((await screen.findByTestId("data-folder")).getAttribute("data-folder")).toBe("/home/ana/.local/share/dossier");
    expect(screen.getByTestId("no-backups")).toBeTruthy();
    fireEvent.click(screen.getByTestId("open-data-folder"));
    fireEvent.click(screen.getByTestId("back-up-now"));
    expect((await screen.findByTestId("backup-saved")).textContent).toContain("/home/ana/dossier-backup.db");
    expect((await screen.findByTestId("backup-row")).textContent).toContain("2.0 KB");
    expect(calls).toEqual(["overview", "openFolder", "backUpNow", "overview"]);
  });

  it("says plainly when a restore waits for another program to let go of the folder", async () => {
    const { commands } = fakeCommands();
    const waiting = await commands.overview();
    render(() => <DataSettings commands={{ ...commands, overview: () => Promise.resolve({ ...waiting, restoreWaiting: true }) }} />);
    expect((await screen.findByTestId("data-restore-waiting")).textContent).toContain("dossier-server");
  });

  it("shows no waiting restore when none was staged", async () => {
    const { commands } = fakeCommands();
    render(() => <DataSettings commands={commands} />);
    await screen.findByTestId("data-folder");
    expect(screen.queryByTestId("data-restore-waiting")).toBeNull();
  });

  it("restores only after the person confirms, naming the file and its sessions", async () => {
    const { commands, calls } = fakeCommands();
    render(() => <DataSettings commands={commands} />);
    fireEvent.click(await screen.findByTestId("restore-backup"));
    const confirm = await screen.findByTestId("restore-confirm");
    expect(confirm.textContent).toContain("the 3 in /home/ana/dossier-backup.db");
    // The question takes the focus the vanished button had, on its safe choice.
    await waitFor(() => { expect(document.activeElement).toBe(screen.getByTestId("cancel-restore")); });
    expect(calls).not.toContain("restoreChosen");
    fireEvent.click(screen.getByTestId("confirm-restore"));
    expect(await screen.findByTestId("data-progress")).toBeTruthy();
    expect(calls).toContain("restoreChosen");
  });

  it("shows a refused backup's reason in plain words and restores nothing", async () => {
    const { commands, calls } = fakeCommands({
      chooseBackup: () =>
        Promise.reject(new BackendError({ kind: "invalid", message: "/tmp/x.db is not a Dossier backup: it is not a database file at all." })),
    });
    render(() => <DataSettings commands={commands} />);
    fireEvent.click(await screen.findByTestId("restore-backup"));
    const error = await screen.findByTestId("data-error");
    expect(error.getAttribute("data-kind")).toBe("invalid");
    expect(error.textContent).toContain("not a database file at all");
    expect(screen.queryByTestId("restore-confirm")).toBeNull();
    expect(calls).not.toContain("restoreChosen");
  });

  it("while the window shows a server's sessions, says that all of it is this computer's ledger's", async () => {
    const { commands } = fakeCommands();
    render(() => <DataSettings commands={commands} attached />);
    expect(screen.getByTestId("data-attached").textContent).toBe(
      "This window shows the sessions of a Dossier server, but this section is about this computer’s own ledger: backing up, restoring and moving the data folder act on it, not on the server’s sessions, which are backed up where the server runs.",
    );
    expect((await screen.findByTestId("data-folder")).textContent).toContain("This computer’s sessions are kept in /home/ana/.local/share/dossier.");
    fireEvent.click(screen.getByTestId("restore-backup"));
    expect((await screen.findByTestId("restore-confirm")).textContent).toContain(
      "Replace this computer’s sessions (not the server’s) with the 3 in /home/ana/dossier-backup.db?",
    );
    fireEvent.click(screen.getByTestId("confirm-restore"));
    expect((await screen.findByTestId("data-progress")).parentElement?.textContent).toContain("Restoring this computer’s sessions (not the server’s)");
    cleanup();

    render(() => (
      <LanguageContext.Provider value={language("zh-CN")}>
        <DataSettings commands={fakeCommands().commands} attached />
      </LanguageContext.Provider>
    ));
    expect(screen.getByTestId("data-attached").textContent).toContain("这一部分针对的是这台电脑自己的账本");
    expect((await screen.findByTestId("data-folder")).textContent).toContain("这台电脑上的会话保存在");
  });

  it("on this computer's ledger says nothing of a server", async () => {
    const { commands } = fakeCommands();
    render(() => <DataSettings commands={commands} />);
    expect((await screen.findByTestId("data-folder")).textContent).toContain("Your sessions are kept in");
    expect(screen.queryByTestId("data-attached")).toBeNull();
  });
});
