// Groups a user message's parts for display: the person's own text, the files and agents they
// attached, and the synthetic context the backend added (a Read tool call and its output) folded
// into one compact line — "Read package.json · 42 lines" — that expands to the exact text.
import type { Part } from "./bindings/Part";

type PartOf<T extends Part["type"]> = Extract<Part, { type: T }>;

export type UserItem =
  | { kind: "text"; id: string; text: string }
  | { kind: "context"; id: string; name: string; lines?: number; entries?: number; text: string }
  | { kind: "failure"; id: string; name: string; text: string }
  | { kind: "file"; id: string; part: PartOf<"file"> }
  | { kind: "agent"; id: string; part: PartOf<"agent"> };

const readCallPrefix = "Called the Read tool with the following input: ";
const failurePattern = /^Read tool failed to read (.+?) with the following error: /;

function baseName(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, "");
  return trimmed.slice(Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\")) + 1) || path;
}

function readTarget(text: string): string | undefined {
  if (!text.startsWith(readCallPrefix)) return undefined;
  try {
    const input: unknown = JSON.parse(text.slice(readCallPrefix.length));
    const path: unknown = typeof input === "object" && input !== null ? Reflect.get(input, "filePath") : undefined;
    return typeof path === "string" ? path : "";
  } catch {
    return "";
  }
}

/** Lines of a file read, or entries of a folder listing, as the Read tool reported them. */
export function measureReadOutput(text: string): { lines?: number; entries?: number } {
  const total = /\(End of file - total (\d+) lines\)/.exec(text);
  if (total?.[1] !== undefined) return { lines: Number(total[1]) };
  const entries = /<entries>\n?([\s\S]*?)\n?<\/entries>/.exec(text);
  if (entries?.[1] !== undefined) {
    return { entries: entries[1].split("\n").filter((line) => line.trim() !== "" && !line.startsWith("(")).length };
  }
  const content = /<content>\n?([\s\S]*?)\n?<\/content>/.exec(text);
  if (content?.[1] !== undefined) return { lines: content[1].split("\n").filter((line) => /^\d+: /.test(line)).length };
  return { lines: countLines(text) };
}

/**
 * Lines as the Read tool counts them: a newline ends a line rather than starting one, so
 * "alpha\nbeta\ngamma\n" is three lines (splitting on "\n" would say four).
 */
export function countLines(text: string): number {
  if (text === "") return 0;
  const breaks = text.split("\n").length - 1;
  return text.endsWith("\n") ? breaks : breaks + 1;
}

export function groupUserParts(parts: readonly Part[]): UserItem[] {
  const items: UserItem[] = [];
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index];
    if (part === undefined) continue;
    if (part.type === "file") {
      items.push({ kind: "file", id: part.id, part });
      continue;
    }
    if (part.type === "agent") {
      items.push({ kind: "agent", id: part.id, part });
      continue;
    }
    if (part.type !== "text" || part.ignored === true) continue;
    if (part.synthetic !== true) {
      items.push({ kind: "text", id: part.id, text: part.text });
      continue;
    }
    const failure = failurePattern.exec(part.text);
    if (failure?.[1] !== undefined) {
      items.push({ kind: "failure", id: part.id, name: baseName(failure[1]), text: part.text });
      continue;
    }
    const target = readTarget(part.text);
    const next = parts[index + 1];
    if (target !== undefined && next?.type === "text" && next.synthetic === true && failurePattern.test(next.text)) {
      // A Read call that failed (the call is recorded before the failure, as OpenCode does):
      // the failure line names the file and says why, the call adds nothing for a person.
      continue;
    }
    if (target !== undefined && next?.type === "text" && next.synthetic === true) {
      const pathMatch = /<path>(.*?)<\/path>/.exec(next.text);
      const name = baseName(target !== "" ? target : (pathMatch?.[1] ?? ""));
      items.push({ kind: "context", id: part.id, name, text: next.text, ...measureReadOutput(next.text) });
      index += 1;
      continue;
    }
    if (target !== undefined && target !== "") {
      // A Read call whose result is an attachment (image, PDF): the file part follows.
      items.push({ kind: "context", id: part.id, name: baseName(target), text: part.text });
      continue;
    }
    // Other synthetic text (hook output, notes): still context, shown folded with its own text.
    items.push({ kind: "context", id: part.id, name: "", text: part.text });
  }
  return items;
}
