// Settings → MCP servers, the logic without the view: the form a server is edited in and the
// input it becomes (a command line split as a shell would, values whose secret is kept unless
// retyped), and what a status says to a person.
import type { McpServerInput } from "./bindings/McpServerInput";
import type { McpServerKind } from "./bindings/McpServerKind";
import type { McpServerSetting } from "./bindings/McpServerSetting";
import type { McpStatus } from "./bindings/McpStatus";
import type { MessageKey, Translate } from "./i18n";

export interface McpValueRow {
  name: string;
  /** What the person typed; empty keeps the stored value when `stored` is true. */
  value: string;
  /** The value is already saved (in the keychain, an environment variable or the file). */
  stored: boolean;
}

export interface McpForm {
  name: string;
  kind: McpServerKind;
  commandLine: string;
  url: string;
  values: McpValueRow[];
  enabled: boolean;
  /** Milliseconds as typed; empty for the default. */
  timeout: string;
}

export type McpFormField = "name" | "commandLine" | "url" | "values" | "timeout";

export function emptyMcpForm(): McpForm {
  return { name: "", kind: "local", commandLine: "", url: "", values: [], enabled: true, timeout: "" };
}

/** Splits a command line into the program and its arguments: spaces separate, quotes group. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let current = "";
  let started = false;
  let quote: '"' | "'" | undefined;
  for (const symbol of line) {
    if (quote !== undefined) {
      if (symbol === quote) quote = undefined;
      else current += symbol;
    } else if (symbol === '"' || symbol === "'") {
      quote = symbol;
      started = true;
    } else if (/\s/.test(symbol)) {
      if (started) words.push(current);
      current = "";
      started = false;
    } else {
      current += symbol;
      started = true;
    }
  }
  if (started) words.push(current);
  return words;
}

/** The inverse, for showing a saved command: words with spaces or quotes are quoted. */
export function joinCommandLine(words: readonly string[]): string {
  return words.map((word) => (word === "" || /[\s"']/.test(word) ? (word.includes('"') ? `'${word}'` : `"${word}"`) : word)).join(" ");
}

export function formFromMcpSetting(setting: McpServerSetting): McpForm {
  return {
    name: setting.name,
    kind: setting.kind,
    commandLine: joinCommandLine(setting.command),
    url: setting.url ?? "",
    values: setting.values.map((value) => ({ name: value.name, value: "", stored: true })),
    enabled: setting.enabled,
    timeout: setting.timeout === undefined ? "" : String(setting.timeout),
  };
}

/**
 * The core's rule for a server's name (tool_prefix.rs): at most 64 characters, no control
 * characters, and at least one letter A–Z or digit, since its tools are offered to the model as
 * `<name>_<tool>` with every other character made `_`. Spaces are fine ("My files").
 */
function nameIsUsable(name: string): boolean {
  // Array.from counts code points, as Rust's `chars()` does.
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  return Array.from(name).length <= 64 && !/[\u0000-\u001f\u007f-\u009f]/.test(name) && /[A-Za-z0-9]/.test(name);
}

/** The input to save, or what to fix in which field (as i18n keys). */
export function checkMcpForm(form: McpForm): { input: McpServerInput } | { problems: Partial<Record<McpFormField, MessageKey>> } {
  const problems: Partial<Record<McpFormField, MessageKey>> = {};
  const name = form.name.trim();
  if (name === "") problems.name = "mcp.nameMissing";
  else if (!nameIsUsable(name)) problems.name = "mcp.nameInvalid";
  const command = splitCommandLine(form.commandLine);
  if (form.kind === "local" && command.length === 0) problems.commandLine = "mcp.commandMissing";
  const url = form.url.trim();
  if (form.kind === "remote" && !/^https?:\/\/\S+$/.test(url)) problems.url = "mcp.urlInvalid";
  const rows = form.values.filter((row) => row.name.trim() !== "" || row.value !== "");
  const names = rows.map((row) => row.name.trim());
  if (names.some((rowName) => rowName === "" || /\s/.test(rowName)) || new Set(names).size !== names.length) problems.values = "mcp.valuesInvalid";
  else if (rows.some((row) => !row.stored && row.value === "")) problems.values = "mcp.valueMissing";
  const timeout = form.timeout.trim();
  if (timeout !== "" && !/^\d+$/.test(timeout)) problems.timeout = "mcp.timeoutInvalid";
  if (Object.keys(problems).length > 0) return { problems };
  const input: McpServerInput = {
    name,
    kind: form.kind,
    values: rows.map((row) => (row.value === "" ? { name: row.name.trim() } : { name: row.name.trim(), value: row.value })),
    enabled: form.enabled,
  };
  if (form.kind === "local") input.command = command;
  else input.url = url;
  if (timeout !== "") input.timeout = Number(timeout);
  return { input };
}

/** One line for a server's status. */
export function describeMcpStatus(t: Translate, status: McpStatus | undefined): string {
  if (status === undefined) return t("mcp.statusUnknown");
  switch (status.status) {
    case "connecting":
      return t("mcp.statusConnecting");
    case "connected":
      return t("mcp.statusConnected", { tools: status.tools, resources: status.resources, prompts: status.prompts });
    case "disabled":
      return t("mcp.statusDisabled");
    case "failed":
      return t("mcp.statusFailed", { error: status.error });
  }
}

/** Which of Connect / Disconnect / Restart a server in this status offers. */
export function mcpActions(status: McpStatus | undefined): { connect: boolean; disconnect: boolean; restart: boolean } {
  const state = status?.status;
  return {
    connect: state === "disabled" || state === "failed",
    disconnect: state === "connected" || state === "connecting" || state === "failed",
    restart: state === "connected" || state === "failed",
  };
}

/** The last lines a failed server wrote to its stderr, when there are any. */
export function failedStderr(status: McpStatus | undefined): string[] | undefined {
  if (status?.status !== "failed") return undefined;
  // The server leaves `stderr` out when it is empty (serde's skip), whatever the binding says.
  const lines = status.stderr;
  return Array.isArray(lines) && lines.length > 0 ? lines : undefined;
}
