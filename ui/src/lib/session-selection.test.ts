import { describe, expect, it } from "vitest";
import { extend, noSelection, prune, selectedInOrder, toggle } from "./session-selection";

const order = ["ses_e", "ses_d", "ses_c", "ses_b", "ses_a"];
const ids = (selection: { ids: ReadonlySet<string> }) => [...selection.ids].sort();

describe("session selection", () => {
  it("toggles one row and remembers it as the anchor", () => {
    const one = toggle(noSelection, "ses_d");
    expect(ids(one)).toEqual(["ses_d"]);
    expect(one.anchor).toBe("ses_d");
    expect(ids(toggle(one, "ses_d"))).toEqual([]);
  });

  it("extends from the anchor to the clicked row in either direction", () => {
    const down = extend(toggle(noSelection, "ses_d"), order, "ses_b");
    expect(selectedInOrder(down, order)).toEqual(["ses_d", "ses_c", "ses_b"]);
    const up = extend(toggle(noSelection, "ses_b"), order, "ses_e");
    expect(selectedInOrder(up, order)).toEqual(["ses_e", "ses_d", "ses_c", "ses_b"]);
  });

  it("without an anchor, a Shift-click selects just that row", () => {
    expect(ids(extend(noSelection, order, "ses_c"))).toEqual(["ses_c"]);
  });

  it("drops rows the sidebar no longer shows, so no hidden session is acted on", () => {
    const selection = extend(toggle(noSelection, "ses_e"), order, "ses_c");
    const filtered = prune(selection, ["ses_d", "ses_a"]);
    expect(ids(filtered)).toEqual(["ses_d"]);
    expect(filtered.anchor).toBeUndefined();
    expect(prune(filtered, ["ses_d", "ses_a"])).toBe(filtered);
  });

  it("lists the selected ids in the order they are shown", () => {
    const selection = toggle(toggle(noSelection, "ses_a"), "ses_e");
    expect(selectedInOrder(selection, order)).toEqual(["ses_e", "ses_a"]);
  });
});
