import { createRoot } from "solid-js";
import { describe, expect, it } from "vitest";

import { createProviderSettingsStore } from "./provider-settings-store";
import { fakeBackend } from "./transport/fake-backend";

const input = { id: "local", npm: "@ai-sdk/openai-compatible", name: "Local", baseURL: "http://127.0.0.1:8080/v1", models: ["qwen"] };

describe("the provider settings store", () => {
  it("keeps the listing each call answers, and is busy only while one runs", async () => {
    const backend = fakeBackend();
    const store = createRoot(() => createProviderSettingsStore(backend));
    const saving = store.save({ ...input, apiKey: "sk-test-abcd" });
    expect(store.busy()).toBe(true);
    expect(await saving).toBe(true);
    expect(store.busy()).toBe(false);
    expect(store.settings()?.providers.find((provider) => provider.id === "local")?.key).toEqual({ source: "keychain", hint: "…abcd" });
    expect(await store.removeKey("local")).toBe(true);
    expect(store.settings()?.providers.find((provider) => provider.id === "local")?.key).toBeUndefined();
    expect(await store.remove("local")).toBe(true);
    expect(store.settings()?.providers.some((provider) => provider.id === "local")).toBe(false);
    expect(backend.calls.map((call) => call.command)).toEqual(["saveProvider", "removeProvider"]);
  });

  it("keeps a refused call's error, and clears it on the next call", async () => {
    const backend = fakeBackend();
    backend.setKeychainUnavailable("no secret service");
    const store = createRoot(() => createProviderSettingsStore(backend));
    expect(await store.save({ ...input, apiKey: "sk-test-abcd" })).toBe(false);
    expect(store.failure()).toMatchObject({ kind: "unavailable", message: "No keychain is available to store the key: no secret service" });
    expect(await store.load()).toBe(true);
    expect(store.failure()).toBeUndefined();
  });

  it("reads how much room the sessions take", async () => {
    const store = createRoot(() => createProviderSettingsStore(fakeBackend()));
    store.readStorage();
    await Promise.resolve();
    expect(store.storage()).toEqual({ dataFolder: "/home/ada/.local/share/dossier", bytes: 3_460_300 });
  });
});
