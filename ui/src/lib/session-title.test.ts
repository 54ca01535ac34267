import { describe, expect, it } from "vitest";
import { translator } from "./i18n";
import { displayTitle, forkOf, isPlaceholderTitle, plainFileName, plainTitle, plainExcerptPieces } from "./session-title";

describe("displayTitle", () => {
  it("keeps real titles as they are", () => {
    expect(displayTitle("Tax return 2025", translator("en"), "en")).toBe("Tax return 2025");
  });

  it("turns the placeholder into a short, translated name: the time today, the day before", () => {
    const now = new Date("2026-11-30T18:00:00Z");
    const today = displayTitle("New session - 2026-11-30T03:15:19.420Z", translator("en"), "en", now);
    expect(today.startsWith("New session · ")).toBe(true);
    expect(today).not.toContain("2026");
    expect(today).toMatch(/\d{1,2}:\d{2}/);
    const earlier = displayTitle("New session - 2026-11-02T12:15:19.420Z", translator("en"), "en", now);
    expect(earlier).toBe("New session · Nov 2");
    expect(displayTitle("Child session - 2026-11-30T03:15:19.420Z", translator("zh-CN"), "zh-CN").startsWith("子会话 · ")).toBe(true);
  });

  it("shows a Markdown title as plain text", () => {
    expect(displayTitle("## Summary of your file", translator("en"), "en")).toBe("Summary of your file");
  });
});

describe("plainTitle", () => {
  it.each([
    ["## Summary of your file", "Summary of your file"],
    ["# Title #", "Title"],
    ["**Bold** plan for _Monday_", "Bold plan for Monday"],
    ["Fixing `parse_args` in [the CLI](https://example.com)", "Fixing parse_args in the CLI"],
    ["> quoted\n- listed", "quoted listed"],
    ["snake_case_name stays", "snake_case_name stays"],
    ["2 * 3 = 6", "2 * 3 = 6"],
    ["<b>raw</b> html", "raw html"],
    ["###", "###"],
    ["| Name | Size |\n|---|:---:|\n| a.txt | 2 KB |", "Name Size a.txt 2 KB"],
    ["| Quarterly totals |", "Quarterly totals"],
    ["Cats | dogs", "Cats | dogs"],
    ["---", "---"],
  ])("%j reads %j", (title, plain) => {
    expect(plainTitle(title)).toBe(plain);
  });
});

describe("plainFileName", () => {
  it("strips Markdown and characters a file system refuses from the name, keeping the extension", () => {
    expect(plainFileName("## Summary of your file.md")).toBe("Summary of your file.md");
    expect(plainFileName("**Plan**: a/b?.json")).toBe("Plan a b.json");
    expect(plainFileName("###.md")).toBe("session.md");
    expect(plainFileName("Taxes.md")).toBe("Taxes.md");
  });
});

describe("plainExcerptPieces", () => {
  it("drops Markdown's marks from a title excerpt and keeps the matched words marked", () => {
    expect(
      plainExcerptPieces("title", [
        { text: "## ", highlighted: false },
        { text: "Summary", highlighted: true },
        { text: " of **your** notes", highlighted: false },
      ]),
    ).toEqual([
      { text: "Summary", highlighted: true },
      { text: " of your notes", highlighted: false },
    ]);
    expect(plainExcerptPieces("title", [{ text: "## Plan for ", highlighted: false }, { text: "Monday", highlighted: true }])).toEqual([
      { text: "Plan for ", highlighted: false },
      { text: "Monday", highlighted: true },
    ]);
  });

  it("removes a mark whose pair lies in another piece, in a message's excerpt too", () => {
    expect(
      plainExcerptPieces("text", [
        { text: "Here is **the ", highlighted: false },
        { text: "fix", highlighted: true },
        { text: "**: see [the `guide`](https://example.com) and *", highlighted: false },
        { text: "this", highlighted: true },
        { text: "*.", highlighted: false },
      ]),
    ).toEqual([
      { text: "Here is the ", highlighted: false },
      { text: "fix", highlighted: true },
      { text: ": see the guide and ", highlighted: false },
      { text: "this", highlighted: true },
      { text: ".", highlighted: false },
    ]);
  });

  it("gives the same words as plainTitle, whatever is matched", () => {
    const title = "### Notes on `cargo` and **Tauri**";
    const pieces = plainExcerptPieces("title", [
      { text: "### Notes on `", highlighted: false },
      { text: "cargo", highlighted: true },
      { text: "` and **Tauri**", highlighted: false },
    ]);
    expect(pieces.map((piece) => piece.text).join("")).toBe(plainTitle(title));
  });

  it("leaves a file name as it is", () => {
    const pieces = [{ text: "_draft_ notes.md", highlighted: false }, { text: "notes", highlighted: true }];
    expect(plainExcerptPieces("file", pieces)).toEqual(pieces);
  });
});

describe("forkOf", () => {
  it.each([
    ["Trip to Lisbon (fork #1)", { source: "Trip to Lisbon", number: 1 }],
    ["Taxes (fork #1) (fork #2)", { source: "Taxes (fork #1)", number: 2 }],
    ["Taxes (fork #x)", undefined],
    ["(fork #1)", undefined],
    ["Plain title", undefined],
  ])("%j is %j", (title, fork) => {
    expect(forkOf(title)).toEqual(fork);
  });
});

describe("isPlaceholderTitle", () => {
  it("knows the core's placeholder and nothing else", () => {
    expect(isPlaceholderTitle("New session - 2026-11-30T03:15:19.420Z")).toBe(true);
    expect(isPlaceholderTitle("New session - tomorrow")).toBe(false);
    expect(isPlaceholderTitle("Budget")).toBe(false);
  });
});
