// The open session's messages are one Tab stop (a roving tab index, as the session list is):
// the stop is one message, ↑/↓ move between messages (Home and End: the oldest loaded and the
// newest), and →/← walk that message's own links and buttons (its folded context, its code
// blocks' Copy, a wide table's scroller, Copy, Edit, Fork from here, Delete) and back. Without this every message cost
// four or more Tab presses on the way to the composer, and a reply full of links many more.
//
// A message's controls are rendered by Solid, by the Markdown renderer (links, through
// innerHTML) and by the code-block decoration, and they are rendered again as a reply streams
// and as the list virtualises; so they are taken out of the Tab order by watching the list, not
// by each renderer remembering to. An editor or a delete question open in a message keeps its
// own Tab order (it is a small form the person chose to open).
import { rovingIndex } from "./keyboard-focus";

export const messageSelector = "article[data-testid=message]";
const controlSelector = "a[href], button, summary, input, textarea, select, [tabindex]";
/** Opened in a message by the person, with a Tab order of their own. */
const ownTabOrder = "form, [role=alertdialog]";

function isOwnTabOrder(element: Element): boolean {
  return element.closest(ownTabOrder) !== null;
}

/** Takes every control in `root` (and `root` itself) out of the Tab order, except the messages. */
export function quietControls(root: Element): void {
  const candidates = root.matches(controlSelector) ? [root, ...root.querySelectorAll(controlSelector)] : root.querySelectorAll(controlSelector);
  for (const element of candidates) {
    if (element.matches(messageSelector) || isOwnTabOrder(element)) continue;
    if (element.getAttribute("tabindex") !== "-1") element.setAttribute("tabindex", "-1");
  }
}

/** A message slot's stops for →/←: the message itself, then its controls that can take focus now. */
export function messageControls(slot: Element): HTMLElement[] {
  const message = slot.querySelector<HTMLElement>(messageSelector);
  const controls = Array.from(slot.querySelectorAll<HTMLElement>(controlSelector)).filter(
    (element) =>
      !element.matches(messageSelector) &&
      !isOwnTabOrder(element) &&
      !(element as HTMLButtonElement).disabled &&
      element.closest("[hidden]") === null &&
      // A link or button inside a folded <details> is not on screen until it is opened.
      (element.tagName === "SUMMARY" || element.closest("details:not([open])") === null),
  );
  return message === null ? controls : [message, ...controls];
}

/** Watches `list` so that whatever is rendered into it stays out of the Tab order; returns the stop. */
export function keepControlsQuiet(list: Element): () => void {
  quietControls(list);
  const observer = new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) if (node instanceof Element) quietControls(node);
    }
  });
  observer.observe(list, { subtree: true, childList: true });
  return () => { observer.disconnect(); };
}

export interface MessageFocusOptions {
  /** How many messages the session shows (loaded and not undone). */
  count: () => number;
  /** Focuses message `index`, rendering it first when the list has virtualised it away. */
  focusIndex: (index: number) => void;
  /** ↑ on the oldest loaded message: focuses what is above it ("Show older messages"), if anything. */
  aboveFirst: () => void;
}

function isTextField(target: HTMLElement): boolean {
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/**
 * A wide table's scroller (lib/markdown.ts) that can still move toward `key`: there →/← scroll
 * the table, as they do in any scrolling box, and walk on to the next control only at its edge.
 */
function scrollsToward(target: HTMLElement, key: string): boolean {
  if (!target.classList.contains("table-scroll")) return false;
  if (key === "ArrowLeft") return target.scrollLeft > 0;
  return target.scrollLeft + target.clientWidth < target.scrollWidth - 1;
}

/** The message list's keydown: ↑/↓/Home/End between messages, →/← within one. */
export function messageKeyHandler(options: MessageFocusOptions): (event: KeyboardEvent) => void {
  return (event) => {
    const target = event.target;
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || !(target instanceof HTMLElement)) return;
    if (isTextField(target) || isOwnTabOrder(target)) return;
    const slot = target.closest<HTMLElement>(".message-slot");
    if (slot === null) return;
    if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
      if (scrollsToward(target, event.key)) return;
      const controls = messageControls(slot);
      const at = controls.indexOf(target);
      if (at < 0) return;
      event.preventDefault();
      controls[event.key === "ArrowRight" ? Math.min(at + 1, controls.length - 1) : Math.max(at - 1, 0)]?.focus();
      return;
    }
    const index = Number(slot.dataset.index);
    if (event.key === "ArrowUp" && index === 0) {
      event.preventDefault();
      options.aboveFirst();
      return;
    }
    const next = rovingIndex(event.key, index, options.count());
    if (next === undefined) return;
    event.preventDefault();
    options.focusIndex(next);
  };
}
