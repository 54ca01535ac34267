import { describe, expect, it } from "vitest";
import type { ComposerDraft } from "./composer-drafts";
import { afterUndo, type ComposerUndoStep, emptyDraft, redoComposer, sameDraft } from "./composer-undo";
import type { Attachment } from "./drafts";

const file = (name: string): Attachment => ({ key: `file:///home/ada/${name}#0`, name, kind: "text", mime: "text/plain", url: `file:///home/ada/${name}` });
const draft = (text: string, ...attachments: Attachment[]): ComposerDraft => ({ text, attachments });

// Two exchanges: "first" (msg_1, with a file) and "second" (msg_3).
const first = draft("first question", file("notes.txt"));
const second = draft("second question");

/** Undo ×2 from a composer holding `start`, as `reshaping.ts` records it. */
function undoTwice(start: ComposerDraft): ComposerUndoStep[] {
  const once = afterUndo([], undefined, { markerMessageID: "msg_3", before: start, restored: second });
  return afterUndo(once, "msg_3", { markerMessageID: "msg_1", before: second, restored: first });
}

describe("the composer across undo and redo", () => {
  it("Undo ×2 then Redo ×1 puts back the still-undone second prompt, not the first one again", () => {
    const outcome = redoComposer(undoTwice(emptyDraft), "msg_1", first, first, second);
    expect(outcome.draft).toEqual(second);
    expect(outcome.steps.map((step) => step.markerMessageID)).toEqual(["msg_3"]);
  });

  it("Redo ×2 after Undo ×2 gives back the draft the person had before the first Undo", () => {
    const mine = draft("a thought I was writing", file("plan.md"));
    const once = redoComposer(undoTwice(mine), "msg_1", first, first, second);
    const twice = redoComposer(once.steps, "msg_3", once.draft ?? emptyDraft, second, emptyDraft);
    expect(twice.draft).toEqual(mine);
    expect(twice.steps).toEqual([]);
  });

  it("Undo ×1 then Redo ×1 empties a composer that was empty before", () => {
    const steps = afterUndo([], undefined, { markerMessageID: "msg_3", before: emptyDraft, restored: second });
    expect(redoComposer(steps, "msg_3", second, second, emptyDraft)).toEqual({ draft: emptyDraft, steps: [] });
  });

  it("words typed after the Undo stay in the composer", () => {
    const edited = draft("second question, but better");
    const outcome = redoComposer(undoTwice(emptyDraft), "msg_1", edited, first, second);
    expect(outcome.draft).toBeUndefined();
    // The step is used up all the same: the marker has moved past it.
    expect(outcome.steps).toHaveLength(1);
  });

  it("a composer emptied after the Undo gets back what it held before", () => {
    const mine = draft("my draft");
    const steps = afterUndo([], undefined, { markerMessageID: "msg_3", before: mine, restored: second });
    expect(redoComposer(steps, "msg_3", draft("  "), second, emptyDraft).draft).toEqual(mine);
  });

  it("without the Undo's record (a reload, another window) the composer shows what an Undo to the new marker would", () => {
    expect(redoComposer([], "msg_1", first, first, second).draft).toEqual(second);
    expect(redoComposer([], "msg_3", second, second, emptyDraft).draft).toEqual(emptyDraft);
    // The person's own words are never replaced by a guess.
    expect(redoComposer([], "msg_1", draft("mine"), first, second).draft).toBeUndefined();
  });

  it("steps whose marker is not where the Redo starts are not used", () => {
    // Undone here, then the marker moved in another window: the old steps describe nothing now,
    // and the composer is treated as if this window had not seen any Undo.
    const other = draft("other prompt");
    expect(redoComposer(undoTwice(emptyDraft), "msg_other", other, other, emptyDraft)).toEqual({ draft: emptyDraft, steps: [] });
  });

  it("an Undo that does not start where the last one ended begins a new chain", () => {
    const stale = undoTwice(emptyDraft);
    const step = { markerMessageID: "msg_7", before: emptyDraft, restored: draft("third") };
    expect(afterUndo(stale, undefined, step)).toEqual([step]);
    expect(afterUndo(stale, "msg_3", step)).toEqual([step]);
    expect(afterUndo(stale, "msg_1", step)).toEqual([...stale, step]);
  });

  it("drafts are the same when their words and their files are", () => {
    expect(sameDraft(first, draft("first question", file("notes.txt")))).toBe(true);
    expect(sameDraft(first, draft("first question"))).toBe(false);
    expect(sameDraft(first, draft("first question", file("other.txt")))).toBe(false);
  });
});
