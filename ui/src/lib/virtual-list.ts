// Shared settings for the virtualised lists (sidebar sessions, conversation messages).
import { observeElementRect, type Rect, type Virtualizer } from "@tanstack/solid-virtual";

/**
 * Measures the scroll element, but treats a zero-height measurement (before layout, or in a test
 * DOM that has no layout) as `fallback`, so the first screenful always renders.
 */
export function observeRectOr(fallback: Rect) {
  return <T extends Element>(instance: Virtualizer<T, Element>, callback: (rect: Rect) => void) =>
    observeElementRect(instance, (rect) => {
      callback(rect.height === 0 ? fallback : rect);
    });
}
