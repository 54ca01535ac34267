import { describe, expect, it } from "vitest";
import type { Session } from "./bindings/Session";
import { translator } from "./i18n";
import { groupSessions } from "./session-groups";
import { session } from "./transport/fake-backend";

const now = new Date(2026, 11, 1, 15, 0);
const at = (year: number, month: number, day: number, hour = 12) => new Date(year, month, day, hour).getTime();
const made = (id: string, updated: number, pinned = false): Session => ({ ...session(id, id, updated), ...(pinned ? { pinned: true } : {}) });

const shown = (sessions: Session[], locale: "en" | "zh-CN" = "en") =>
  groupSessions(sessions, now, translator(locale), locale).map((item) => (item.kind === "heading" ? `# ${item.label}` : item.session.id));

describe("groupSessions", () => {
  it("puts Pinned on top, then Today, Yesterday, Previous 7 days and one section per month", () => {
    const sessions = [
      made("today-late", at(2026, 11, 1, 14)),
      made("today-early", at(2026, 11, 1, 0)),
      made("yesterday", at(2026, 10, 30, 23)),
      made("six-days", at(2026, 10, 25)),
      made("november", at(2026, 10, 3)),
      made("october", at(2026, 9, 30)),
      made("last-year", at(2025, 11, 24)),
      made("pinned-old", at(2024, 0, 1), true),
    ];
    expect(shown(sessions)).toEqual([
      "# Pinned",
      "pinned-old",
      "# Today",
      "today-late",
      "today-early",
      "# Yesterday",
      "yesterday",
      "# Previous 7 days",
      "six-days",
      "# November 2026",
      "november",
      "# October 2026",
      "october",
      "# December 2025",
      "last-year",
    ]);
  });

  it("keeps the sections in order even when the sessions come unsorted, and leaves out empty ones", () => {
    expect(shown([made("old", at(2026, 4, 2)), made("new", at(2026, 11, 1)), made("older", at(2026, 3, 2))])).toEqual([
      "# Today",
      "new",
      "# May 2026",
      "old",
      "# April 2026",
      "older",
    ]);
    expect(shown([])).toEqual([]);
  });

  it("names the sections in Chinese", () => {
    expect(shown([made("a", at(2026, 11, 1)), made("b", at(2026, 10, 30)), made("c", at(2026, 7, 1), false)], "zh-CN")).toEqual(["# 今天", "a", "# 昨天", "b", "# 2026年8月", "c"]);
  });
});
