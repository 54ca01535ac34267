// Whether the conversation follows its newest message. Pure, so the rule is tested without a
// layout engine: reaching the bottom pins; only a move up unpins (content growing below, or
// rows measured taller, leave scrollTop where it was and must not unpin).

/** How close to the bottom still counts as at the bottom, in pixels. */
export const bottomSlack = 40;

export interface ScrollReading {
  scrollTop: number;
  clientHeight: number;
  scrollHeight: number;
}

/**
 * `byReader`: the reader touched the wheel, a key, the pointer or a touch just before. The list
 * itself moves scrollTop up too (rows above measured shorter than their estimate), and that
 * must not unpin.
 */
export function nextPinned(pinned: boolean, reading: ScrollReading, lastScrollTop: number, byReader: boolean): boolean {
  if (reading.scrollTop + reading.clientHeight >= reading.scrollHeight - bottomSlack) return true;
  if (byReader && reading.scrollTop < lastScrollTop - 1) return false;
  return pinned;
}

/**
 * Whether the newest message is in view: its top on screen and its end no more than half a
 * screen below. Then "Jump to newest" has nothing to bring into view and stays hidden, even
 * while the view is not pinned (a small scroll up, a search result opened in a short session);
 * a long reply read from its start still offers the jump to its end. `newest` is undefined while
 * the newest message is not rendered (virtualised away, far above).
 */
export function newestInView(newest: { top: number; bottom: number } | undefined, viewTop: number, viewBottom: number): boolean {
  if (newest === undefined) return false;
  const slack = Math.max(bottomSlack, (viewBottom - viewTop) / 2);
  return newest.bottom > viewTop && newest.top < viewBottom && newest.bottom <= viewBottom + slack;
}

/** How long after a wheel, key, pointer or touch a scroll still counts as the reader's. */
export const readerScrollMs = 600;

/** Older messages load this many screens before the reader reaches the top. */
export const prefetchScreens = 1.5;

/** Whether the reader is close enough to the top that the next older page should load. */
export function nearTop(reading: Pick<ScrollReading, "scrollTop" | "clientHeight">): boolean {
  return reading.scrollTop < reading.clientHeight * prefetchScreens;
}

/**
 * Where to scroll after older messages were added above, so what the reader looks at stays
 * put: the same distance from the bottom as before (rows below keep their measured heights).
 */
export function heldScrollTop(before: Pick<ScrollReading, "scrollTop" | "scrollHeight">, scrollHeightAfter: number): number {
  return Math.max(0, scrollHeightAfter - (before.scrollHeight - before.scrollTop));
}
