// "New session" when an untouched one is already there: open that one instead of making
// another, so pressing New session a few times (or opening the app and leaving) never fills the
// list with empty "New session · 23:43" rows. Pure, so the rule is tested without a backend.
import type { Session } from "./bindings/Session";
import { isPlaceholderTitle } from "./session-title";

export interface EmptySessionFacts {
  /** Messages loaded for the session, or undefined when none were fetched yet. */
  loadedMessages: (sessionId: string) => number | undefined;
  /** A reply or a send is under way in the session. */
  busy: (sessionId: string) => boolean;
}

/**
 * The newest session nothing happened in yet: still the core's placeholder title, never updated
 * since it was made (a prompt moves `time.updated`, `pipeline/prompt.rs`), no message loaded and
 * nothing under way. `sessions` are the listed ones (not archived, not a subagent's).
 */
export function reusableEmptySession(sessions: readonly Session[], facts: EmptySessionFacts): Session | undefined {
  return sessions
    .filter(
      (session) =>
        isPlaceholderTitle(session.title) &&
        session.time.updated === session.time.created &&
        (facts.loadedMessages(session.id) ?? 0) === 0 &&
        !facts.busy(session.id),
    )
    .sort((a, b) => b.time.created - a.time.created)[0];
}
