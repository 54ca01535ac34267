import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createComposerDrafts, type DraftStorage, noSessionKey, writeDelayMs } from "./composer-drafts";
import { attachmentFromDrop } from "./drafts";

/** localStorage's behaviour over a Map, counting writes. */
function memoryStorage(): DraftStorage & { items: Map<string, string>; writes: number } {
  const items = new Map<string, string>();
  return {
    items,
    writes: 0,
    getItem: (key) => items.get(key) ?? null,
    setItem(key, value) {
      this.writes += 1;
      items.set(key, value);
    },
    removeItem: (key) => {
      items.delete(key);
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("composer drafts", () => {
  it("keeps one draft per session, attachments included", () => {
    const drafts = createComposerDrafts(memoryStorage());
    const photo = attachmentFromDrop({ path: "/home/me/photo.png", name: "photo.png", url: "file:///home/me/photo.png", mime: "image/png", size: 10, kind: "image" });
    drafts.keep("ses_a", { text: "about taxes", attachments: [photo] });
    drafts.keep("ses_b", { text: "about the garden", attachments: [] });
    expect(drafts.take("ses_a")).toEqual({ text: "about taxes", attachments: [photo] });
    expect(drafts.take("ses_b").text).toBe("about the garden");
    expect(drafts.take("ses_c")).toEqual({ text: "", attachments: [] });
  });

  it("saves the text shortly after typing, once per pause, and a later run finds it", () => {
    const storage = memoryStorage();
    const drafts = createComposerDrafts(storage);
    for (const text of ["d", "de", "dea", "dear"]) drafts.keep("ses_a", { text, attachments: [] });
    expect(storage.writes).toBe(0);
    vi.advanceTimersByTime(writeDelayMs);
    expect(storage.writes).toBe(1);
    expect(createComposerDrafts(storage).take("ses_a")).toEqual({ text: "dear", attachments: [] });
  });

  it("saves at once when the page goes away", () => {
    const storage = memoryStorage();
    const drafts = createComposerDrafts(storage);
    drafts.keep("ses_a", { text: "half a thought", attachments: [] });
    drafts.flush();
    expect(createComposerDrafts(storage).take("ses_a").text).toBe("half a thought");
    vi.advanceTimersByTime(writeDelayMs);
    expect(storage.writes).toBe(1);
  });

  it("removes the saved text when the draft is emptied (sent) or its session deleted", () => {
    const storage = memoryStorage();
    const drafts = createComposerDrafts(storage);
    drafts.keep("ses_a", { text: "sent soon", attachments: [] });
    drafts.keep("ses_b", { text: "in a deleted session", attachments: [] });
    drafts.flush();
    expect(storage.items.size).toBe(2);
    drafts.keep("ses_a", { text: "", attachments: [] });
    drafts.forget("ses_b");
    vi.advanceTimersByTime(writeDelayMs);
    expect([...storage.items.keys()]).toEqual([]);
    expect(drafts.take("ses_b").text).toBe("");
  });

  it("moves words written with no session open into the session opened next, unless it has its own", () => {
    const drafts = createComposerDrafts(memoryStorage());
    drafts.keep("ses_b", { text: "garden notes", attachments: [] });
    drafts.keep(noSessionKey, { text: "plan the trip", attachments: [] });
    expect(drafts.open("ses_b", noSessionKey).text).toBe("garden notes");
    expect(drafts.open("ses_new", noSessionKey).text).toBe("plan the trip");
    expect(drafts.take(noSessionKey).text).toBe("");
    expect(drafts.take("ses_new").text).toBe("plan the trip");
    // From one session to another nothing moves.
    drafts.keep(noSessionKey, { text: "later", attachments: [] });
    expect(drafts.open("ses_other", "ses_b").text).toBe("");
  });

  it("keeps the draft in memory when storage refuses it", () => {
    const drafts = createComposerDrafts({
      getItem: () => {
        throw new Error("storage is off");
      },
      setItem: () => {
        throw new Error("quota exceeded");
      },
      removeItem: () => undefined,
    });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    drafts.keep("ses_a", { text: "still here", attachments: [] });
    vi.advanceTimersByTime(writeDelayMs);
    expect(drafts.take("ses_a").text).toBe("still here");
    expect(drafts.take("ses_b").text).toBe("");
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
  });
});
