// A title, a download's file name or a search excerpt as plain words: a model sometimes writes a
// title as Markdown ("## Summary of your file"), and the marks mean nothing in a one-line label or
// a file name. Used by session-title.ts beside this folder and by the HTTP backend, and imports
// nothing of lib/ itself.
import type { ExcerptPiece } from "../bindings/ExcerptPiece";

/** A Markdown table's delimiter row: `|---|:--:|`, `--- | ---`. */
const tableDelimiter = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

/**
 * A Markdown table's row as its cells' words: `| Name | Size |` reads "Name Size". Only a line
 * that starts or ends with a pipe counts, so "A | B" in a typed title keeps its bar.
 */
function tableRowWords(line: string): string {
  if (!/^\s*\|.*\|?\s*$|^.*\|\s*$/.test(line)) return line;
  return line
    .split("|")
    .map((cell) => cell.trim())
    .filter((cell) => cell !== "")
    .join(" ");
}

/** The title's words without Markdown's marks: headings, emphasis, code, links, quotes, lists, tables. */
export function plainTitle(title: string): string {
  const words = title
    .split("\n")
    .filter((line) => !tableDelimiter.test(line))
    .map((line) =>
      tableRowWords(line)
        .replace(/^\s{0,3}(#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)/, "")
        .replace(/\s+#+\s*$/, ""),
    )
    .join(" ")
    // Images and links keep their words.
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<\/?[a-zA-Z][^>]*>/g, "")
    .replace(/`+([^`]*)`+/g, "$1")
    .replace(/(\*\*|__|~~)(.+?)\1/g, "$2")
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,:;!?]|$)/g, "$1$2")
    .replace(/\s+/g, " ")
    .trim();
  return words === "" ? title.trim() : words;
}

/**
 * A download's file name as plain text: a server that named the file after a Markdown title
 * ("## Summary.md") gets "Summary.md"; characters no file system takes become spaces.
 */
export function plainFileName(name: string): string {
  const dot = name.lastIndexOf(".");
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const extension = dot > 0 ? name.slice(dot) : "";
  const cleaned = plainTitle(stem)
    .replace(/[\\/:*?"<>|#]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return `${cleaned === "" ? "session" : cleaned}${extension}`;
}

// Where a matched piece starts and ends while an excerpt goes through plainTitle: characters from
// Unicode's private use area, which no Markdown mark and no whitespace pattern matches.
const matchStart = "\uE000";
const matchEnd = "\uE001";

/**
 * A search excerpt (of a title or a message) as plain text, through the same plainTitle the
 * titles go through, so the palette shows "the fix" where the text says "**the fix**". The
 * pieces are joined first: a mark often lies in one piece and its pair in another ("**" +
 * matched "fix" + "**"), which a piece-by-piece clean-up would leave. The matched words stay
 * marked. A file name is not Markdown: `file` excerpts are left as they are.
 */
export function plainExcerptPieces(field: string, pieces: readonly ExcerptPiece[]): ExcerptPiece[] {
  if (field === "file") return [...pieces];
  const joined = pieces.map((piece) => (piece.highlighted ? `${matchStart}${piece.text}${matchEnd}` : piece.text)).join("");
  const plain = plainTitle(joined);
  const result: ExcerptPiece[] = [];
  // Split on the markers: odd parts of "plain ␀match␁ plain" are the matched ones.
  for (const [index, text] of plain.split(new RegExp(`[${matchStart}${matchEnd}]`)).entries()) {
    if (text !== "") result.push({ text, highlighted: index % 2 === 1 });
  }
  return result;
}
