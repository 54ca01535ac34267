// Model output as Markdown, sanitised: marked turns it into HTML (code blocks highlighted with
// highlight.js for the common languages), then DOMPurify removes anything that could run
// (scripts, event handlers, javascript: links, iframes). Model output never runs script.
import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { Marked, Renderer, type Token, type Tokens, type TokensList } from "marked";
import { externalUrl } from "./links";

const languages = { bash, c, cpp, css, diff, go, java, javascript, json, markdown, python, rust, sql, typescript, xml, yaml };
for (const [name, definition] of Object.entries(languages)) hljs.registerLanguage(name, definition);
hljs.registerAliases(["sh", "shell", "zsh"], { languageName: "bash" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["js", "jsx"], { languageName: "javascript" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["rs"], { languageName: "rust" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["yml"], { languageName: "yaml" });

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** A setext underline: a line of `=` or of `-` (the heading's text is on the lines above it). */
const setextUnderline = /\n {0,3}(?:=+|-+) *(?:\n|$)/;
/** A blank line: a newline, nothing but spaces, and another newline. */
const blankLine = /\n[^\S\n]*\n/;
/** The start of a table's delimiter row (`|---|`, `:--`), matched at the start of the second line. */
const delimiterRowStart = / {0,3}(?:\| *)?:?-/y;

/** Marked's own rendering, for the blocks that are only wrapped here (a table). */
const stockRenderer = new Renderer();

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  // JavaScriptCore (the window's engine) runs some of marked's block rules very slowly on a long
  // paragraph: the setext heading rule took 27 ms on one 14,000-character paragraph (V8: under a
  // millisecond), and a streaming reply lexes its open paragraph again every frame. Each rule
  // below first checks something its regular expression requires; when that is missing the rule
  // cannot match (undefined: "no such block here"), otherwise `false` runs marked's own rule. So
  // the tokens are always marked's (markdown.test.ts compares them with an unchanged marked).
  tokenizer: {
    lheading(source) {
      // The heading's text cannot hold a blank line, so its underline comes before the first one.
      const blank = source.search(blankLine);
      return setextUnderline.test(blank < 0 ? source : source.slice(0, blank)) ? false : undefined;
    },
    // Every kind of HTML block starts with `<` after at most three spaces.
    html(source) {
      return /^ {0,3}</.test(source) ? false : undefined;
    },
    // A table's second line is its delimiter row.
    table(source) {
      const lineEnd = source.indexOf("\n");
      if (lineEnd < 0) return undefined;
      delimiterRowStart.lastIndex = lineEnd + 1;
      return delimiterRowStart.test(source) ? false : undefined;
    },
  },
  renderer: {
    // HTML the model wrote is shown as the text it is, never parsed: even the sanitiser's own
    // inert parse fires an image's error handler (a CSP report) before it could remove it.
    html({ text }: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(text);
    },
    code({ text, lang }: Tokens.Code): string {
      const language = (lang ?? "").trim().split(/\s+/)[0] ?? "";
      const known = language !== "" && hljs.getLanguage(language) !== undefined;
      const body = known ? hljs.highlight(text, { language, ignoreIllegals: true }).value : escapeHtml(text);
      const label = language === "" ? "" : ` language-${escapeHtml(language)}`;
      return `<pre><code class="hljs${label}">${body}</code></pre>\n`;
    },
    // A table wider than the reply scrolls sideways inside its own box, so its cells keep whole
    // words (no "Cos/t") and the reply around it does not grow a scroll bar. The box takes the
    // focus (Tab, then the arrow keys), as a scrolling region must for people without a mouse.
    table(this: Renderer, token: Tokens.Table): string {
      stockRenderer.parser = this.parser;
      return `<div class="table-scroll" tabindex="0">${stockRenderer.table(token)}</div>\n`;
    },
  },
});

// A link the app may open (http, https) opens in a new tab, cut off from this page; any other
// (file:, a relative path into the app) loses its href and stays words.
DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  // A reply's image would be fetched the moment the HTML reaches the page (a tracker, a missing
  // file, a request the CSP refuses): only inline `data:` images stay, others become their words.
  if (node.tagName === "IMG") {
    if (!(node.getAttribute("src") ?? "").startsWith("data:")) node.replaceWith(node.ownerDocument.createTextNode(node.getAttribute("alt") ?? ""));
    return;
  }
  if (node.tagName !== "A") return;
  const url = externalUrl(node.getAttribute("href"));
  if (url === undefined) {
    node.removeAttribute("href");
    node.removeAttribute("target");
    return;
  }
  node.setAttribute("target", "_blank");
  node.setAttribute("rel", "noopener noreferrer");
});

