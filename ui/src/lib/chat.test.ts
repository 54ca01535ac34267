import { describe, expect, it } from "vitest";
import { sortSessions } from "./chat";
import { session } from "./transport/fake-backend";

describe("sortSessions", () => {
  it("lists pinned first, then newest first, without archived or child sessions", () => {
    const pinned = { ...session("ses_p", "Pinned", 1), pinned: true };
    const archived = { ...session("ses_x", "Archived", 9), time: { created: 9, updated: 9, archived: 10 } };
    const child = { ...session("ses_c", "Child", 8), parentID: "ses_b" };
    const sorted = sortSessions([session("ses_a", "Old", 2), undefined, archived, session("ses_b", "New", 5), child, pinned]);
    expect(sorted.map((item) => item.id)).toEqual(["ses_p", "ses_b", "ses_a"]);
  });
});
