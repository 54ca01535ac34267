// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { cycleTab, focusWhenPresent, rovingIndex, tabbableWithin } from "./keyboard-focus";

describe("rovingIndex", () => {
  it.each([
    ["ArrowDown", 0, 3, 1],
    ["ArrowDown", 2, 3, 2],
    ["ArrowUp", 2, 3, 1],
    ["ArrowUp", 0, 3, 0],
    ["Home", 2, 3, 0],
    ["End", 0, 3, 2],
    ["ArrowDown", -1, 3, 1],
    ["ArrowUp", 9, 3, 1],
  ])("%s from %i of %i goes to %i", (key, current, count, expected) => {
    expect(rovingIndex(key, current, count)).toBe(expected);
  });

  it("ignores other keys and empty lists", () => {
    expect(rovingIndex("Enter", 0, 3)).toBeUndefined();
    expect(rovingIndex("ArrowDown", 0, 0)).toBeUndefined();
  });
});

describe("tab stops in a dialog", () => {
  afterEach(() => {
    document.body.innerHTML = "";
  });

  const dialog = () => {
    document.body.innerHTML = `
      <div id="dialog">
        <button id="first">First</button>
        <button disabled>Off</button>
        <span tabindex="-1" id="skipped">Not a stop</span>
        <input id="middle" />
        <button id="last">Last</button>
      </div>
      <button id="outside">Outside</button>`;
    return document.getElementById("dialog") as HTMLElement;
  };
  const tab = (container: HTMLElement, shiftKey = false) => {
    const event = new KeyboardEvent("keydown", { key: "Tab", shiftKey, cancelable: true });
    cycleTab(event, container);
    return event.defaultPrevented;
  };

  it("lists enabled stops in order, leaving out tabindex -1", () => {
    expect(tabbableWithin(dialog()).map((element) => element.id)).toEqual(["first", "middle", "last"]);
  });

  it("wraps Tab from the last stop to the first", () => {
    const container = dialog();
    document.getElementById("last")?.focus();
    expect(tab(container)).toBe(true);
    expect(document.activeElement?.id).toBe("first");
  });

  it("wraps Shift+Tab from the first stop to the last", () => {
    const container = dialog();
    document.getElementById("first")?.focus();
    expect(tab(container, true)).toBe(true);
    expect(document.activeElement?.id).toBe("last");
  });

  it("leaves Tab between inner stops to the browser", () => {
    const container = dialog();
    document.getElementById("first")?.focus();
    expect(tab(container)).toBe(false);
  });

  it("pulls focus from outside back in", () => {
    const container = dialog();
    document.getElementById("outside")?.focus();
    expect(tab(container)).toBe(true);
    expect(document.activeElement?.id).toBe("first");
  });
});

describe("focusWhenPresent", () => {
  const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));

  it("focuses the element once it appears, a few frames later", async () => {
    const button = document.createElement("button");
    let present = false;
    focusWhenPresent(() => (present ? button : null));
    document.body.append(button);
    present = true;
    await nextFrame();
    await nextFrame();
    expect(document.activeElement).toBe(button);
    button.remove();
  });

  it("gives up a wish that a newer one replaced, so an old wish cannot take the focus back", async () => {
    const older = document.createElement("button");
    const newer = document.createElement("button");
    document.body.append(older, newer);
    let olderPresent = false;
    // The older wish waits for its row; meanwhile the person's key asks for another element.
    focusWhenPresent(() => (olderPresent ? older : null), 20);
    focusWhenPresent(() => newer);
    expect(document.activeElement).toBe(newer);
    olderPresent = true;
    for (let frame = 0; frame < 5; frame += 1) await nextFrame();
    expect(document.activeElement).toBe(newer);
    older.remove();
    newer.remove();
  });
});
