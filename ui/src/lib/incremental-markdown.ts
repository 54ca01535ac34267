// A streaming reply rendered block by block. Re-rendering the reply's whole DOM on every frame
// made the webview restyle, relayout and repaint everything (10 fps in the window at 500
// deltas/s); here the finished blocks (a closed paragraph, list, code block) keep their nodes and
// only the blocks whose HTML changed — in practice the last, open one — are replaced.
//
// Safety: each block's HTML is sanitised on its own and parsed on its own into a detached
// element, so a tag cannot start in one block and end in the next: nothing reaches the document
// that the sanitiser did not see whole.
import { markdownBlocks, sanitiseHtml } from "./markdown";

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
  return {
    render(source) {
      const blocks = markdownBlocks(source);
      let same = 0;
      while (same < blocks.length && same < rendered.length && rendered[same]?.html === blocks[same]) same += 1;
      for (const block of rendered.slice(same)) for (const node of block.nodes) node.remove();
      rendered = rendered.slice(0, same);
      for (const html of blocks.slice(same)) {
        const holder = container.ownerDocument.createElement("div");
        // sanitiseHtml is DOMPurify: only its output is parsed into this (detached) element.
        holder.innerHTML = sanitiseHtml(html);
        decorate(holder);
        const nodes = Array.from(holder.childNodes);
        container.append(...nodes);
        rendered.push({ html, nodes });
      }
    },
    reset() {
      rendered = [];
      container.replaceChildren();
    },
  };
}
