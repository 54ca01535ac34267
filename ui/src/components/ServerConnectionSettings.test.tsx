// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from "@solidjs/testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { ServerConnectionSettings } from "./ServerConnectionSettings";
import type { ServerConnectionCommands } from "../lib/server-connection";
import type { LedgerInUse } from "../lib/shell-bindings/LedgerInUse";
import { BackendError } from "../lib/transport";

afterEach(cleanup);


/** A fake shell: records calls; the test passes for one address and token only. */
function fakeCommands(initial: LedgerInUse = { ledger: "local" }) {
  const calls: string[] = [];
  let inUse = initial;
  const commands: ServerConnectionCommands = {
    ledgerInUse: () => Promise.resolve(inUse),
    test: (url, token) => {
      calls.push(`test ${url} ${token}`);
      if (token !== "dossier_good") {
        return Promise.reject(new BackendError({ kind: "invalid", message: `${url} refused the access token: check it, or ask whoever runs the server for a new one` }));
      }
      return Promise.resolve({ url, version: "0.1.0" });
    },
    connect: (url, token) => {
      calls.push(`connect ${url} ${token}`);
      inUse = { ledger: "server", url, tokenRemembered: true };
      return Promise.resolve(inUse);
    },
    copyLocalSessions: () => {
      calls.push("copyLocalSessions");
      return Promise.resolve({ copied: 2, failed: [{ title: "Holiday photos", reason: "Request body too large" }] });
    },
    useLocal: () => {
      calls.push("useLocal");
      inUse = { ledger: "local", lastServer: "https://dossier.example.com" };
      return Promise.resolve(inUse);
    },
  };
  return { commands, calls };
}

function type(name: string, value: string) {
  const field = document.querySelector<HTMLInputElement>(`[name=${name}]`);
  if (field === null) throw new Error(`no field ${name}`);
  fireEvent.input(field, { target: { value } });
}

describe("Settings → Connect to a Dossier server", () => {
  it("in a browser renders nothing: the page is already a server's", () => {
    render(() => <ServerConnectionSettings />);
    expect(screen.queryByTestId("server-connection")).toBeNull();
  });

  it("offers Connect only after a test passed for exactly the address and token in the form", async () => {
    const { commands, calls } = fakeCommands();
    let switched = 0;
    render(() => <ServerConnectionSettings commands={commands} onSwitched={() => { switched += 1; }} />);
    await screen.findByTestId("server-connection-form");
    expect(screen.queryByTestId("connect-server")).toBeNull();
    type("serverUrl", "https://dossier.example.com");
    type("serverToken", "dossier_wrong");
    fireEvent.click(screen.getByTestId("test-server-connection"));
    const error = await screen.findByTestId("server-connection-error");
    expect(error.textContent).toContain("refused the access token");
    expect(error.dataset.kind).toBe("invalid");
    expect(screen.queryByTestId("connect-server")).toBeNull();

    type("serverToken", "dossier_good");
    fireEvent.click(screen.getByTestId("test-server-connection"));
    expect((await screen.findByTestId("server-connection-passed")).textContent).toBe(
      "Dossier 0.1.0 answered at https://dossier.example.com, and it accepted the token.",
    );
    expect(screen.queryByTestId("server-connection-error")).toBeNull();
    // Changing the token after the test takes Connect away again.
    type("serverToken", "dossier_goo");
    expect(screen.queryByTestId("connect-server")).toBeNull();
    type("serverToken", "dossier_good");
    fireEvent.click(screen.getByTestId("connect-server"));
    await waitFor(() => { expect(switched).toBe(1); });
    expect(calls).toEqual([
      "test https://dossier.example.com dossier_wrong",
      "test https://dossier.example.com dossier_good",
      "connect https://dossier.example.com dossier_good",
    ]);
  });

  it("while attached names the server, copies the local sessions and switches back to this computer's ledger", async () => {
    const { commands, calls } = fakeCommands({ ledger: "server", url: "https://dossier.example.com", tokenRemembered: false });
    let switched = 0;
    render(() => <ServerConnectionSettings commands={commands} onSwitched={() => { switched += 1; }} />);
    const inUse = await screen.findByTestId("server-in-use");
    expect(inUse.textContent).toBe("This window shows the sessions of the Dossier server at https://dossier.example.com.");
    expect(screen.getByTestId("server-token-not-remembered").textContent).toContain("kept only until Dossier quits");
    expect(screen.queryByTestId("server-connection-form")).toBeNull();
    fireEvent.click(screen.getByTestId("copy-local-sessions"));
    const report = await screen.findByTestId("copy-report");
    expect(report.dataset.copied).toBe("2");
    expect(report.textContent).toContain("Sessions copied from this computer to the server: 2.");
    expect(screen.getByTestId("copy-failure").textContent).toBe("Not copied: “Holiday photos” (Request body too large)");
    expect(switched).toBe(0);
    fireEvent.click(screen.getByTestId("use-local-ledger"));
    await waitFor(() => { expect(switched).toBe(1); });
    expect(calls).toEqual(["copyLocalSessions", "useLocal"]);
  });

  it("fills in the last server's address on the local ledger", async () => {
    const { commands } = fakeCommands({ ledger: "local", lastServer: "https://dossier.example.com" });
    render(() => <ServerConnectionSettings commands={commands} />);
    await waitFor(() => {
      expect(document.querySelector<HTMLInputElement>("[name=serverUrl]")?.value).toBe("https://dossier.example.com");
    });
    expect(document.querySelector<HTMLInputElement>("[name=serverToken]")?.value).toBe("");
  });
});
