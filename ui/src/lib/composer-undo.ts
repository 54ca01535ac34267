// What the composer holds across Undo and Redo of turns. Undo puts the undone prompt in the
// composer; Redo of that step must take it out again and give back whatever was there before
// (the person's own draft, or the prompt of a message that is still undone). Left in place, the
// redone prompt would be sent a second time by the next Send, and that Send also deletes the
// messages still undone: one press, a duplicate and a lost exchange (issue 27).
//
// Each Undo remembers, per session, the composer as it was before and the draft it put there,
// keyed by the revert marker it set; Redo takes the newest one back when the marker is still
// where that Undo left it. Pure functions here; `reshaping.ts` calls them around the backend.
import type { ComposerDraft } from "./composer-drafts";

/** One Undo's change to the composer. */
export interface ComposerUndoStep {
  /** The message the revert marker was moved to (the prompt put in the composer). */
  markerMessageID: string;
  /** The composer just before the Undo. */
  before: ComposerDraft;
  /** What the Undo put in the composer. */
  restored: ComposerDraft;
}

/** A session's Undo steps, oldest first; the newest is the marker as it stands now. */
export type ComposerUndoSteps = readonly ComposerUndoStep[];

export const emptyDraft: ComposerDraft = { text: "", attachments: [] };

/** Same words and the same files (by key) — the composer as something left it. */
export function sameDraft(left: ComposerDraft, right: ComposerDraft): boolean {
  return (
    left.text === right.text &&
    left.attachments.length === right.attachments.length &&
    left.attachments.every((attachment, index) => attachment.key === right.attachments[index]?.key)
  );
}

const isEmpty = (draft: ComposerDraft) => draft.text.trim() === "" && draft.attachments.length === 0;

/**
 * The steps after an Undo that moved the marker from `markerBefore` to `step.markerMessageID`.
 * Steps are a chain only while each one's marker is where the next began: if the marker moved
 * some other way meanwhile (a send, another window), the older steps no longer describe it.
 */
export function afterUndo(steps: ComposerUndoSteps, markerBefore: string | undefined, step: ComposerUndoStep): ComposerUndoStep[] {
  const chained = markerBefore !== undefined && steps.at(-1)?.markerMessageID === markerBefore;
  return chained ? [...steps, step] : [step];
}

export interface RedoComposer {
  /** What the composer should hold after the Redo; undefined leaves it as it is. */
  draft: ComposerDraft | undefined;
  /** The steps that remain. */
  steps: ComposerUndoStep[];
}

/**
 * The composer after a Redo that moves the marker away from `marker` (the message the Redo
 * brings back). `current` is what the composer holds now; `fallback` is what an Undo to the
 * marker's next position would have put there (the next undone prompt, or nothing when Redo
 * clears the marker), used when this window did not see the Undo (a reload, another window).
 *
 * The composer is changed only while it holds nothing of the person's own since the Undo: still
 * exactly what the Undo put there, or emptied. Words typed or edited after the Undo stay — they
 * are shown, so nothing is sent that the person did not see, and nothing they wrote is dropped.
 */
export function redoComposer(
  steps: ComposerUndoSteps,
  marker: string,
  current: ComposerDraft,
  bringsBack: ComposerDraft,
  fallback: ComposerDraft,
): RedoComposer {
  const newest = steps.at(-1);
  const seen = newest?.markerMessageID === marker ? newest : undefined;
  const remaining = seen === undefined ? [] : steps.slice(0, -1);
  const untouched = isEmpty(current) || sameDraft(current, seen?.restored ?? bringsBack);
  if (!untouched) return { draft: undefined, steps: remaining };
  return { draft: seen?.before ?? fallback, steps: remaining };
}
