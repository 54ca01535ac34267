import { createRoot } from "solid-js";
import { afterEach, describe, expect, it } from "vitest";
import { createRovingRow, rowIndex } from "./roving-row";

afterEach(() => {
  document.body.innerHTML = "";
});

describe("a row of buttons as one Tab stop", () => {
  it.each([
    ["ArrowRight", 0, 3, 1],
    ["ArrowRight", 2, 3, 2],
    ["ArrowLeft", 0, 3, 0],
    ["Home", 2, 3, 0],
    ["End", 0, 3, 2],
  ])("%s from %i of %i goes to %i", (key, current, count, expected) => {
    expect(rowIndex(key, current, count)).toBe(expected);
  });

  it("keeps one stop as buttons come, go and are disabled; the arrows skip disabled ones and the menu", async () => {
    const row = document.createElement("header");
    row.innerHTML = `<button data-testid="toggle">T</button><button data-testid="undo" disabled>U</button><button data-testid="menu">M</button>
      <div role="menu"><button role="menuitem" tabindex="-1" data-testid="item">I</button></div>`;
    document.body.append(row);
    const dispose = createRoot((dispose) => {
      row.addEventListener("keydown", createRovingRow(() => row, "button"));
      return dispose;
    });
    await Promise.resolve();
    const stops = () => [...row.querySelectorAll("button")].filter((button) => button.tabIndex === 0).map((button) => button.dataset.testid);
    expect(stops()).toEqual(["toggle"]);
    expect(row.querySelector<HTMLElement>("[data-testid=item]")?.tabIndex).toBe(-1);
    (row.querySelector("[data-testid=toggle]") as HTMLElement).focus();
    document.activeElement?.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true, cancelable: true }));
    expect(document.activeElement?.getAttribute("data-testid")).toBe("menu");
    expect(stops()).toEqual(["menu"]);
    // The stop goes away: the first button is the stop again.
    row.querySelector("[data-testid=menu]")?.remove();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(stops()).toEqual(["toggle"]);
    // A button enabled later joins the row, out of the Tab order.
    row.querySelector("[data-testid=undo]")?.removeAttribute("disabled");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(stops()).toEqual(["toggle"]);
    expect(row.querySelector<HTMLElement>("[data-testid=undo]")?.tabIndex).toBe(-1);
    dispose();
  });
});
