import { describe, expect, it } from "vitest";
import type { SearchResult } from "./bindings/SearchResult";
import { destination, paletteItems, stepIndex } from "./search-palette";
import { session } from "./transport/fake-backend";

const piece = (text: string, highlighted = false) => ({ text, highlighted });

const results: SearchResult[] = [
  {
    session: session("ses_b", "Quokka facts", 2),
    excerpts: [
      { field: "title", pieces: [piece("Quokka", true), piece(" facts")] },
      { field: "text", messageID: "msg_9", partID: "prt_9", pieces: [piece("a "), piece("quokka", true)] },
    ],
  },
  { session: session("ses_a", "Zoo", 1), excerpts: [{ field: "reasoning", messageID: "msg_2", partID: "prt_2", pieces: [piece("quokka", true)] }] },
];

describe("paletteItems", () => {
  it("lists one row per excerpt in the core's order, the title once per session", () => {
    const items = paletteItems(results);
    expect(items.map((item) => [item.session.id, item.excerpt.field, item.first])).toEqual([
      ["ses_b", "title", true],
      ["ses_b", "text", false],
      ["ses_a", "reasoning", true],
    ]);
    expect(new Set(items.map((item) => item.key)).size).toBe(3);
  });

  it("leads a title match to the session and a message match to its message", () => {
    const [title, message] = paletteItems(results);
    expect(title && destination(title)).toEqual({ sessionId: "ses_b", messageId: undefined });
    expect(message && destination(message)).toEqual({ sessionId: "ses_b", messageId: "msg_9" });
  });

  it("is empty for no results", () => {
    expect(paletteItems([])).toEqual([]);
  });
});

describe("stepIndex", () => {
  it.each([
    [0, 1, 3, 1],
    [2, 1, 3, 0],
    [0, -1, 3, 2],
    [-1, 1, 3, 0],
    [-1, -1, 3, 2],
    [1, 5, 3, 0],
    [0, 1, 0, -1],
  ])("from %i by %i among %i goes to %i", (current, delta, count, expected) => {
    expect(stepIndex(current, delta, count)).toBe(expected);
  });
});
