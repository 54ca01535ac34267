// Unsent words, one draft per session: switching sessions keeps what was being written in each,
// and the text survives a reload, a crash or a restart. The text goes to localStorage a moment
// after typing (at most one write per session every `writeDelayMs`), and at once when the page
// is hidden or closed. Attachments stay in memory only: in a browser they are bytes that do not
// belong in localStorage, and a dropped file's path may be gone by the next start.
import type { Attachment } from "./drafts";

export interface ComposerDraft {
  text: string;
  attachments: Attachment[];
}

/** The part of `Storage` the drafts use (localStorage in the app, a Map in tests). */
export type DraftStorage = Pick<Storage, "getItem" | "setItem" | "removeItem">;

/** The key of the draft written while no session is open (it becomes the new session's). */
export const noSessionKey = "";
const storagePrefix = "dossier.draft.";
export const writeDelayMs = 300;

export interface ComposerDrafts {
  /** The draft of `sessionKey`: the one kept this run, else the text saved by an earlier one. */
  take(sessionKey: string): ComposerDraft;
  /** Remembers `draft` for `sessionKey` and saves its text shortly. */
  keep(sessionKey: string, draft: ComposerDraft): void;
  /**
   * The draft to show on opening `sessionKey` after `previousKey`. Words written before any
   * session was open go with the person into the session they open or create next, unless it
   * has words of its own.
   */
  open(sessionKey: string, previousKey: string | undefined): ComposerDraft;
  /** Drops the draft of a deleted session. */
  forget(sessionKey: string): void;
  /** Saves every pending text now (the page is going away). */
  flush(): void;
}

const isEmpty = (draft: ComposerDraft) => draft.text === "" && draft.attachments.length === 0;

export function createComposerDrafts(storage: DraftStorage, delayMs = writeDelayMs): ComposerDrafts {
  const kept = new Map<string, ComposerDraft>();
  const pendingWrites = new Map<string, ReturnType<typeof setTimeout>>();

  const save = (sessionKey: string) => {
    pendingWrites.delete(sessionKey);
    const text = kept.get(sessionKey)?.text ?? "";
    try {
      if (text === "") storage.removeItem(storagePrefix + sessionKey);
      else storage.setItem(storagePrefix + sessionKey, text);
    } catch (error) {
      // Storage full or switched off: the draft still lives in memory for this run.
      console.warn("could not save the unsent message", error);
    }
  };

  return {
    take(sessionKey) {
      const draft = kept.get(sessionKey);
      if (draft !== undefined) return draft;
      let text: string | null = null;
      try {
        text = storage.getItem(storagePrefix + sessionKey);
      } catch (error) {
        console.warn("could not read the unsent message", error);
      }
      return { text: text ?? "", attachments: [] };
    },
    keep(sessionKey, draft) {
      kept.set(sessionKey, draft);
      if (!pendingWrites.has(sessionKey)) pendingWrites.set(sessionKey, setTimeout(() => { save(sessionKey); }, delayMs));
    },
    open(sessionKey, previousKey) {
      const draft = this.take(sessionKey);
      if (previousKey !== noSessionKey || sessionKey === noSessionKey || !isEmpty(draft)) return draft;
      const unplaced = this.take(noSessionKey);
      if (isEmpty(unplaced)) return draft;
      this.forget(noSessionKey);
      this.keep(sessionKey, unplaced);
      return unplaced;
    },
    forget(sessionKey) {
      kept.delete(sessionKey);
      clearTimeout(pendingWrites.get(sessionKey));
      pendingWrites.delete(sessionKey);
      save(sessionKey);
    },
    flush() {
      for (const [sessionKey, timer] of [...pendingWrites]) {
        clearTimeout(timer);
        save(sessionKey);
      }
    },
  };
}
