// Settings → "Connect to a Dossier server": the shell's commands (src-tauri/src/commands/
// server_connection.rs) and the form's steps. Connect is only offered once a test passed for
// exactly the address and token in the form; after Connect or "Use this computer's ledger" the
// window reloads, so every part of the UI starts again on the ledger now in use.
import { invoke, isTauri } from "@tauri-apps/api/core";
import type { CommandName } from "./shell-bindings/CommandName";
import type { CopyReport } from "./shell-bindings/CopyReport";
import type { LedgerInUse } from "./shell-bindings/LedgerInUse";
import type { ServerCheck } from "./shell-bindings/ServerCheck";
import { type BackendError, toBackendError } from "./transport";

/** The shell's commands; a fake in tests. */
export interface ServerConnectionCommands {
  ledgerInUse: () => Promise<LedgerInUse>;
  test: (url: string, token: string) => Promise<ServerCheck>;
  connect: (url: string, token: string) => Promise<LedgerInUse>;
  useLocal: () => Promise<LedgerInUse>;
  /** Copies this computer's sessions to the server in use (export, then the server's import). */
  copyLocalSessions: () => Promise<CopyReport>;
}

async function call<T>(command: CommandName, args: Record<string, unknown> = {}): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (error) {
    throw toBackendError(error);
  }
}

/** The desktop app's commands; none in a browser, which is always a server's page already. */
export function desktopServerConnectionCommands(): ServerConnectionCommands | undefined {
  if (!isTauri()) return undefined;
  return {
    ledgerInUse: () => call("ledger_in_use"),
    test: (url, token) => call("test_server_connection", { url, token }),
    connect: (url, token) => call("connect_to_server", { url, token }),
    useLocal: () => call("use_local_ledger"),
    copyLocalSessions: () => call("copy_local_sessions"),
  };
}

/** What the section shows besides the form's fields. */
export type ConnectionView =
  | { step: "idle" }
  | { step: "testing" }
  /** The test passed for `url` and `token`: Connect is offered for exactly these. */
  | { step: "passed"; check: ServerCheck; url: string; token: string }
  | { step: "connecting" }
  | { step: "switching" }
  | { step: "copying" }
  | { step: "copied"; report: CopyReport }
  | { step: "failed"; error: BackendError };

/** The section's steps; each moves the view on with the shell's answer. */
export function connectionFlow(commands: ServerConnectionCommands, show: (view: ConnectionView) => void, switched: () => void) {
  const fail = (error: unknown) => {
    show({ step: "failed", error: toBackendError(error) });
  };
  return {
    test: async (url: string, token: string) => {
      show({ step: "testing" });
      try {
        show({ step: "passed", check: await commands.test(url, token), url, token });
      } catch (error) {
        fail(error);
      }
    },
    connect: async (url: string, token: string) => {
      show({ step: "connecting" });
      try {
        await commands.connect(url, token);
        show({ step: "switching" });
        switched();
      } catch (error) {
        fail(error);
      }
    },
    copyLocalSessions: async () => {
      show({ step: "copying" });
      try {
        show({ step: "copied", report: await commands.copyLocalSessions() });
      } catch (error) {
        fail(error);
      }
    },
    useLocal: async () => {
      show({ step: "switching" });
      try {
        await commands.useLocal();
        switched();
      } catch (error) {
        fail(error);
      }
    },
  };
}

/** Connect is offered only for the address and token that passed the test. */
export function connectable(view: ConnectionView, url: string, token: string): boolean {
  return view.step === "passed" && view.url === url && view.token === token;
}
