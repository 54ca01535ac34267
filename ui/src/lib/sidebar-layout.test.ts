import { describe, expect, it } from "vitest";
import { narrowWindowQuery, sidebarLayout } from "./sidebar-layout";

describe("sidebarLayout", () => {
  it.each([
    [{ narrow: false, collapsedByChoice: false, openedWhileNarrow: false }, "beside"],
    [{ narrow: false, collapsedByChoice: true, openedWhileNarrow: false }, "hidden"],
    // A wide window ignores a narrow one's opening: the remembered choice rules.
    [{ narrow: false, collapsedByChoice: true, openedWhileNarrow: true }, "hidden"],
    [{ narrow: true, collapsedByChoice: false, openedWhileNarrow: false }, "hidden"],
    [{ narrow: true, collapsedByChoice: true, openedWhileNarrow: true }, "over"],
    [{ narrow: true, collapsedByChoice: false, openedWhileNarrow: true }, "over"],
  ] as const)("%j is %s", (input, layout) => {
    expect(sidebarLayout(input)).toBe(layout);
  });

  it("calls 699 px narrow and 700 px wide", () => {
    expect(narrowWindowQuery).toBe("(max-width: 699.98px)");
  });
});
