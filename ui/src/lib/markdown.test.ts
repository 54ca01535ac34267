// DOMPurify needs a complete DOM; happy-dom lets event handlers through, jsdom matches browsers.
// @vitest-environment jsdom
import { Marked } from "marked";
import { describe, expect, it } from "vitest";
import { lexMarkdown, renderMarkdown } from "./markdown";

describe("renderMarkdown", () => {
  it("renders headings, emphasis, lists and code", () => {
    const html = renderMarkdown("# Title\n\n*one* and **two**\n\n- a\n- b\n\n```rust\nfn main() {}\n```");
    expect(html).toContain("<h1>Title</h1>");
    expect(html).toContain("<em>one</em>");
    expect(html).toContain("<li>a</li>");
    expect(html).toContain('<code class="hljs language-rust"><span class="hljs-keyword">fn</span> <span class="hljs-title function_">main</span>');
  });

  it("escapes code in unknown languages instead of running it", () => {
    const html = renderMarkdown("```weird\n<script>alert(1)</script>\n```");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toContain("<script");
  });

  it("shows HTML the model wrote as text: no script, handler, image or frame reaches the page", () => {
    const html = renderMarkdown(
      '<script>alert(1)</script>\n\n<img src="x" onerror="alert(2)">\n\n[click](javascript:alert(3))\n\n<iframe src="https://evil"></iframe>',
    );
    const root = document.createElement("template");
    root.innerHTML = html;
    expect(root.content.querySelector("script, img, iframe, [onerror]")).toBeNull();
    expect(root.content.textContent).toContain('<img src="x" onerror="alert(2)">');
    expect(html).toContain(">click</a>");
    expect(html).not.toContain('href="javascript:');
  });

  it("opens http links in a new tab cut off from the app, and leaves file: and relative links as words", () => {
    const html = renderMarkdown("[guide](https://example.com/guide) [local](file:///etc/passwd) [inside](/session/x)");
    const root = document.createElement("div");
    root.innerHTML = html;
    const [guide, local, inside] = [...root.querySelectorAll("a")];
    expect(guide?.getAttribute("href")).toBe("https://example.com/guide");
    expect(guide?.getAttribute("target")).toBe("_blank");
    expect(guide?.getAttribute("rel")).toBe("noopener noreferrer");
    expect(local?.hasAttribute("href")).toBe(false);
    expect(local?.textContent).toBe("local");
    expect(inside?.hasAttribute("href")).toBe(false);
  });

  it("keeps no image that would be fetched: a remote one becomes its words, an inline one stays", () => {
    const html = renderMarkdown("Look: ![chart](https://example.com/c.png) ![dot](data:image/png;base64,iVBORw0KGgo=)");
    expect(html).not.toContain("example.com");
    expect(html).toContain("chart");
    expect(html).toContain('src="data:image/png;base64,iVBORw0KGgo="');
  });
});

describe("tables", () => {
  it("sit in a box of their own that scrolls sideways and takes the focus, with the columns' alignment kept", () => {
    const root = document.createElement("div");
    root.innerHTML = renderMarkdown("Before\n\n| Item | Cost |\n|---|--:|\n| `rent` | 1,200 |\n\nAfter");
    const box = root.querySelector(".table-scroll");
    expect(box?.getAttribute("tabindex")).toBe("0");
    expect(box?.querySelector("table")?.querySelectorAll("th, td")).toHaveLength(4);
    expect(box?.querySelector("td code")?.textContent).toBe("rent");
    expect(box?.querySelector("th:last-child")?.getAttribute("align")).toBe("right");
    expect([...root.children].map((child) => child.tagName)).toEqual(["P", "DIV", "P"]);
  });

  it("stay sanitised: HTML in a cell is words, a script link loses its href", () => {
    const root = document.createElement("template");
    root.innerHTML = renderMarkdown('| a | b |\n|---|---|\n| <img src=x onerror="alert(1)"> | [go](javascript:alert(2)) |');
    expect(root.content.querySelector("img, [onerror], script")).toBeNull();
    expect(root.content.querySelector("td")?.textContent).toBe('<img src=x onerror="alert(1)">');
    expect(root.content.querySelector("a")?.hasAttribute("href")).toBe(false);
  });
});

describe("lexMarkdown", () => {
  // The quick checks in front of three of marked's block rules (setext heading, HTML block,
  // table) only skip a rule that cannot match: every text lexes exactly as an unchanged marked
  // lexes it, at every length (a streaming reply is lexed at every length).
  const stock = new Marked({ gfm: true, breaks: false, async: false });
  const texts = [
    "Title\n===\n\nSub\n---\n\ntext\n   ===  \nmore\n    ---\n\nlazy\nlines\nthen\n-\n\n=",
    "para\n \n===\n\npara\n\t\n---\n\na\u2028b\n===\n\nc\u00a0\n\n---\n\nd\r\n===\r\n",
    "- item\n===\n\n> quote\n---\n\n# h\n===\n\n```\nx\n```\n===",
    "| a | b |\n|---|:-:|\n| 1 | 2 |\n\na | b\n-- | --\n\n| x |\n    |---|\n\n| y |\n:-\n\nno table\n|\n\n|a|\n | - |\n",
    "<div>\nblock\n</div>\n\n   <pre>x</pre>\n\n    <div>code</div>\n\n<!-- c -->\n\n<?php ?>\n\n<!DOCTYPE html>\n\n<![CDATA[x]]>\n\n<custom-tag a=\"1\">\n\n</span>\n\ntext <b>inline</b>\n<div>after a paragraph line",
    Array.from({ length: 200 }, (_, index) => `d${String(index)}`).join(" ") + "\nsecond line\n---",
  ];
  for (const [index, text] of texts.entries()) {
    it(`gives marked's own tokens at every length (text ${String(index)})`, () => {
      for (let end = 0; end <= text.length; end += 1) {
        const prefix = text.slice(0, end);
        expect(lexMarkdown(prefix), `text ${String(index)} at ${String(end)}`).toEqual(stock.lexer(prefix));
      }
    }, 30_000);
  }
});
