import { describe, expect, it } from "vitest";
import { translator } from "./i18n";
import { checkProviderForm, describeKey, emptyForm, formFromSetting, kindLabel, parseModelList } from "./settings";

const t = translator("en");

describe("parseModelList", () => {
  it("splits on commas, spaces and new lines and keeps each id once, in order", () => {
    expect(parseModelList(" gpt-4o, gpt-4o-mini\no3  gpt-4o ,, ")).toEqual(["gpt-4o", "gpt-4o-mini", "o3"]);
    expect(parseModelList("meta-llama/Llama-3.1-8B")).toEqual(["meta-llama/Llama-3.1-8B"]);
    expect(parseModelList(" \n , ")).toEqual([]);
  });
});

describe("checkProviderForm", () => {
  const filled = { ...emptyForm(), id: " lmstudio ", baseURL: " http://127.0.0.1:1234/v1 ", models: "qwen3-8b, qwen3-8b" };

  it("turns a good form into the core's input, leaving out empty optional fields", () => {
    expect(checkProviderForm(filled)).toEqual({
      ok: true,
      input: { id: "lmstudio", npm: "@ai-sdk/openai-compatible", models: ["qwen3-8b"], baseURL: "http://127.0.0.1:1234/v1" },
    });
  });

  it("sends a typed key and a name, trimmed", () => {
    const result = checkProviderForm({ ...filled, name: " LM Studio ", apiKey: "  sk-abcdef123456  " });
    expect(result).toMatchObject({ ok: true, input: { name: "LM Studio", apiKey: "sk-abcdef123456" } });
  });

  it("names every field to fix at once", () => {
    expect(checkProviderForm({ ...emptyForm(), baseURL: "localhost:1234", apiKey: "sk-one sk-two" })).toEqual({
      ok: false,
      problems: { id: "settings.idMissing", baseURL: "settings.baseUrlInvalid", models: "settings.modelsMissing", apiKey: "settings.keyInvalid" },
    });
  });

  it.each([
    ["my provider", "settings.idInvalid"],
    ["a".repeat(65), "settings.idInvalid"],
    ["dossier", "settings.idReserved"],
  ] as const)("refuses the id %j", (id, problem) => {
    expect(checkProviderForm({ ...filled, id })).toEqual({ ok: false, problems: { id: problem } });
  });

  it("accepts only http and https addresses", () => {
    expect(checkProviderForm({ ...filled, baseURL: "ftp://host/v1" })).toEqual({ ok: false, problems: { baseURL: "settings.baseUrlInvalid" } });
    expect(checkProviderForm({ ...filled, baseURL: "https://api.example.com/v1" }).ok).toBe(true);
    // No address at all is the core's call: OpenAI and Anthropic need none.
    expect(checkProviderForm({ ...filled, id: "openai", npm: "@ai-sdk/openai", baseURL: "" }).ok).toBe(true);
  });
});

describe("describeKey and formFromSetting", () => {
  it("shows only the hint the core made, and where the key comes from", () => {
    expect(describeKey(t, { source: "keychain", hint: "sk-…abcd" })).toBe("Key sk-…abcd (keychain)");
    expect(describeKey(t, { source: "environment", hint: "…wxyz" })).toBe("Key …wxyz (environment variable)");
    expect(describeKey(t, { source: "config", hint: "…" })).toBe("Key … (config file)");
    expect(describeKey(t, undefined)).toBe("No key");
    expect(describeKey(translator("zh-CN"), { source: "keychain", hint: "sk-…abcd" })).toBe("密钥 sk-…abcd（钥匙串）");
  });

  it("fills the edit form without any key", () => {
    const form = formFromSetting({
      id: "openai",
      npm: "@ai-sdk/openai",
      baseURL: "https://api.openai.com/v1",
      models: ["gpt-4o", "o3"],
      key: { source: "keychain", hint: "sk-…abcd" },
      editable: true,
    });
    expect(form).toEqual({ id: "openai", name: "", npm: "@ai-sdk/openai", baseURL: "https://api.openai.com/v1", models: "gpt-4o, o3", apiKey: "" });
  });

  it("labels known packages and falls back to the package name", () => {
    expect(kindLabel(t, "@ai-sdk/anthropic")).toBe("Anthropic");
    expect(kindLabel(t, "@ai-sdk/google")).toBe("@ai-sdk/google");
  });
});
