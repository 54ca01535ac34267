// The desktop window attached to a Dossier server (Settings → "Connect to a Dossier server"): the
// HTTP backend's logic, with every request relayed by the shell, which adds the access token and
// only forwards the routes the UI uses (src-tauri/src/attached_server). The token never enters
// this page and the page's CSP is unchanged. The shell also holds the server's event stream and
// emits its events under the local core's event name, so subscribing is the desktop's; dropped
// and picked files arrive already read (the server cannot read this disk).
import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import type { Event } from "../bindings/Event";
import type { CommandName } from "../shell-bindings/CommandName";
import type { ExportFormat } from "../shell-bindings/ExportFormat";
import type { ExportOutcome } from "../shell-bindings/ExportOutcome";
import type { LedgerInUse } from "../shell-bindings/LedgerInUse";
import type { RelayedRequest } from "../shell-bindings/RelayedRequest";
import type { RelayedResponse } from "../shell-bindings/RelayedResponse";
import type { ServerConnectionChange } from "../shell-bindings/ServerConnectionChange";
import { type Backend, type EventHandlers, settingsUnavailable, tauriEventNames, toBackendError } from "../transport";
import { httpBackend } from "./http-backend";
import { tauriBackend } from "./tauri-backend";

/** What the attached backend needs from the shell; tests pass a fake. */
export interface RelayShell {
  relay(request: RelayedRequest): Promise<RelayedResponse>;
  /** The server's export of a session, saved where the person chooses (the shell's dialog). */
  exportSession(sessionId: string, format: ExportFormat): Promise<ExportOutcome>;
  /** Listens to a shell event; the returned function stops listening. */
  listen(name: string, handler: (payload: unknown) => void): Promise<UnlistenFn>;
}

const desktopShell: RelayShell = {
  relay: (request) => invoke<RelayedResponse>("relay_request" satisfies CommandName, { request }),
  exportSession: async (sessionId, format) => {
    try {
      return await invoke<ExportOutcome>("export_from_server" satisfies CommandName, { sessionId, format });
    } catch (error) {
      throw toBackendError(error);
    }
  },
  listen: (name, handler) => listen(name, (message) => { handler(message.payload); }),
};

// Statuses whose response can have no body (the Response constructor refuses one).
const bodilessStatuses = new Set([101, 204, 205, 304]);

/** A `fetch` for the HTTP backend that goes through the shell's relay instead of the network. */
export function relayFetch(shell: RelayShell): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const body = init?.body;
    const request: RelayedRequest = { method: init?.method ?? "GET", path: `${url.pathname}${url.search}` };
    if (typeof body === "string") request.body = body;
    // The shell's refusals ({kind, message}) are thrown as they are; the HTTP backend reads them.
    const answer = await shell.relay(request);
    return new Response(bodilessStatuses.has(answer.status) ? null : answer.body, {
      status: answer.status,
      headers: answer.headers,
    });
  };
}

export function attachedBackend(serverUrl: string, shell: RelayShell = desktopShell): Backend {
  // Without the server's MCP settings: the relay does not forward them (not offered yet).
  // Without the outline picker either: attached, the shell sends dropped files as data: URLs, and
  // the relay does not let the window read the server's files (`relay_paths.rs`).
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- taken out so Settings offers no MCP section
  const { mcp, fileSymbols, ...http } = httpBackend(serverUrl, relayFetch(shell));
  const desktop = tauriBackend();
  const subscribe = ({ onEvent, onResync, onConnection }: EventHandlers) => {
    let stopped = false;
    const unlisteners: UnlistenFn[] = [];
    const subscriptions = [
      shell.listen(tauriEventNames.core, (event) => { onEvent(event as Event); }),
      shell.listen(tauriEventNames.resync, () => { onResync(); }),
      // "Reconnecting to the server…" while the shell's stream is down; what the server cannot
      // replay on its return comes as a resync.
      shell.listen(tauriEventNames.serverConnection, (change) => { onConnection?.((change as ServerConnectionChange).state); }),
    ];
    for (const subscription of subscriptions) {
      void subscription.then((unlisten) => {
        if (stopped) unlisten();
        else unlisteners.push(unlisten);
      });
    }
    return () => {
      stopped = true;
      for (const unlisten of unlisteners.splice(0)) unlisten();
    };
  };
  return {
    ...http,
    transport: "attached",
    server: serverUrl,
    subscribe,
    // The page cannot save a download inside the desktop window: the shell saves the server's file.
    exportSession: (sessionId, format) => shell.exportSession(sessionId, format),
    // The native drop and file dialog: the shell reads the files into data: URLs while attached.
    ...(desktop.pickFiles === undefined ? {} : { pickFiles: desktop.pickFiles }),
    ...(desktop.onNativeDrop === undefined ? {} : { onNativeDrop: desktop.onNativeDrop }),
    openLink: (url) => desktop.openLink(url),
    ...(desktop.reportInteractive === undefined ? {} : { reportInteractive: desktop.reportInteractive }),
    // Providers are the server's, listed read-only in Settings.
    readSettings: settingsUnavailable,
    saveProvider: settingsUnavailable,
    removeProvider: settingsUnavailable,
    removeProviderKey: settingsUnavailable,
  };
}

/** The desktop window's backend: this computer's ledger, or the server it is attached to. */
export async function desktopBackend(ask: () => Promise<LedgerInUse> = () => invoke("ledger_in_use" satisfies CommandName)): Promise<Backend> {
  let inUse: LedgerInUse;
  try {
    inUse = await ask();
  } catch (error) {
    // The start-up page (no ledger open yet) refuses the question: the window is local then.
    console.warn("could not ask which ledger to show", toBackendError(error));
    inUse = { ledger: "local" };
  }
  return inUse.ledger === "server" ? attachedBackend(inUse.url) : tauriBackend();
}
