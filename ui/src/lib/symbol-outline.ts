// The composer chip's outline picker (components/SymbolPicker.tsx): a text file's symbols from the
// backend (built-in grammars, docs/symbols.md) flattened into one indented list, filtered by what is
// typed, and the line range a chosen symbol narrows the chip to.
import type { DocumentSymbol } from "./bindings/DocumentSymbol";
import type { Attachment } from "./drafts";

/** One row of the picker: a symbol and how deep it is nested. */
export interface OutlineRow {
  symbol: DocumentSymbol;
  depth: number;
}

/** Depth-first, in the file's order: a class, then its methods. */
export function flattenOutline(symbols: readonly DocumentSymbol[]): OutlineRow[] {
  const rows: OutlineRow[] = [];
  const pending: OutlineRow[] = symbols.map((symbol) => ({ symbol, depth: 0 })).reverse();
  for (let row = pending.pop(); row !== undefined; row = pending.pop()) {
    rows.push(row);
    const depth = row.depth + 1;
    pending.push(...row.symbol.children.map((symbol) => ({ symbol, depth })).reverse());
  }
  return rows;
}

/** Rows whose name contains every typed word (case-insensitive); all rows for an empty query. */
export function filterOutline(rows: readonly OutlineRow[], query: string): OutlineRow[] {
  const words = query.toLowerCase().split(/\s+/).filter((word) => word !== "");
  return rows.filter((row) => words.every((word) => row.symbol.name.toLowerCase().includes(word)));
}

/**
 * The chip's range for a symbol: its own lines, counted from 1 as the Read tool counts them. The
 * draft's `?start=&end=` then reads exactly those lines. A symbol on one line is sent with the line
 * after it: `start` equal to `end` would be taken as the seed's request for the symbol *starting* on
 * that line counted from 0 (one line later), not as this line.
 */
export function symbolRange(symbol: DocumentSymbol): { start: number; end: number } {
  const start = symbol.line + 1;
  return { start, end: Math.max(symbol.endLine + 1, start + 1) };
}

/** Only a text file on this machine (`file:` URL) has an outline to pick from. */
export function hasOutline(attachment: Attachment): boolean {
  return attachment.kind === "text" && attachment.url.startsWith("file:") && attachment.resource === undefined;
}

/** The chip narrowed to `range`, or the whole file again when `range` is `undefined`. */
export function narrowed(attachment: Attachment, range: { start: number; end: number } | undefined): Attachment {
  const copy = { ...attachment };
  if (range === undefined) delete copy.range;
  else copy.range = range;
  return copy;
}
