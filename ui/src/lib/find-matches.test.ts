import { describe, expect, it } from "vitest";
import type { Excerpt } from "./bindings/Excerpt";
import { findLimit, findMatches, findTruncated } from "./find-matches";
import { session } from "./transport/fake-backend";

const excerpt = (messageID: string | undefined, partID: string, field = "text"): Excerpt => ({
  field,
  ...(messageID === undefined ? {} : { messageID }),
  partID,
  pieces: [{ text: "walrus", highlighted: true }],
});

describe("findMatches", () => {
  it("keeps one match per message, newest first, and skips the title and other sessions", () => {
    const matches = findMatches(
      [
        { session: session("ses_a", "Walrus", 1), excerpts: [{ field: "title", pieces: [] }, excerpt("msg_3", "prt_5"), excerpt("msg_3", "prt_4", "reasoning"), excerpt("msg_1", "prt_1")] },
        { session: session("ses_b", "Other", 1), excerpts: [excerpt("msg_9", "prt_9")] },
      ],
      "ses_a",
    );
    expect(matches.map((match) => [match.messageId, match.excerpt.partID])).toEqual([
      ["msg_3", "prt_5"],
      ["msg_1", "prt_1"],
    ]);
  });

  it("says when the core may have had more matches than it sent", () => {
    const many = Array.from({ length: findLimit }, (_, index) => excerpt(`msg_${String(index)}`, `prt_${String(index)}`));
    expect(findTruncated([{ session: session("ses_a", "x", 1), excerpts: many }])).toBe(true);
    expect(findTruncated([{ session: session("ses_a", "x", 1), excerpts: many.slice(1) }])).toBe(false);
  });
});
