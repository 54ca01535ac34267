// DOMPurify needs a complete DOM; happy-dom lets event handlers through, jsdom matches browsers.
// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { renderMarkdown } from "./markdown";

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
