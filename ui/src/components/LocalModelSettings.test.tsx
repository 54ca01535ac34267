// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from "@solidjs/testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { LocalModelSettings } from "./LocalModelSettings";
import type { ModelDownloadProgress } from "../lib/bindings/ModelDownloadProgress";
import type { ModelLibraryView } from "../lib/bindings/ModelLibraryView";
import { language, LanguageContext } from "../lib/language";
import { operations, type OperationCall } from "../lib/shell-bindings/operations";
import { BackendError } from "../lib/transport";
import { fakeBackend } from "../lib/transport/fake-backend";

afterEach(cleanup);

const MB = 1024 * 1024;

/** The core's library with one small and one large model, answering the declared operations. */
function fakeLibrary() {
  const calls: string[] = [];
  const view: ModelLibraryView = {
    modelsFolder: "/home/ada/.local/share/dossier/models",
    totalMemoryBytes: 8 * 1024 * MB,
    freeDiskBytes: 200 * 1024 * MB,
    recommendedModelId: "qwen2.5-1.5b-instruct-q4_k_m",
    library: [
      {
        entry: { id: "qwen2.5-1.5b-instruct-q4_k_m", displayName: "Qwen2.5 1.5B Instruct", repository: "Qwen/Qwen2.5-1.5B-Instruct-GGUF", revision: "91cad51170dc346986eccefdc2dd33a9da36ead9", fileName: "qwen2.5-1.5b-instruct-q4_k_m.gguf", quantization: "Q4_K_M", sizeBytes: 1066 * MB, sha256: "6a".repeat(32), licence: "Apache-2.0", memoryBytes: 1621 * MB },
        installed: false,
        recommended: true,
      },
      {
        entry: { id: "qwen2.5-0.5b-instruct-q4_k_m", displayName: "Qwen2.5 0.5B Instruct", repository: "Qwen/Qwen2.5-0.5B-Instruct-GGUF", revision: "9217f5db79a29953eb74d5343926648285ec7e67", fileName: "qwen2.5-0.5b-instruct-q4_k_m.gguf", quantization: "Q4_K_M", sizeBytes: 469 * MB, sha256: "74".repeat(32), licence: "Apache-2.0", memoryBytes: 954 * MB },
        installed: true,
        recommended: false,
      },
    ],
    otherInstalled: [],
  };
  const started: ModelDownloadProgress = { modelId: "qwen2.5-1.5b-instruct-q4_k_m", status: "connecting", receivedBytes: 0, totalBytes: 1066 * MB };
  const caller = <T,>(call: OperationCall): Promise<T> => {
    calls.push(call.command);
    const answer = (value: unknown) => Promise.resolve(value as T);
    switch (call.command) {
      case "local_model_library":
        return answer(view);
      case "start_model_download":
        return answer(started);
      case "pause_model_download":
        return answer({ ...started, status: "paused", receivedBytes: 300 * MB });
      case "delete_local_model":
        return answer({ modelId: "qwen2.5-0.5b-instruct-q4_k_m", freedBytes: 469 * MB });
      default:
        return Promise.reject(new BackendError({ kind: "unavailable", message: call.command }));
    }
  };
  const backend = { ...fakeBackend(), operations: operations(caller) };
  return { backend, calls, view };
}

