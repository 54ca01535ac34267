// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { clickedLink, externalUrl } from "./links";

describe("externalUrl", () => {
  it("opens http and https links", () => {
    expect(externalUrl("https://example.com/guide")).toBe("https://example.com/guide");
    expect(externalUrl(" http://example.com ")).toBe("http://example.com/");
  });
  it("never opens another scheme, a relative link or nothing", () => {
    for (const href of ["file:///etc/passwd", "javascript:alert(1)", "data:text/html,hi", "tauri://localhost/", "mailto:a@b.c", "/session/ses_1", "notes.txt", "#top", "", null, undefined]) {
      expect(externalUrl(href), String(href)).toBeUndefined();
    }
  });
});

describe("clickedLink", () => {
  it("finds the reply's link a click landed in, and only a reply's", () => {
    document.body.innerHTML = '<div class="markdown"><a href="https://example.com/a"><strong id="inner">A</strong></a><a id="file">file</a></div><a id="outside" href="https://example.com/b">B</a>';
    expect(clickedLink(document.getElementById("inner"))).toEqual({ url: "https://example.com/a" });
    expect(clickedLink(document.getElementById("file"))).toEqual({ url: undefined });
    expect(clickedLink(document.getElementById("outside"))).toBeUndefined();
    expect(clickedLink(null)).toBeUndefined();
  });
});
