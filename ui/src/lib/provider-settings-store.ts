// The state behind Settings → Providers and the storage line: the provider listing, the last
// failure, whether a call is running, and how much room the sessions take. The only caller of the
// backend's settings calls; components read the signals and call the actions.
import { createSignal } from "solid-js";
import type { ModelCatalog } from "./bindings/ModelCatalog";
import type { ProviderInput } from "./bindings/ProviderInput";
import type { ProviderSettings } from "./bindings/ProviderSettings";
import type { StorageUse } from "./bindings/StorageUse";
import { type Backend, type BackendError, toBackendError } from "./transport";

export type ProviderSettingsStore = ReturnType<typeof createProviderSettingsStore>;

export function createProviderSettingsStore(backend: Backend) {
  const [settings, setSettings] = createSignal<ProviderSettings | undefined>();
  const [failure, setFailure] = createSignal<BackendError | undefined>();
  const [busy, setBusy] = createSignal(false);
  const [storage, setStorage] = createSignal<StorageUse | undefined>();

  /** Runs a settings call; on success keeps its listing, on failure its error. */
  const run = async (call: () => Promise<ProviderSettings>): Promise<boolean> => {
    setBusy(true);
    setFailure(undefined);
    try {
      setSettings(await call());
      return true;
    } catch (error) {
      setFailure(toBackendError(error));
      return false;
    } finally {
      setBusy(false);
    }
  };

  return {
    settings,
    failure,
    busy,
    storage,
    /** The desktop app edits its own providers; a browser or an attached window only lists the server's. */
    editable: backend.transport === "tauri",
    attached: backend.transport === "attached",
    /** Shows a failure that did not come from a provider call (an update command's, say). */
    showFailure: (error: unknown) => {
      setFailure(toBackendError(error));
    },
    load: () => run(() => backend.readSettings()),
    save: (input: ProviderInput) => run(() => backend.saveProvider(input)),
    remove: (id: string) => run(() => backend.removeProvider(id)),
    removeKey: (id: string) => run(() => backend.removeProviderKey(id)),
    /** A figure that is only nice to know: when it cannot be read, the line is simply left out. */
    readStorage: () => {
      backend.readStorageUse?.().then(setStorage, (error: unknown) => {
        console.warn("could not read how much room the sessions take", error);
      });
    },
    /** The server's providers and models, read-only (what a browser's Settings lists). */
    serverCatalog: (): Promise<ModelCatalog> => backend.listModels(),
  };
}
