// A streaming reply rendered block by block. Re-rendering the reply's whole DOM on every frame
// made the webview restyle, relayout and repaint everything (10 fps in the window at 500
// deltas/s); here the finished blocks (a closed paragraph, list, code block) keep their nodes and
// only the blocks whose HTML changed — in practice the last, open one — are replaced.
//
// Safety: each block's HTML is sanitised on its own and parsed on its own into a detached
// element, so a tag cannot start in one block and end in the next: nothing reaches the document
// that the sanitiser did not see whole.
import { growingMarkdownBlocks, sanitiseHtml } from "./markdown";

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
 * is added (the code blocks' header and Copy button), so decorations stay with their block.
 */
export function incrementalMarkdown(container: HTMLElement, decorate: (block: HTMLElement) => void): IncrementalMarkdown {
  let rendered: RenderedBlock[] = [];
  // Lexes and renders again only the end of a text that grew (see growingMarkdownBlocks).
  let markdownBlocks = growingMarkdownBlocks();
  return {
    render(source) {
      const blocks = markdownBlocks(source);
      let same = 0;
      while (same < blocks.length && same < rendered.length && rendered[same]?.html === blocks[same]) same += 1;
      // The open block, grown by a few words: its nodes stay and only their text changes, when
      // the new render has the same elements (the common case while a paragraph streams).
      const open = rendered[same];
      const grown = blocks[same];
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
      markdownBlocks = growingMarkdownBlocks();
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
 * Makes `current` show what `next` shows by changing only text, when both are the same elements
 * with the same attributes in the same places; returns false (and changes nothing) otherwise. A
 * text that only grew is appended to, so the engine sees an append, not a new text.
 */
function updateText(current: readonly ChildNode[], next: readonly ChildNode[]): boolean {
  const changes: (() => void)[] = [];
  if (!collectTextChanges(current, next, changes)) return false;
  for (const change of changes) change();
  return true;
}

function collectTextChanges(current: readonly ChildNode[], next: readonly ChildNode[], changes: (() => void)[]): boolean {
  if (current.length !== next.length) return false;
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
    if (!collectTextChanges(Array.from(before.childNodes), Array.from(after.childNodes), changes)) return false;
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
