// The one module that knows how the UI reaches the Dossier core: over Tauri IPC inside the
// desktop window, or over HTTP when the same UI is opened in a browser. For now it only tells
// which of the two applies; calls and events will be added here and nowhere else.

/** How the UI talks to the core. */
export type Transport = "tauri" | "http";

/**
 * Tells whether we run inside a Tauri webview. Tauri injects `__TAURI_INTERNALS__` into every
 * page it loads (whether or not `withGlobalTauri` is set), and a browser never has it.
 *
 * `scope` defaults to the global object; tests pass their own.
 */
export function detectTransport(scope: object = globalThis): Transport {
  const internals: unknown = Reflect.get(scope, "__TAURI_INTERNALS__");
  return typeof internals === "object" && internals !== null ? "tauri" : "http";
}
