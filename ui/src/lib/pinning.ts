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

export function nextPinned(pinned: boolean, reading: ScrollReading, lastScrollTop: number): boolean {
  if (reading.scrollTop + reading.clientHeight >= reading.scrollHeight - bottomSlack) return true;
  if (reading.scrollTop < lastScrollTop - 1) return false;
  return pinned;
}
