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

  it("removes scripts, event handlers and javascript links", () => {
    const html = renderMarkdown(
      '<script>alert(1)</script>\n\n<img src="x" onerror="alert(2)">\n\n[click](javascript:alert(3))\n\n<iframe src="https://evil"></iframe>',
    );
    expect(html).not.toContain("<script");
    expect(html).not.toContain("onerror");
    expect(html).toContain(">click</a>");
    expect(html).not.toContain('href="javascript:');
    expect(html).not.toContain("<iframe");
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
});
