// Builds a prompt's drafts exactly as OpenCode's client does: the text first, then one file draft
// per attachment (`{type:"file", mime, filename, url}`; `file://` on the desktop, `data:` in a
// browser), then one agent draft per `@agent` mention with the span it came from.
import type { Agent } from "./bindings/Agent";
import type { Draft } from "./bindings/Draft";
import type { DropKind } from "./shell-bindings/DropKind";
import type { DroppedFile } from "./shell-bindings/DroppedFile";

/** A file waiting in the composer, whichever way it arrived. */
export interface Attachment {
  /** Unique within the composer (the path, or a generated key for browser files). */
  key: string;
  name: string;
  size?: number;
  kind: DropKind;
  mime: string;
  url: string;
  /** The operating system's words when the file cannot be read. */
  reason?: string;
  /** Only these lines of a text file (1-based, inclusive), sent as `?start=&end=` on the URL. */
  range?: { start: number; end: number };
  /** An MCP server's resource (`url` is its address): the server reads it when the prompt goes. */
  resource?: { clientName: string; uri: string };
}

/** The file URL with OpenCode's line-range query, when a range is set. */
export function rangedUrl(attachment: Attachment): string {
  if (attachment.range === undefined || attachment.kind !== "text" || !attachment.url.startsWith("file:")) return attachment.url;
  const url = new URL(attachment.url);
  url.searchParams.set("start", String(attachment.range.start));
  url.searchParams.set("end", String(attachment.range.end));
  return url.toString();
}

const sendableKinds: readonly DropKind[] = ["text", "folder", "image", "pdf"];

export function isSendable(attachment: Attachment): boolean {
  return sendableKinds.includes(attachment.kind);
}

export function attachmentFromDrop(file: DroppedFile): Attachment {
  return {
    key: file.path,
    name: file.name,
    kind: file.kind,
    mime: file.mime,
    url: file.url,
    ...(file.size === undefined ? {} : { size: file.size }),
    ...(file.reason === undefined ? {} : { reason: file.reason }),
  };
}

export interface Mention {
  name: string;
  start: number;
  end: number;
}

/** `@name` mentions of known agents, with their character spans in the text. */
export function agentMentions(text: string, agents: readonly Pick<Agent, "name">[]): Mention[] {
  const known = new Set(agents.map((agent) => agent.name));
  const mentions: Mention[] = [];
  for (const match of text.matchAll(/(^|\s)@([\w-]+)/g)) {
    const name = match[2] ?? "";
    if (!known.has(name)) continue;
    const start = match.index + (match[1]?.length ?? 0);
    mentions.push({ name, start, end: start + name.length + 1 });
  }
  return mentions;
}

export function buildDrafts(text: string, attachments: readonly Attachment[], agents: readonly Pick<Agent, "name">[]): Draft[] {
  const drafts: Draft[] = [];
  if (text.trim() !== "") drafts.push({ type: "text", text });
  for (const attachment of attachments.filter(isSendable)) {
    // A resource's chip is not in the text, so the source's span of the text is empty.
    const source =
      attachment.resource === undefined ? {} : { source: { type: "resource" as const, text: { value: "", start: 0, end: 0 }, ...attachment.resource } };
    drafts.push({ type: "file", mime: attachment.mime, filename: attachment.name, url: rangedUrl(attachment), ...source });
  }
  for (const mention of agentMentions(text, agents)) {
    drafts.push({
      type: "agent",
      name: mention.name,
      source: { value: text.slice(mention.start, mention.end), start: mention.start, end: mention.end },
    });
  }
  return drafts;
}

/** Browser files (file input, HTML drop, paste) become `data:` URLs: the server cannot read paths. */
export async function attachmentFromBrowserFile(file: File, limitBytes: number): Promise<Attachment> {
  const kind = browserKind(file, limitBytes);
  const base = { key: `${file.name}:${String(file.size)}:${String(file.lastModified)}`, name: file.name, size: file.size, kind };
  if (!sendableKinds.includes(kind)) return { ...base, mime: file.type || "application/octet-stream", url: "" };
  const mime = kind === "text" ? "text/plain" : file.type;
  const url = await new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      resolve(typeof reader.result === "string" ? reader.result : "");
    };
    reader.onerror = () => {
      reject(reader.error ?? new Error("unreadable"));
    };
    reader.readAsDataURL(file);
  });
  return { ...base, mime, url: url.replace(/^data:[^;,]*/, `data:${mime}`) };
}

function browserKind(file: File, limitBytes: number): DropKind {
  const media = file.type.startsWith("image/") || file.type === "application/pdf";
  if (media && file.size > limitBytes) return "too-large";
  if (file.type === "application/pdf") return "pdf";
  if (/^image\/(png|jpeg|gif|webp)$/.test(file.type)) return "image";
  if (file.type === "" || file.type.startsWith("text/") || /json|xml|javascript|yaml|toml/.test(file.type)) return "text";
  return "binary";
}
