// What the search palette lists and how the keyboard moves through it: one row per excerpt, in
// the core's ranking, so choosing a row can land on the very message the excerpt comes from.
import type { Excerpt } from "./bindings/Excerpt";
import type { Session } from "./bindings/Session";
import type { SearchResult } from "./bindings/SearchResult";

export interface PaletteItem {
  /** Unique within one answer, stable across re-renders of it. */
  key: string;
  session: Session;
  excerpt: Excerpt;
  /** Whether this row starts its session's group (the title is shown once per group). */
  first: boolean;
}

/** Flattens results into rows: a session's excerpts one after another, best session first. */
export function paletteItems(results: readonly SearchResult[]): PaletteItem[] {
  const items: PaletteItem[] = [];
  for (const result of results) {
    result.excerpts.forEach((excerpt, index) => {
      items.push({
        key: `${result.session.id}/${excerpt.partID ?? excerpt.field}/${String(index)}`,
        session: result.session,
        excerpt,
        first: index === 0,
      });
    });
  }
  return items;
}

/** Moves a highlighted row by `delta`, wrapping at both ends; -1 when there is nothing to pick. */
export function stepIndex(current: number, delta: number, count: number): number {
  if (count <= 0) return -1;
  if (current < 0) return delta < 0 ? count - 1 : 0;
  return (((current + delta) % count) + count) % count;
}

/** Where choosing a row leads: the session, and the message when the match is in one. */
export function destination(item: PaletteItem): { sessionId: string; messageId: string | undefined } {
  return { sessionId: item.session.id, messageId: item.excerpt.messageID };
}
