// The settings form's logic, kept out of the component so it can be tested: the provider
// kinds we offer, turning the form into the core's `ProviderInput` with field-by-field
// problems, and how a stored key is described. Keys are only ever typed here: the backend
// answers with a hint (`sk-…abcd`) that the core makes, so a full key never comes back.
import type { KeyStatus } from "./bindings/KeyStatus";
import type { ProviderInput } from "./bindings/ProviderInput";
import type { ProviderSetting } from "./bindings/ProviderSetting";
import type { MessageKey, Translate } from "./i18n";

/** The provider packages the core speaks, with the label key each is shown under. */
export const providerKinds: readonly { npm: string; label: MessageKey }[] = [
  { npm: "@ai-sdk/openai-compatible", label: "settings.kindCompatible" },
  { npm: "@ai-sdk/openai", label: "settings.kindOpenAi" },
  { npm: "@ai-sdk/anthropic", label: "settings.kindAnthropic" },
];

/** The id of the built-in offline model's provider, which a configured one may not take. */
const reservedProviderId = "dossier";

export interface ProviderForm {
  id: string;
  name: string;
  npm: string;
  baseURL: string;
  /** Model ids separated by commas, spaces or new lines. */
  models: string;
  /** Empty: keep the stored key (or none). */
  apiKey: string;
}

export type FormField = "id" | "baseURL" | "models" | "apiKey";

export type FormCheck = { ok: true; input: ProviderInput } | { ok: false; problems: Partial<Record<FormField, MessageKey>> };

export function emptyForm(): ProviderForm {
  return { id: "", name: "", npm: "@ai-sdk/openai-compatible", baseURL: "", models: "", apiKey: "" };
}

/** The form for changing an existing provider; its key is never part of it. */
export function formFromSetting(setting: ProviderSetting): ProviderForm {
  return {
    id: setting.id,
    name: setting.name ?? "",
    npm: setting.npm ?? "@ai-sdk/openai-compatible",
    baseURL: setting.baseURL ?? "",
    models: setting.models.join(", "),
    apiKey: "",
  };
}

/** "gpt-4o, gpt-4o-mini\no3" → three ids, in order, each once. */
export function parseModelList(text: string): string[] {
  const ids = text.split(/[\s,]+/).filter((id) => id !== "");
  return ids.filter((id, index) => ids.indexOf(id) === index);
}

function isWebAddress(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

/**
 * Checks what the person can fix before saving. The core checks again (and knows which
 * providers need no base URL), so its answer is the last word.
 */
export function checkProviderForm(form: ProviderForm): FormCheck {
  const problems: Partial<Record<FormField, MessageKey>> = {};
  const id = form.id.trim();
  if (id === "") problems.id = "settings.idMissing";
  else if (!/^[A-Za-z0-9._-]{1,64}$/.test(id)) problems.id = "settings.idInvalid";
  else if (id === reservedProviderId) problems.id = "settings.idReserved";
  const baseURL = form.baseURL.trim();
  if (baseURL !== "" && !isWebAddress(baseURL)) problems.baseURL = "settings.baseUrlInvalid";
  const models = parseModelList(form.models);
  if (models.length === 0) problems.models = "settings.modelsMissing";
  const apiKey = form.apiKey.trim();
  if (/\s/.test(apiKey)) problems.apiKey = "settings.keyInvalid";
  if (Object.keys(problems).length > 0) return { ok: false, problems };
  const name = form.name.trim();
  return {
    ok: true,
    input: {
      id,
      npm: form.npm,
      models,
      ...(name === "" ? {} : { name }),
      ...(baseURL === "" ? {} : { baseURL }),
      ...(apiKey === "" ? {} : { apiKey }),
    },
  };
}

/** "sk-…abcd (keychain)", "No key" — what the list shows about a provider's key. */
export function describeKey(t: Translate, key: KeyStatus | undefined): string {
  if (key === undefined) return t("settings.noKey");
  const source = key.source === "keychain" ? t("settings.keyFromKeychain") : key.source === "config" ? t("settings.keyFromConfig") : t("settings.keyFromEnvironment");
  return t("settings.keyHint", { hint: key.hint, source });
}

/** The label of a provider's package, or the package name itself when we do not know it. */
export function kindLabel(t: Translate, npm: string | undefined): string {
  const kind = providerKinds.find((candidate) => candidate.npm === npm);
  return kind === undefined ? (npm ?? t("settings.kindCompatible")) : t(kind.label);
}