describe("Settings → Models on this computer", () => {
  it("lists the library with sizes, memory, licence and the recommended badge", async () => {
    const { backend } = fakeLibrary();
    render(() => <LocalModelSettings backend={backend} />);
    const rows = await screen.findAllByTestId("local-model");
    expect(rows).toHaveLength(2);
    const first = rows[0] as HTMLElement;
    expect(within(first).getByTestId("local-model-recommended").textContent).toBe("Recommended for this computer");
    expect(first.textContent).toContain("1.0 GB download");
    expect(first.textContent).toContain("needs 1.6 GB of memory");
    expect(first.textContent).toContain("Licence: Apache-2.0");
    expect(within(rows[1] as HTMLElement).getByTestId("local-model-installed")).toBeTruthy();
    expect(screen.getByTestId("local-models-computer").textContent).toContain("8.0 GB of memory");
  });

  it("downloads with a progress bar, says when it waits for the server, and pauses", async () => {
    const { backend, calls } = fakeLibrary();
    render(() => <LocalModelSettings backend={backend} />);
    fireEvent.click(await screen.findByRole("button", { name: "Download Qwen2.5 1.5B Instruct" }));
    await waitFor(() => { expect(calls).toContain("start_model_download"); });
    // The answer alone (connecting) shows the bar, before any event.
    await screen.findByTestId("local-model-progress");
    backend.publish({ type: "dossier.model.download", properties: { modelId: "qwen2.5-1.5b-instruct-q4_k_m", status: "downloading", receivedBytes: 300 * MB, totalBytes: 1066 * MB, bytesPerSecond: 4 * MB, secondsLeft: 192 } });
    const line = await screen.findByTestId("local-model-progress-line");
    await waitFor(() => { expect(line.textContent).toBe("300.0 MB of 1.0 GB · 4.0 MB/s · 3 min 12 s left"); });
    expect(screen.getByTestId<HTMLProgressElement>("local-model-progress").value).toBe(28);
    backend.publish({ type: "dossier.model.download", properties: { modelId: "qwen2.5-1.5b-instruct-q4_k_m", status: "waiting_for_server", receivedBytes: 300 * MB, totalBytes: 1066 * MB, message: "Nothing has arrived for 6 seconds." } });
    await waitFor(() => { expect(screen.getByTestId("local-model-progress-line").textContent).toBe("300.0 MB of 1.0 GB · Waiting for the server…"); });
    expect(screen.getByTestId("local-model-message").textContent).toBe("Nothing has arrived for 6 seconds.");
    fireEvent.click(screen.getByTestId("local-model-pause"));
    await waitFor(() => { expect(screen.getByTestId("local-model-download").dataset.status).toBe("paused"); });
    expect(screen.getByTestId("local-model-resume")).toBeTruthy();
  });

  it("deletes an installed model after saying how much space it gives back", async () => {
    const { backend, calls } = fakeLibrary();
    let changes = 0;
    render(() => <LocalModelSettings backend={backend} onModelsChanged={() => { changes += 1; }} />);
    fireEvent.click(await screen.findByRole("button", { name: "Delete Qwen2.5 0.5B Instruct" }));
    expect(screen.getByTestId("delete-local-model-confirm").textContent).toContain("gives back 469.0 MB");
    expect(calls).not.toContain("delete_local_model");
    fireEvent.click(screen.getByTestId("confirm-delete-local-model"));
    await waitFor(() => { expect(screen.getByTestId("local-models-notice").textContent).toBe("Qwen2.5 0.5B Instruct was deleted; 469.0 MB of disk space is free again."); });
    // The model picker reads its list again.
    expect(changes).toBe(1);
  });

  it("offers Add a model file… only where a dialog can give a path", async () => {
    const { backend } = fakeLibrary();
    render(() => <LocalModelSettings backend={backend} />);
    await screen.findAllByTestId("local-model");
    expect(screen.queryByTestId("add-model-file")).toBeNull();
    cleanup();
    const withDialog = { ...backend, addModelFileWithDialog: () => Promise.resolve({ modelId: "my-model", sizeBytes: 10, architecture: "llama" }) };
    let changes = 0;
    render(() => <LocalModelSettings backend={withDialog} onModelsChanged={() => { changes += 1; }} />);
    fireEvent.click(await screen.findByTestId("add-model-file"));
    await waitFor(() => { expect(screen.getByTestId("local-models-notice").textContent).toBe("my-model was added to the models on this computer."); });
    expect(changes).toBe(1);
  });

  it("speaks Chinese", async () => {
    const { backend } = fakeLibrary();
    render(() => (
      <LanguageContext.Provider value={language("zh-CN")}>
        <LocalModelSettings backend={backend} />
      </LanguageContext.Provider>
    ));
    expect((await screen.findAllByTestId("local-model-recommended"))[0]?.textContent).toBe("推荐用于这台电脑");
    expect(screen.getByText("本机模型")).toBeTruthy();
  });
});

describe("the welcome's Run a model on this computer", () => {
  it("shows the recommended model's size beside Add a model provider, and both are reached with the arrow keys", async () => {
    const { Welcome } = await import("./Welcome");
    const opened: string[] = [];
    render(() => (
      <Welcome
        offlineOnly
        serverProviders={false}
        onExample={() => undefined}
        onAddProvider={() => opened.push("provider")}
        localModelSize={1066 * MB}
        onRunLocally={() => opened.push("models")}
      />
    ));
    const run = screen.getByTestId("welcome-run-locally");
    expect(run.textContent).toBe("Run a model on this computer (1.0 GB download)");
    run.focus();
    fireEvent.keyDown(run, { key: "ArrowDown" });
    expect(document.activeElement).toBe(screen.getByTestId("welcome-add-provider"));
    fireEvent.click(run);
    fireEvent.click(screen.getByTestId("welcome-add-provider"));
    expect(opened).toEqual(["models", "provider"]);
  });
});
