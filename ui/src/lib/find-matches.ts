// Find within the open session: the messages that match, newest first (the reader starts at the
// bottom of a conversation), one entry per message even when several of its parts match.
import type { Excerpt } from "./bindings/Excerpt";
import type { SearchResult } from "./bindings/SearchResult";

/** The most a find asks for at once (the core's cap on one answer). */
export const findLimit = 200;

export interface FindMatch {
  messageId: string;
  excerpt: Excerpt;
}

export function findMatches(results: readonly SearchResult[], sessionId: string): FindMatch[] {
  const seen = new Set<string>();
  const matches: FindMatch[] = [];
  for (const result of results) {
    if (result.session.id !== sessionId) continue;
    for (const excerpt of result.excerpts) {
      const messageId = excerpt.messageID;
      if (messageId === undefined || seen.has(messageId)) continue;
      seen.add(messageId);
      matches.push({ messageId, excerpt });
    }
  }
  return matches;
}

/** True when the core may have more matches than it returned. */
export function findTruncated(results: readonly SearchResult[]): boolean {
  return results.some((result) => result.excerpts.length >= findLimit);
}
