// The state behind Settings → Models on this computer: the library view with each download's
// latest progress (kept current by the `dossier.model.download` event; the view is read again when a
// download ends and on a resync), the last failure or notice, and the actions. The only caller of
// the backend's local model operations, for the settings view, the welcome and a dropped `.gguf`.
import { createSignal } from "solid-js";
import type { InstalledModel } from "./bindings/InstalledModel";
import type { ModelDownloadProgress } from "./bindings/ModelDownloadProgress";
import type { ModelLibraryView } from "./bindings/ModelLibraryView";
import type { DownloadAction } from "./local-models";
import { type Backend, type BackendError, toBackendError } from "./transport";

export type LocalModelStore = ReturnType<typeof createLocalModelStore>;

export function createLocalModelStore(backend: Backend) {
  const [view, setView] = createSignal<ModelLibraryView | undefined>();
  const [failure, setFailure] = createSignal<BackendError | undefined>();
  const operations = backend.operations;
  // A download's progress lives in the view's own entry, so the row that shows it follows it.
  const track = (progress: ModelDownloadProgress) => {
    setView((current) =>
      current === undefined
        ? current
        : { ...current, library: current.library.map((model) => (model.entry.id === progress.modelId ? { ...model, download: progress } : model)) },
    );
  };

  const load = async () => {
    try {
      setView(await operations.localModelLibrary());
    } catch (error) {
      setFailure(toBackendError(error));
    }
  };

  /** Runs a call; on failure keeps its error and answers `undefined`. */
  const run = async <T>(call: () => Promise<T>): Promise<T | undefined> => {
    setFailure(undefined);
    try {
      return await call();
    } catch (error) {
      setFailure(toBackendError(error));
      return undefined;
    }
  };

  const pick = backend.addModelFileWithDialog;

  return {
    view,
    failure,
    /** Reads the library, and follows its downloads until the returned function is called. */
    watch: (): (() => void) => {
      void load();
      return backend.subscribe({
        onEvent: (event) => {
          if (event.type !== "dossier.model.download") return;
          track(event.properties);
          if (event.properties.status === "installed" || event.properties.status === "cancelled") void load();
        },
        onResync: () => {
          void load();
        },
      });
    },
    start: (modelId: string) => run(async () => { track(await operations.startModelDownload(modelId)); }),
    act: (modelId: string, action: DownloadAction) =>
      run(async () => {
        track(
          action === "pause" ? await operations.pauseModelDownload(modelId) : action === "resume" ? await operations.resumeModelDownload(modelId) : await operations.cancelModelDownload(modelId),
        );
      }),
    /** Deletes the model; answers the bytes it gave back. */
    remove: (modelId: string) =>
      run(async () => {
        const deleted = await operations.deleteLocalModel(modelId);
        await load();
        return deleted.freedBytes;
      }),
    /** "Add a model file…" where the window has an open dialog (desktop), else undefined. */
    addWithDialog:
      pick === undefined
        ? undefined
        : () =>
            run(async (): Promise<InstalledModel | undefined> => {
              const added = await pick();
              if (added !== undefined) await load();
              return added;
            }),
  };
}

/** The download size of the model recommended for this computer, if the library names one. */
export async function recommendedModelSize(backend: Backend): Promise<number | undefined> {
  const library = await backend.operations.localModelLibrary();
  return library.library.find((model) => model.recommended)?.entry.sizeBytes;
}

/** Adds a `.gguf` dropped on the window to the models on this computer. */
export function addDroppedModel(backend: Backend, path: string): Promise<InstalledModel> {
  return backend.operations.addLocalModelFile({ path });
}
