import { describe, expect, it } from "vitest";
import type { DocumentSymbol } from "./bindings/DocumentSymbol";
import { rangedUrl, type Attachment } from "./drafts";
import { filterOutline, flattenOutline, hasOutline, narrowed, symbolRange } from "./symbol-outline";

const symbol = (name: string, line: number, endLine: number, children: DocumentSymbol[] = []): DocumentSymbol => ({
  name,
  kind: children.length > 0 ? "class" : "function",
  line,
  endLine,
  children,
});

const outline = [symbol("Shape", 3, 20, [symbol("area", 4, 6), symbol("perimeter", 8, 10)]), symbol("main", 22, 30)];

const textChip: Attachment = { key: "/work/shapes.py", name: "shapes.py", kind: "text", mime: "text/plain", url: "file:///work/shapes.py" };

describe("flattenOutline", () => {
  it("lists a class before its methods, one level deeper, in the file's order", () => {
    expect(flattenOutline(outline).map((row) => `${String(row.depth)}:${row.symbol.name}`)).toEqual(["0:Shape", "1:area", "1:perimeter", "0:main"]);
  });
});

describe("filterOutline", () => {
  it("keeps the rows whose names hold every typed word, ignoring case", () => {
    const rows = flattenOutline(outline);
    expect(filterOutline(rows, "PERI").map((row) => row.symbol.name)).toEqual(["perimeter"]);
    expect(filterOutline(rows, "  ").length).toBe(4);
    expect(filterOutline(rows, "zzz")).toEqual([]);
  });
});

describe("symbolRange", () => {
  it("counts the symbol's lines from 1, as the Read tool does", () => {
    expect(symbolRange(symbol("area", 4, 6))).toEqual({ start: 5, end: 7 });
  });

  it("never sends one line twice, which would ask for the symbol starting on the next line", () => {
    expect(symbolRange(symbol("LIMIT", 0, 0))).toEqual({ start: 1, end: 2 });
  });

  it("puts the range on the chip's file URL", () => {
    expect(rangedUrl({ ...textChip, range: symbolRange(symbol("area", 4, 6)) })).toBe("file:///work/shapes.py?start=5&end=7");
  });
});

describe("hasOutline", () => {
  it("offers the picker for a text file on this machine only", () => {
    expect(hasOutline(textChip)).toBe(true);
    expect(hasOutline({ ...textChip, url: "data:text/plain;base64,aGk=" })).toBe(false);
    expect(hasOutline({ ...textChip, kind: "folder" })).toBe(false);
    expect(hasOutline({ ...textChip, resource: { clientName: "docs", uri: "file:///x" } })).toBe(false);
  });
});

describe("narrowed", () => {
  it("sets the chip's range and takes it off again", () => {
    const narrow = narrowed(textChip, { start: 5, end: 7 });
    expect(narrow.range).toEqual({ start: 5, end: 7 });
    expect("range" in narrowed(narrow, undefined)).toBe(false);
    expect(textChip.range).toBeUndefined();
  });
});
