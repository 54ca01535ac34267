// A streaming reply rendered block by block. Re-rendering the reply's whole DOM on every frame
// made the webview restyle, relayout and repaint everything (10 fps in the window at 500
// deltas/s); here the finished blocks (a closed paragraph, list, code block) keep their nodes and
// only the blocks whose HTML changed — in practice the last, open one — are replaced.
//
// The open block is, most of the time, a paragraph gaining words, or a code block gaining code.
// When the lexer's tokens say that is all that happened (markdown.ts, `growingMarkdown`), the
// words are appended to the paragraph (or the `<code>`) as text, with no render, sanitising or
// parse of the block: the cost of a frame no longer grows with the block (one 2,500-word
// paragraph spent ~9 ms a frame rebuilding it).
//
// Safety: each block's HTML is sanitised on its own and parsed on its own into a detached
// element, so a tag cannot start in one block and end in the next: nothing reaches the document
// that the sanitiser did not see whole. Appended words go in as a text node's data, never as HTML.
import { growingMarkdown, sanitiseHtml } from "./markdown";

interface RenderedBlock {
  /** The block's HTML as marked wrote it (before sanitising): what tells an unchanged block. */
  html: string;
  /** The block's top-level nodes in the container, decorations included. */
  nodes: ChildNode[];
}

export interface IncrementalMarkdown {
  /** Shows `source` in the container, replacing only the blocks that changed. */
  render(source: string): void;
  /** Forgets every block, so the next render builds all of them (the labels changed). */
  reset(): void;
}

/**
 * Renders Markdown into `container`, which it owns. `decorate` runs on each new block before it
 * is added (the code blocks' header and Copy button), so decorations stay with their block; a
 * paragraph that only gains text is not decorated again (decorations are for code blocks).
 */
export function incrementalMarkdown(container: HTMLElement, decorate: (block: HTMLElement) => void): IncrementalMarkdown {
  let rendered: RenderedBlock[] = [];
  // Lexes and renders again only the end of a text that grew (see growingMarkdownBlocks).
  let markdownBlocks = growingMarkdown();
  return {
    render(source) {
      const { blocks, appended } = markdownBlocks(source);
      const open = rendered.at(-1);
      const grown = blocks.at(-1);
      // Only plain text added at the end of the open paragraph or code block: append it, as text.
      if (appended !== undefined && open !== undefined && grown !== undefined && rendered.length === blocks.length && open.html === appended.to) {
        const element = appendedInto(open.nodes, appended.into);
        if (element !== undefined) {
          appendText(element, appended.text);
          open.html = grown;
          return;
        }
      }
      let same = 0;
      while (same < blocks.length && same < rendered.length && rendered[same]?.html === blocks[same]) same += 1;
      // The open block, grown (a list item gaining words, a new item): its nodes stay, their text
      // changes and new nodes are added after them, when the new render has the same elements.
      if (open !== undefined && grown !== undefined && same === blocks.length - 1 && same === rendered.length - 1) {
        const holder = build(container, grown, decorate);
        if (updateText(open.nodes, Array.from(holder.childNodes))) {
          open.html = grown;
          return;
        }
      }
      for (const block of rendered.slice(same)) for (const node of block.nodes) node.remove();
      rendered = rendered.slice(0, same);
      for (const html of blocks.slice(same)) {
        const nodes = Array.from(build(container, html, decorate).childNodes);
        container.append(...nodes);
        rendered.push({ html, nodes });
      }
    },
    reset() {
      rendered = [];
      markdownBlocks = growingMarkdown();
      container.replaceChildren();
    },
  };
}

/** A block's sanitised nodes, decorated, in a detached element of the container's document. */
function build(container: HTMLElement, html: string, decorate: (block: HTMLElement) => void): HTMLElement {
  const holder = container.ownerDocument.createElement("div");
  // sanitiseHtml is DOMPurify: only its output is parsed into this (detached) element.
  holder.innerHTML = sanitiseHtml(html);
  decorate(holder);
  return holder;
}

/**
 * The element a block's appended text goes at the end of: its paragraph, or the `<code>` of its
 * `<pre>` (after the header decorate put before it). Undefined when the nodes are not that shape.
 */
function appendedInto(nodes: readonly ChildNode[], into: "paragraph" | "code"): Element | undefined {
  if (into === "paragraph") {
    const paragraph = nodes[0];
    return paragraph?.nodeType === Node.ELEMENT_NODE && paragraph.nodeName === "P" ? (paragraph as Element) : undefined;
  }
  const pre = nodes.find((node) => node.nodeName === "PRE");
  const code = pre?.lastChild;
  return pre?.childNodes.length === 1 && code?.nodeName === "CODE" ? (code as Element) : undefined;
}

/** Adds `text` at the end of `element`: to its last text node, so the engine sees one text grow. */
function appendText(element: Element, text: string): void {
  const last = element.lastChild;
  if (last?.nodeType === Node.TEXT_NODE) (last as Text).appendData(text);
  else element.append(element.ownerDocument.createTextNode(text));
}

/**
 * Makes `current` show what `next` shows by changing only text and adding items at the end of a
 * list, when `next` is `current` with the same elements, with the same attributes, in the same
 * places, and maybe more items after a list's last (an item started); returns false (and changes
 * nothing) otherwise. A text that only grew is appended to, so the engine sees an append, not a
 * new text; the finished items of a list keep their nodes when an item starts. Any other new
 * element (emphasis in the open paragraph) builds the block again.
 */
function updateText(current: readonly ChildNode[], next: readonly ChildNode[]): boolean {
  const changes: (() => void)[] = [];
  if (!collectTextChanges(current, next, changes, undefined)) return false;
  for (const change of changes) change();
  return true;
}

/** `parent`: the element holding `current`; none at the top level, whose nodes the caller keeps track of. */
function collectTextChanges(current: readonly ChildNode[], next: readonly ChildNode[], changes: (() => void)[], parent: Element | undefined): boolean {
  const list = parent?.nodeName === "UL" || parent?.nodeName === "OL";
  if (current.length > next.length || (!list && current.length !== next.length)) return false;
  if (parent !== undefined && next.length > current.length) {
    // Moved from the detached, sanitised block they were parsed into.
    const added = next.slice(current.length);
    changes.push(() => { parent.append(...added); });
  }
  for (let index = 0; index < current.length; index += 1) {
    const before = current[index];
    const after = next[index];
    if (before === undefined || after === undefined || before.nodeType !== after.nodeType || before.nodeName !== after.nodeName) return false;
    // Compared by node type, not instanceof: the nodes may come from another realm's document.
    if (before.nodeType === Node.TEXT_NODE || before.nodeType === Node.COMMENT_NODE) {
      const text = before as CharacterData;
      const was = text.data;
      const now = after.textContent ?? "";
      if (was === now) continue;
      changes.push(now.startsWith(was) ? () => { text.appendData(now.slice(was.length)); } : () => { text.data = now; });
      continue;
    }
    if (before.nodeType !== Node.ELEMENT_NODE || !sameAttributes(before as Element, after as Element)) return false;
    if (!collectTextChanges(Array.from(before.childNodes), Array.from(after.childNodes), changes, before as Element)) return false;
  }
  return true;
}

function sameAttributes(before: Element, after: Element): boolean {
  if (before.attributes.length !== after.attributes.length) return false;
  for (const attribute of Array.from(after.attributes)) {
    if (before.getAttribute(attribute.name) !== attribute.value) return false;
  }
  return true;
}
