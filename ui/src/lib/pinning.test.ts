import { describe, expect, it } from "vitest";
import { nextPinned } from "./pinning";

describe("nextPinned", () => {
  it("pins at the bottom, within the slack", () => {
    expect(nextPinned(false, { scrollTop: 1400, clientHeight: 600, scrollHeight: 2000 }, 1000)).toBe(true);
    expect(nextPinned(false, { scrollTop: 1370, clientHeight: 600, scrollHeight: 2000 }, 1000)).toBe(true);
  });
  it("unpins when the reader moves up", () => {
    expect(nextPinned(true, { scrollTop: 1200, clientHeight: 600, scrollHeight: 2000 }, 1400)).toBe(false);
  });
  it("stays pinned when content grows below without a move up", () => {
    expect(nextPinned(true, { scrollTop: 1400, clientHeight: 600, scrollHeight: 2600 }, 1400)).toBe(true);
  });
  it("stays unpinned while the reader moves down but short of the bottom", () => {
    expect(nextPinned(false, { scrollTop: 900, clientHeight: 600, scrollHeight: 2600 }, 800)).toBe(false);
  });
});
