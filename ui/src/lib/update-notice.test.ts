import { createRoot } from "solid-js";
import { describe, expect, it } from "vitest";
import type { AvailableUpdate } from "./shell-bindings/AvailableUpdate";
import type { UpdateStatus } from "./shell-bindings/UpdateStatus";
import { createUpdateNotice, dismissedUpdateKey, noticedUpdate } from "./update-notice";
import type { UpdateCommands } from "./updates";

const next: AvailableUpdate = { version: "0.2.0", notes: null, publishedAt: null };
const later: AvailableUpdate = { version: "0.3.0", notes: null, publishedAt: null };

function status(available: AvailableUpdate | null): UpdateStatus {
  return { currentVersion: "0.1.0", installKind: "deb", automaticChecks: true, lastCheckedAt: null, available, downloaded: false };
}

/** A shell whose status answers when the test says, and whose start-up check announces on demand. */
function fakeShell(initial: AvailableUpdate | null) {
  let available = initial;
  const answers: (() => void)[] = [];
  const listeners = new Set<(update: AvailableUpdate) => void>();
  const reject = () => Promise.reject(new Error("not used here"));
  const commands: UpdateCommands = {
    status: () => {
      const answer = status(available);
      return new Promise((resolve) => answers.push(() => { resolve(answer); }));
    },
    setAutomaticChecks: reject,
    check: reject,
    download: reject,
    restart: reject,
    onAvailable: (handler) => {
      listeners.add(handler);
      return () => listeners.delete(handler);
    },
  };
  return {
    commands,
    listeners,
    set: (update: AvailableUpdate | null) => { available = update; },
    announce: (update: AvailableUpdate) => { available = update; for (const listener of listeners) listener(update); },
    /** Lets the oldest status call answer (with what the shell held when it was asked). */
    answer: async () => {
      answers.shift()?.();
      await Promise.resolve();
      await Promise.resolve();
    },
  };
}

function memoryStorage(values: Record<string, string> = {}) {
  return {
    values,
    getItem: (key: string) => values[key] ?? null,
    setItem: (key: string, value: string) => { values[key] = value; },
  };
}

describe("noticedUpdate", () => {
  it.each([
    ["nothing available", undefined, null, undefined],
    ["an update, nothing dismissed", next, null, next],
    ["the dismissed version", next, "0.2.0", undefined],
    ["a newer version than the dismissed one", later, "0.2.0", later],
  ] as const)("%s", (_, available, dismissed, expected) => {
    expect(noticedUpdate(available, dismissed)).toEqual(expected);
  });
});

describe("createUpdateNotice", () => {
  it("shows an update the start-up check found before the page listened", async () => {
    const shell = fakeShell(next);
    await createRoot(async (dispose) => {
      const notice = createUpdateNotice(shell.commands, memoryStorage());
      expect(notice.shown()).toBeUndefined();
      await shell.answer();
      expect(notice.shown()).toEqual(next);
      dispose();
    });
    expect(shell.listeners.size).toBe(0);
  });

  it("shows an update announced later, and an older status answer does not hide it", async () => {
    const shell = fakeShell(null);
    await createRoot(async (dispose) => {
      const notice = createUpdateNotice(shell.commands, memoryStorage());
      shell.announce(next);
      expect(notice.shown()).toEqual(next);
      // Asked before the announcement, answered after it: "nothing yet" is out of date.
      await shell.answer();
      expect(notice.shown()).toEqual(next);
      dispose();
    });
  });

  it("hides a dismissed version for good, but shows the next one", async () => {
    const shell = fakeShell(next);
    const storage = memoryStorage();
    await createRoot(async (dispose) => {
      const notice = createUpdateNotice(shell.commands, storage);
      await shell.answer();
      notice.dismiss("0.2.0");
      expect(notice.shown()).toBeUndefined();
      expect(storage.values[dismissedUpdateKey]).toBe("0.2.0");
      dispose();
    });
    // The next launch remembers it.
    await createRoot(async (dispose) => {
      const notice = createUpdateNotice(shell.commands, storage);
      await shell.answer();
      expect(notice.shown()).toBeUndefined();
      shell.announce(later);
      expect(notice.shown()).toEqual(later);
      dispose();
    });
  });

  it("follows the shell on refresh: found by a check in Settings, gone once installed", async () => {
    const shell = fakeShell(null);
    await createRoot(async (dispose) => {
      const notice = createUpdateNotice(shell.commands, memoryStorage());
      await shell.answer();
      expect(notice.shown()).toBeUndefined();
      shell.set(next);
      notice.refresh();
      await shell.answer();
      expect(notice.shown()).toEqual(next);
      shell.set(null);
      notice.refresh();
      await shell.answer();
      expect(notice.shown()).toBeUndefined();
      dispose();
    });
  });

  it("never shows anything without a desktop shell", () => {
    createRoot((dispose) => {
      const notice = createUpdateNotice(undefined, memoryStorage());
      notice.refresh();
      expect(notice.shown()).toBeUndefined();
      dispose();
    });
  });
});