/** Removes anything that could run from HTML marked wrote (scripts, handlers, frames, styles). */
export function sanitiseHtml(html: string): string {
  return DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "object", "embed"],
    FORBID_ATTR: ["style"],
  });
}

/** Safe HTML for `innerHTML`. Links open nothing by themselves: the conversation handles clicks. */
export function renderMarkdown(source: string): string {
  return sanitiseHtml(marked.parse(source, { async: false }));
}

/**
 * The HTML of each top-level block of `source` (paragraph, list, code block, table…), NOT yet
 * sanitised: the caller sanitises each block on its own before it reaches a document. Joined,
 * the blocks are exactly what `marked.parse` writes for the whole text: the lexer has already
 * resolved what crosses blocks (a link defined further down), and the parser renders top-level
 * tokens one after another, merging only consecutive `text` tokens, which stay in one block here.
 */
export function markdownBlocks(source: string): string[] {
  return renderBlocks(lexMarkdown(source), undefined).map((block) => block.html);
}

/** Markdown's top-level tokens, with the inline tokens inside them and the link definitions. */
export function lexMarkdown(source: string): TokensList {
  return marked.lexer(source);
}

/**
 * `markdownBlocks` for a text that grows at its end (a streaming reply), faster: called with
 * each new version of the text, it lexes again only from the second-to-last block on (text added
 * at the end can change the last block, or join it to the one before, as a list's loose item
 * does, but not what comes before those), and renders again only the blocks whose source changed.
 * Each call returns exactly what `markdownBlocks` returns for the same text. Whenever reusing
 * could differ from lexing the whole text, the whole text is lexed:
 * - the text did not only grow (an edit, or a new reply in the same place);
 * - a link definition anywhere ("[docs]: https://…"), which changes how a block that uses it
 *   renders without changing that block's source;
 * - raw HTML (`<`) or a carriage return in the part kept: marked carries an open inline `<pre>`
 *   or `<a>` from one block to the next, and turns "\r\n" into "\n" before lexing.
 */
export function growingMarkdownBlocks(lex: (text: string) => TokensList = lexMarkdown): (source: string) => string[] {
  const grow = growingMarkdown(lex);
  return (source) => grow(source).blocks;
}

/** What `growingMarkdown` gives for each new version of a text. */
export interface GrownMarkdown {
  /** Each top-level block's HTML, not yet sanitised: exactly what `markdownBlocks` gives. */
  blocks: string[];
  /**
   * Set when the only change since the last call is plain text added at the end of the last
   * block, a paragraph or a code block (see `appendedPlainText`): what to append to that block's
   * element, as text, to show this version.
   */
  appended: AppendedText | undefined;
}

export interface AppendedText {
  /** The last block's HTML at the last call: the block this text goes at the end of. */
  to: string;
  /** Where in that block: the end of its `<p>`, or of the `<code>` in its `<pre>`. */
  into: "paragraph" | "code";
  /** The characters the page shows for the added HTML (it holds no tag, only `&lt;`-like escapes). */
  text: string;
}

