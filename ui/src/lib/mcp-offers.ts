// What connected MCP servers offer in the composer, the logic without the views: whether there
// are resources to offer at all, the resource picker's search and the attachment a chosen resource becomes (a `file` draft whose source is
// the resource, read by the server when the prompt is sent), and the `/` menu's prompts — when
// the menu is open, which prompts the typed words match, and the arguments a prompt needs.
import type { McpPromptArgument } from "./bindings/McpPromptArgument";
import type { McpPromptItem } from "./bindings/McpPromptItem";
import type { McpResourceItem } from "./bindings/McpResourceItem";
import type { McpStatus } from "./bindings/McpStatus";
import type { Attachment } from "./drafts";

/**
 * Whether any connected server offers resources: the composer shows its Resources button only
 * then, since a button that can only say "nothing here" is a dead end in every message.
 */
export function offersResources(statuses: Iterable<McpStatus | undefined>): boolean {
  for (const status of statuses) if (status?.status === "connected" && status.resources > 0) return true;
  return false;
}

/** Resources whose name, address, server or description holds every word of `query`. */
export function filterResources(items: readonly McpResourceItem[], query: string): McpResourceItem[] {
  const words = query.toLowerCase().split(/\s+/).filter((word) => word !== "");
  return items.filter((item) => {
    const haystack = [item.name, item.uri, item.clientName, item.description ?? ""].join(" ").toLowerCase();
    return words.every((word) => haystack.includes(word));
  });
}

/** The composer's attachment for a chosen resource; its key keeps one chip per resource. */
export function resourceAttachment(item: McpResourceItem): Attachment {
  const mime = item.mimeType ?? "text/plain";
  return {
    key: `mcp:${item.clientName}:${item.uri}`,
    name: item.name,
    // Only the kinds the composer sends; the server decides what the resource really holds.
    kind: mime.startsWith("image/") ? "image" : mime === "application/pdf" ? "pdf" : "text",
    mime,
    url: item.uri,
    resource: { clientName: item.clientName, uri: item.uri },
  };
}

/**
 * The words after a `/` that starts the message (no line break yet): the `/` menu is open for
 * them. `undefined` when the text does not start with `/`, so a `/` inside a sentence is text.
 */
export function slashQuery(text: string): string | undefined {
  const match = /^\/([^\s]*)$/.exec(text);
  return match === null ? undefined : (match[1] ?? "");
}

/** How a prompt is written in the menu and matched: `server:prompt`. */
export function promptLabel(prompt: Pick<McpPromptItem, "clientName" | "name">): string {
  return `${prompt.clientName}:${prompt.name}`;
}

/** Prompts whose label holds `query` (case aside); those starting with it first. */
export function filterPrompts(items: readonly McpPromptItem[], query: string): McpPromptItem[] {
  const wanted = query.toLowerCase();
  const matching = items.filter((item) => promptLabel(item).toLowerCase().includes(wanted));
  const starts = (item: McpPromptItem) =>
    item.name.toLowerCase().startsWith(wanted) || promptLabel(item).toLowerCase().startsWith(wanted);
  return [...matching.filter(starts), ...matching.filter((item) => !starts(item))];
}

/** The required arguments left empty, by name; empty when the prompt can be fetched. */
export function missingArguments(argumentsWanted: readonly McpPromptArgument[], values: Record<string, string>): string[] {
  return argumentsWanted.filter((argument) => argument.required && (values[argument.name] ?? "").trim() === "").map((argument) => argument.name);
}

/** The values to send: the ones typed, without empty optional ones. */
export function promptArguments(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value.trim() !== ""));
}

/** The next highlighted row of a list of `length` after `delta` (wrapping round). */
export function moveHighlight(index: number, delta: number, length: number): number {
  if (length === 0) return 0;
  return (((index + delta) % length) + length) % length;
}
