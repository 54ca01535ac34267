// A row of buttons that is one Tab stop: ←/→ (and Home/End) move between its buttons, and Tab
// leaves the row. Used for the conversation's header (the sidebar toggle, Undo, Redo, Find and
// the session's menu), whose buttons come and go with the open session and the window's width,
// so the one stop is kept by watching the row rather than by each button knowing its place.
import { onCleanup, onMount } from "solid-js";
import { rovingIndex } from "./keyboard-focus";

/** The buttons of the row that can take focus now: enabled, shown, and not inside an open menu. */
export function rowItems(row: HTMLElement, selector: string): HTMLElement[] {
  return Array.from(row.querySelectorAll<HTMLElement>(selector)).filter(
    (item) => !(item as HTMLButtonElement).disabled && item.closest("[role=menu]") === null && getComputedStyle(item).display !== "none",
  );
}

/** Where ←, →, Home or End moves in a row of `count` items; undefined for other keys. */
export function rowIndex(key: string, current: number, count: number): number | undefined {
  // The list's rule turned on its side: → is ↓, ← is ↑ (and ↑/↓ themselves do nothing in a row).
  const listKey = { ArrowRight: "ArrowDown", ArrowLeft: "ArrowUp", Home: "Home", End: "End" }[key];
  return listKey === undefined ? undefined : rovingIndex(listKey, current, count);
}

/**
 * Makes the buttons of `row` matching `selector` one Tab stop: the one last focused (else the
 * first) has tabindex 0, the others -1, kept so as buttons appear, are disabled or are hidden
 * by the window's width. Returns the row's keydown handler; call inside a component.
 */
export function createRovingRow(row: () => HTMLElement | undefined, selector: string): (event: KeyboardEvent) => void {
  let remembered: HTMLElement | undefined;
  const apply = () => {
    const element = row();
    if (element === undefined) return;
    const items = rowItems(element, selector);
    const stop = remembered !== undefined && items.includes(remembered) ? remembered : items[0];
    for (const item of element.querySelectorAll<HTMLElement>(selector)) {
      if (item.closest("[role=menu]") !== null) continue;
      const wanted = item === stop ? "0" : "-1";
      if (item.getAttribute("tabindex") !== wanted) item.setAttribute("tabindex", wanted);
    }
  };
  const onFocusIn = (event: FocusEvent) => {
    const element = row();
    const target = event.target;
    if (element === undefined || !(target instanceof HTMLElement) || !rowItems(element, selector).includes(target)) return;
    remembered = target;
    apply();
  };
  // Buttons appear and go with the session, are disabled (Undo with nothing to undo), or hide
  // in a narrow window (CSS): each time, the row must still have exactly one stop.
  const mutations = new MutationObserver(apply);
  // (Absent from the unit tests' DOM, which has no layout to hide anything by.)
  const resizes = typeof ResizeObserver === "undefined" ? undefined : new ResizeObserver(apply);
  onMount(() => {
    const element = row();
    if (element === undefined) return;
    element.addEventListener("focusin", onFocusIn);
    mutations.observe(element, { subtree: true, childList: true, attributes: true, attributeFilter: ["disabled"] });
    resizes?.observe(element);
    apply();
  });
  onCleanup(() => {
    mutations.disconnect();
    resizes?.disconnect();
    row()?.removeEventListener("focusin", onFocusIn);
  });
  return (event) => {
    const element = row();
    const target = event.target;
    if (element === undefined || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || !(target instanceof HTMLElement)) return;
    if (target.closest("[role=menu]") !== null) return;
    const items = rowItems(element, selector);
    const at = items.indexOf(target);
    if (at < 0) return;
    const next = rowIndex(event.key, at, items.length);
    if (next === undefined) return;
    event.preventDefault();
    items[next]?.focus();
  };
}
