// Shared settings for the virtualised lists (sidebar sessions, conversation messages).
import { measureElement, observeElementRect, type Rect, type Virtualizer } from "@tanstack/solid-virtual";

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

/**
 * Measures a row as the virtualiser does, but keeps `estimate` for a row measured at zero height
 * (a test DOM has no layout; a rendered message is never empty): a list of zero-height rows
 * would have every row start at 0, and which of them are "on screen" would be arbitrary.
 */
export function measureOr(estimate: number) {
  return <S extends Element>(element: Element, entry: ResizeObserverEntry | undefined, instance: Virtualizer<S, Element>): number => {
    const size = measureElement(element, entry, instance);
    return size === 0 ? estimate : size;
  };
}