/** `growingMarkdownBlocks`, also saying when the last block only gained plain text at its end. */
export function growingMarkdown(lex: (text: string) => TokensList = lexMarkdown): (source: string) => GrownMarkdown {
  let previousSource = "";
  let previousTokens: Token[] = [];
  let previousLinks = false;
  let previousBlocks: RenderedBlock[] = [];
  /** Each block's HTML by its Markdown source, from the last call. */
  const cache = new Map<string, string>();
  return (source) => {
    let tokens: Token[] | undefined;
    let links = false;
    const grew = source.startsWith(previousSource);
    const keep = grew && !previousLinks ? keptTokenCount(previousTokens) : 0;
    if (keep > 0) {
      const kept = previousTokens.slice(0, keep);
      const keptSource = kept.map((token) => token.raw).join("");
      if (source.startsWith(keptSource) && !/[<\r]/.test(keptSource)) {
        const tail = lex(source.slice(keptSource.length));
        if (Object.keys(tail.links).length === 0) tokens = [...kept, ...tail];
      }
    }
    if (tokens === undefined) {
      const lexed = lex(source);
      links = Object.keys(lexed.links).length > 0;
      tokens = lexed;
    }
    const blocks = renderBlocks(tokens, links ? undefined : cache);
    // A link definition can change how any block renders without its tokens changing.
    const appended = grew && !links && !previousLinks ? appendedPlainText(previousBlocks, blocks) : undefined;
    previousSource = source;
    previousTokens = tokens;
    previousLinks = links;
    previousBlocks = blocks;
    return { blocks: blocks.map((block) => block.html), appended };
  };
}

/** A top-level block: its HTML (not yet sanitised) and the tokens it was rendered from. */
interface RenderedBlock {
  html: string;
  tokens: readonly Token[];
}

