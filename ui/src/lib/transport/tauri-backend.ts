// The desktop side of the transport: Tauri commands and Tauri events (see src-tauri/src).
import { convertFileSrc, invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import type { Event } from "../bindings/Event";
import type { InstalledModel } from "../bindings/InstalledModel";
import type { CommandName } from "../shell-bindings/CommandName";
import type { Session } from "../bindings/Session";
import type { McpSettings } from "../bindings/McpSettings";
import type { DragHover } from "../shell-bindings/DragHover";
import type { DroppedFile } from "../shell-bindings/DroppedFile";
import { operations, type OperationCaller } from "../shell-bindings/operations";
import { type Backend, declaredCalls, declaredMcp, tauriEventNames, toBackendError } from "../transport";

async function call<T>(command: CommandName, args: Record<string, unknown> = {}): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (error) {
    throw toBackendError(error);
  }
}

/** A declared operation as its Tauri command (`src-tauri/src/declared_operations.rs`). */
const callDeclared: OperationCaller = async (operation) => {
  try {
    return await invoke<never>(operation.command, operation.args);
  } catch (error) {
    throw toBackendError(error);
  }
};

/** Listens to several events; the returned function stops all of them, even before they start. */
function listenAll(subscriptions: Promise<UnlistenFn>[]): () => void {
  let stopped = false;
  const unlisteners: UnlistenFn[] = [];
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
}

export function tauriBackend(): Backend {
  const client = operations(callDeclared);
  return {
    transport: "tauri",
    operations: client,
    ...declaredCalls(client),
    createSession: (input) => call("create_session", { input }),
    listMessages: (sessionId, limit, before) => call("list_messages", { sessionId, limit, before }),
    sendPrompt: (sessionId, input) => call("send_prompt", { sessionId, input }),
    listModels: () => call("list_models"),
    pickFiles: () => call("pick_files"),
    // The system browser, through the shell's own command, which refuses anything but http(s).
    openLink: (url) => call<undefined>("open_link", { url }),
    // The shell serves stored attachments on its `dossier-blob` scheme (src-tauri/src/blob_protocol.rs).
    mediaUrl: (url) => {
      if (url.startsWith("data:")) return url;
      if (url.startsWith("dossier-blob:")) return convertFileSrc(url.slice("dossier-blob:".length), "dossier-blob");
      return undefined;
    },
    subscribe: ({ onEvent, onResync }) =>
      listenAll([
        listen<Event>(tauriEventNames.core, (message) => {
          onEvent(message.payload);
        }),
        listen(tauriEventNames.resync, () => {
          onResync();
        }),
      ]),
    onNativeDrop: (hover, dropped) =>
      listenAll([
        listen<DragHover>(tauriEventNames.drag, (message) => {
          hover(message.payload);
        }),
        listen<DroppedFile[]>(tauriEventNames.dropped, (message) => {
          dropped(message.payload);
        }),
      ]),
    exportSession: (sessionId, format) => call("export_session", { sessionId, format }),
    importWithDialog: async () => (await call<Session | null>("import_session")) ?? undefined,
    fileSymbols: (path) => call("file_symbols", { path }),
    readSettings: () => call("read_settings"),
    saveProvider: (input) => call("save_provider", { input }),
    removeProvider: (providerId) => call("remove_provider", { providerId }),
    removeProviderKey: (providerId) => call("remove_provider_key", { providerId }),
    readStorageUse: () => call("storage_use"),
    addModelFileWithDialog: async () => (await call<InstalledModel | null>("add_model_file_with_dialog")) ?? undefined,
    reportInteractive: () => {
      void call("report_interactive").catch(() => undefined);
    },
    mcp: {
      importWithDialog: async () => (await call<McpSettings | null>("import_claude_desktop")) ?? undefined,
      ...declaredMcp(client),
    },
  };
}
