import { describe, expect, it } from "vitest";
import { frameBatch } from "./frame-batch";

describe("frameBatch", () => {
  it("delivers every item, in order, in one flush per frame", () => {
    const frames: (() => void)[] = [];
    const flushed: number[][] = [];
    const push = frameBatch<number>((items) => flushed.push(items), (callback) => frames.push(callback));
    push(1);
    push(2);
    push(3);
    expect(frames).toHaveLength(1);
    frames.shift()?.();
    push(4);
    frames.shift()?.();
    expect(flushed).toEqual([[1, 2, 3], [4]]);
  });
});