/** HTML that is only characters: no tag, and no `&` but the escapes marked and highlight.js write for `<>"'&`. */
const plainHtml = /^(?:[^<>&]|&(?:lt|gt|quot|#39|#x27|amp);)*$/;
/** A control character but a newline or a tab: the HTML parser drops or changes some of them. */
const controlCharacter = /(?![\n\t])\p{Cc}/u;
/**
 * HTML whose end the added characters could change the meaning of: a character reference or a
 * tag not yet closed (marked's text inside an open inline `<pre>` is not escaped), or the first
 * half of a surrogate pair.
 */
const unfinishedAtEnd = /&[#0-9A-Za-z]*$|<[^>]*$|[\uD800-\uDBFF]$/;
/** Half of a surrogate pair without its other half: the HTML parser and a text node may differ on it. */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The text to append to the last block to go from `before` to `after`, when that is the whole
 * change; undefined otherwise (the caller renders the block again). Decided from the lexer's
 * tokens: the blocks before the last are unchanged, and the last block is, in both, either
 * - a paragraph whose inline tokens are the same but for its last one, plain text in both, which
 *   grew (new emphasis, code, a link, a line break, an escape, or the paragraph turning into a
 *   heading or a list each show as a token of another type or count); or
 * - a code block in the same language whose code grew (an open fence gaining lines).
 * The HTML then says exactly what was added: it must be the old block's HTML with characters
 * inserted before its closing tags, and those characters must be text with no markup (they are
 * appended as a text node, never parsed). For code this also holds the highlighting to it: a
 * word that changes how earlier code is coloured (a string closed, a comment opened) changes
 * the old HTML, so the block is rendered again.
 */
function appendedPlainText(before: readonly RenderedBlock[], after: readonly RenderedBlock[]): AppendedText | undefined {
  const last = after.length - 1;
  if (last < 0 || before.length !== after.length) return undefined;
  for (let index = 0; index < last; index += 1) if (before[index]?.html !== after[index]?.html) return undefined;
  const growth = paragraphGrowth(before[last]?.tokens, after[last]?.tokens) ?? codeGrowth(before[last]?.tokens, after[last]?.tokens);
  if (growth === undefined) return undefined;
  const beforeHtml = before[last]?.html ?? "";
  const afterHtml = after[last]?.html ?? "";
  if (!beforeHtml.endsWith(growth.end) || !afterHtml.endsWith(growth.end)) return undefined;
  const kept = beforeHtml.slice(0, -growth.end.length);
  if (afterHtml.length <= beforeHtml.length || !afterHtml.startsWith(kept)) return undefined;
  const added = afterHtml.slice(kept.length, -growth.end.length);
  if (!plainHtml.test(added) || controlCharacter.test(added) || loneSurrogate.test(added) || unfinishedAtEnd.test(kept)) return undefined;
  const text = added.replace(/&(lt|gt|quot|#39|#x27|amp);/g, (_, name: string) => escapes[name] ?? "");
  // The characters shown are the ones the token gained: nothing else moved.
  if (text !== growth.text) return undefined;
  return { to: beforeHtml, text, into: growth.into };
}

/** What a last block that only grew gained, by its tokens, and how its HTML ends. */
interface Growth {
  /** The characters the block's token gained. */
  text: string;
  /** The closing tags its HTML ends with, which the added characters come before. */
  end: string;
  into: AppendedText["into"];
}

/** A paragraph whose last inline token, plain text, grew and nothing else changed. */
function paragraphGrowth(before: readonly Token[] | undefined, after: readonly Token[] | undefined): Growth | undefined {
  const was = onlyToken<Tokens.Paragraph>(before, "paragraph");
  const now = onlyToken<Tokens.Paragraph>(after, "paragraph");
  if (was === undefined || now === undefined || was.tokens.length !== now.tokens.length) return undefined;
  const end = now.tokens.length - 1;
  for (let index = 0; index < end; index += 1) {
    const earlier = was.tokens[index];
    const later = now.tokens[index];
    if (earlier === undefined || later === undefined || earlier.type !== later.type || earlier.raw !== later.raw) return undefined;
  }
  const grownFrom = plainText(was.tokens[end]);
  const grown = plainText(now.tokens[end]);
  if (grownFrom === undefined || grown === undefined) return undefined;
  if (grownFrom.escaped !== grown.escaped || !grown.text.startsWith(grownFrom.text)) return undefined;
  return { text: grown.text.slice(grownFrom.text.length), end: "</p>\n", into: "paragraph" };
}

/** A code block whose code grew, in the same language and of the same kind (fenced or indented). */
function codeGrowth(before: readonly Token[] | undefined, after: readonly Token[] | undefined): Growth | undefined {
  const was = onlyToken<Tokens.Code>(before, "code");
  const now = onlyToken<Tokens.Code>(after, "code");
  if (was === undefined || now === undefined || was.lang !== now.lang || was.codeBlockStyle !== now.codeBlockStyle) return undefined;
  if (!now.text.startsWith(was.text)) return undefined;
  return { text: now.text.slice(was.text.length), end: "</code></pre>\n", into: "code" };
}

// marked escapes a quote as `&#39;`, highlight.js as `&#x27;`.
const escapes: Record<string, string> = { lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'", amp: "&" };

/** An inline text token: characters, with no tokens inside. */
function plainText(token: Token | undefined): Tokens.Text | undefined {
  return token?.type === "text" && !("tokens" in token) ? (token as Tokens.Text) : undefined;
}

function onlyToken<T extends Token>(tokens: readonly Token[] | undefined, type: T["type"]): T | undefined {
  const token = tokens?.length === 1 ? tokens[0] : undefined;
  return token?.type === type ? (token as T) : undefined;
}

/** How many of `tokens` (from the front) a longer text is sure to lex the same way: all but the last two blocks. */
function keptTokenCount(tokens: readonly Token[]): number {
  let blocksSeen = 0;
  for (let index = tokens.length - 1; index >= 0; index -= 1) {
    const token = tokens[index];
    if (token === undefined || token.type === "space") continue;
    blocksSeen += 1;
    // Keep everything before the second-to-last block; never split a run of `text` tokens,
    // which render as one block.
    if (blocksSeen === 2) {
      let start = index;
      while (start > 0 && tokens[start]?.type === "text" && tokens[start - 1]?.type === "text") start -= 1;
      return start;
    }
  }
  return 0;
}

/**
 * Renders top-level tokens block by block. `cache` (filled by the last call, or empty) gives the
 * HTML of a block whose source was rendered last time; the call leaves in it only these blocks,
 * so it does not grow. No cache when the text defines links (see growingMarkdownBlocks).
 */
function renderBlocks(tokens: readonly Token[], cache: Map<string, string> | undefined): RenderedBlock[] {
  const previous = cache === undefined ? undefined : new Map(cache);
  cache?.clear();
  const blocks: RenderedBlock[] = [];
  let group: Token[] = [];
  const close = () => {
    if (group.length === 0) return;
    const key = group.map((token) => token.raw).join("");
    const html = previous?.get(key) ?? marked.parser(group);
    cache?.set(key, html);
    // A space or a link definition renders nothing: no block of its own.
    if (html !== "") blocks.push({ html, tokens: group });
    group = [];
  };
  for (const token of tokens) {
    if (token.type !== "text" || group.at(-1)?.type !== "text") close();
    group.push(token);
  }
  close();
  return blocks;
}
