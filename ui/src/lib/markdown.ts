// Model output as Markdown, sanitised: marked turns it into HTML, DOMPurify removes anything that
// could run (scripts, event handlers, javascript: links, iframes). Model output never runs script.
import DOMPurify from "dompurify";
import { Marked } from "marked";

const marked = new Marked({ gfm: true, breaks: false, async: false });

/** Safe HTML for `innerHTML`. Links open nothing by themselves: the page handles clicks. */
export function renderMarkdown(source: string): string {
  const html = marked.parse(source, { async: false });
  return DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "object", "embed"],
    FORBID_ATTR: ["style"],
  });
}
