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
import { Marked, type Token, type Tokens } from "marked";
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

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
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
  const tokens = marked.lexer(source);
  const blocks: string[] = [];
  let group: Token[] = [];
  const close = () => {
    if (group.length === 0) return;
    const html = marked.parser(group);
    // A space or a link definition renders nothing: no block of its own.
    if (html !== "") blocks.push(html);
    group = [];
  };
  for (const token of tokens) {
    if (token.type !== "text" || group.at(-1)?.type !== "text") close();
    group.push(token);
  }
  close();
  return blocks;
}
