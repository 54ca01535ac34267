// Keyboard focus for lists and dialogs. A list is one Tab stop whose arrow keys move between its
// items (a "roving" tab index: the active item has tabindex 0, the others -1), and a modal takes
// focus when it opens, keeps Tab inside while it is open and hands focus back when it closes.
import { onCleanup, onMount } from "solid-js";

/** Where an arrow, Home or End key moves in a list of `count` items; undefined for other keys. */
export function rovingIndex(key: string, current: number, count: number): number | undefined {
  if (count <= 0) return undefined;
  const last = count - 1;
  const from = Math.min(Math.max(current, 0), last);
  switch (key) {
    case "ArrowDown":
      return Math.min(from + 1, last);
    case "ArrowUp":
      return Math.max(from - 1, 0);
    case "Home":
      return 0;
    case "End":
      return last;
    default:
      return undefined;
  }
}

const tabbableSelector = [
  "a[href]",
  "button:not([disabled])",
  "input:not([disabled]):not([type=hidden])",
  "select:not([disabled])",
  "textarea:not([disabled])",
  "summary",
  "[tabindex]",
].join(",");

/** The elements inside `container` that Tab stops at, in document order. */
export function tabbableWithin(container: HTMLElement): HTMLElement[] {
  return Array.from(container.querySelectorAll<HTMLElement>(tabbableSelector)).filter(
    (element) => element.tabIndex >= 0 && !element.hidden && element.closest("[hidden],[inert]") === null,
  );
}

/** Keeps Tab and Shift+Tab inside `container`: past the last element is the first, and back. */
export function cycleTab(event: KeyboardEvent, container: HTMLElement): void {
  if (event.key !== "Tab") return;
  const stops = tabbableWithin(container);
  const first = stops[0];
  const last = stops[stops.length - 1];
  if (first === undefined || last === undefined) {
    event.preventDefault();
    return;
  }
  const active = document.activeElement;
  const inside = active instanceof HTMLElement && container.contains(active);
  if (event.shiftKey && (!inside || active === first)) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (!inside || active === last)) {
    event.preventDefault();
    first.focus();
  }
}

export interface DialogFocus {
  /** Put on the dialog's keydown: Tab cycles inside it. */
  onKeyDown: (event: KeyboardEvent) => void;
  /** The dialog closes onto something else (a chosen result): do not hand focus back. */
  forget: () => void;
}

/**
 * For a modal component: on mount, focus moves into `container` (to `initial`, else its first
 * stop) unless something inside already has it; on cleanup it goes back to what had it before,
 * when that is still on the page.
 */
export function createDialogFocus(container: () => HTMLElement | undefined, initial?: () => HTMLElement | undefined): DialogFocus {
  let previous = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
  onMount(() => {
    queueMicrotask(() => {
      const element = container();
      if (element === undefined || element.contains(document.activeElement)) return;
      (initial?.() ?? tabbableWithin(element)[0] ?? element).focus();
    });
  });
  onCleanup(() => {
    const back = previous;
    if (back?.isConnected === true) back.focus();
  });
  return {
    onKeyDown: (event) => {
      const element = container();
      if (element !== undefined) cycleTab(event, element);
    },
    forget: () => {
      previous = undefined;
    },
  };
}

/**
 * Focuses what `find` returns once it exists: a virtualised list renders a row only after it is
 * scrolled to, a frame or two later.
 */
export function focusWhenPresent(find: () => HTMLElement | null | undefined, frames = 10): void {
  // Only the newest wish counts: a focus still waiting for its row (given back after an older
  // page landed, say) must not take the focus from where a key the person pressed since put it.
  pendingFocus += 1;
  tryFocus(find, frames, pendingFocus);
}

let pendingFocus = 0;

function tryFocus(find: () => HTMLElement | null | undefined, frames: number, wish: number): void {
  if (wish !== pendingFocus) return;
  const element = find();
  if (element !== null && element !== undefined) {
    element.focus();
    return;
  }
  if (frames > 0) requestAnimationFrame(() => { tryFocus(find, frames - 1, wish); });
}

/**
 * Something that takes the place of the button that asked for it (a question, the next step of
 * an update): brought into view inside a dialog's scrolling body, where it can land below the
 * fold out of sight, and given the focus the vanished button had, on `element` or the descendant
 * marked `data-reveal-focus` (a question's safe choice, so Enter never confirms by accident).
 * Used as a `ref`, which runs before Solid puts the element in the document: hence the frame.
 */
export function revealInPlace(element: HTMLElement): void {
  requestAnimationFrame(() => {
    // (jsdom, the unit tests' document, has no layout and no scrollIntoView.)
    if (typeof element.scrollIntoView === "function") element.scrollIntoView({ block: "nearest" });
    const target = element.matches("[data-reveal-focus]") ? element : element.querySelector<HTMLElement>("[data-reveal-focus]");
    target?.focus();
  });
}
