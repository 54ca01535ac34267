import { describe, expect, it } from "vitest";
import type { Session } from "./bindings/Session";
import { reusableEmptySession } from "./empty-session";

function session(id: string, title: string, created: number, updated = created): Session {
  const listed: Session = {
    id,
    slug: id,
    projectID: "global",
    directory: "/",
    path: "/",
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    title,
    version: "1",
    time: { created, updated },
  };
  return listed;
}

const nothingLoaded = { loadedMessages: () => undefined, busy: () => false };

describe("reusableEmptySession", () => {
  it("finds the newest untouched placeholder session", () => {
    const sessions = [
      session("old", "New session - 2026-11-30T03:15:19.420Z", 1),
      session("named", "Budget", 5),
      session("newer", "New session - 2026-11-30T04:15:19.420Z", 3),
    ];
    expect(reusableEmptySession(sessions, nothingLoaded)?.id).toBe("newer");
  });

  it("passes over a session that was written to, holds messages or is busy", () => {
    const placeholder = "New session - 2026-11-30T03:15:19.420Z";
    const prompted = session("prompted", placeholder, 1, 2);
    const loaded = session("loaded", placeholder, 3);
    const busy = session("busy", placeholder, 4);
    const facts = { loadedMessages: (id: string) => (id === "loaded" ? 2 : undefined), busy: (id: string) => id === "busy" };
    expect(reusableEmptySession([prompted, loaded, busy], facts)).toBeUndefined();
    expect(reusableEmptySession([prompted, loaded, busy, session("fresh", placeholder, 0)], facts)?.id).toBe("fresh");
  });

  it("finds none in an empty list or a list of named sessions", () => {
    expect(reusableEmptySession([], nothingLoaded)).toBeUndefined();
    expect(reusableEmptySession([session("a", "Taxes", 1)], nothingLoaded)).toBeUndefined();
  });
});
