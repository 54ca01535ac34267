import { describe, expect, it } from "vitest";
import { heldScrollTop, nearTop, newestInView, nextPinned } from "./pinning";

describe("nextPinned", () => {
  it("pins at the bottom, within the slack", () => {
    expect(nextPinned(false, { scrollTop: 1400, clientHeight: 600, scrollHeight: 2000 }, 1000, true)).toBe(true);
    expect(nextPinned(false, { scrollTop: 1370, clientHeight: 600, scrollHeight: 2000 }, 1000, false)).toBe(true);
  });
  it("unpins when the reader moves up", () => {
    expect(nextPinned(true, { scrollTop: 1200, clientHeight: 600, scrollHeight: 2000 }, 1400, true)).toBe(false);
  });
  it("stays pinned when the list itself moves up (rows above measured shorter)", () => {
    expect(nextPinned(true, { scrollTop: 1200, clientHeight: 600, scrollHeight: 2000 }, 1400, false)).toBe(true);
  });
  it("stays pinned when content grows below without a move up", () => {
    expect(nextPinned(true, { scrollTop: 1400, clientHeight: 600, scrollHeight: 2600 }, 1400, true)).toBe(true);
  });
  it("stays unpinned while the reader moves down but short of the bottom", () => {
    expect(nextPinned(false, { scrollTop: 900, clientHeight: 600, scrollHeight: 2600 }, 800, true)).toBe(false);
  });
});

describe("paging older messages", () => {
  it("prefetches within one and a half screens of the top", () => {
    expect(nearTop({ scrollTop: 800, clientHeight: 600 })).toBe(true);
    expect(nearTop({ scrollTop: 0, clientHeight: 600 })).toBe(true);
    expect(nearTop({ scrollTop: 901, clientHeight: 600 })).toBe(false);
  });
  it("holds the reader's place when a page is added above", () => {
    // 3,000 px were added above: the same content is now 3,000 px further down.
    expect(heldScrollTop({ scrollTop: 500, scrollHeight: 6000 }, 9000)).toBe(3500);
    expect(heldScrollTop({ scrollTop: 0, scrollHeight: 6000 }, 6000)).toBe(0);
  });
});

describe("newestInView", () => {
  it("is in view when the newest message is on screen, its end at most half a screen below", () => {
    expect(newestInView({ top: 400, bottom: 500 }, 0, 600)).toBe(true);
    expect(newestInView({ top: 500, bottom: 880 }, 0, 600)).toBe(true);
  });

  it("is not when it ends further below, lies above or below the view, or is not rendered", () => {
    expect(newestInView({ top: 100, bottom: 2000 }, 0, 600)).toBe(false);
    expect(newestInView({ top: -200, bottom: -20 }, 0, 600)).toBe(false);
    expect(newestInView({ top: 620, bottom: 700 }, 0, 600)).toBe(false);
    expect(newestInView(undefined, 0, 600)).toBe(false);
  });
});
