// DOMPurify needs a complete DOM; happy-dom lets event handlers through, jsdom matches browsers.
// @vitest-environment jsdom
import type { Tokens } from "marked";
import { describe, expect, it } from "vitest";
import { decorateCodeBlocks } from "./copying";
import { incrementalMarkdown } from "./incremental-markdown";
import { growingMarkdown, growingMarkdownBlocks, lexMarkdown, markdownBlocks, renderMarkdown, sanitiseHtml } from "./markdown";

const labels = { copy: "Copy", copied: "Copied", code: "Code" };
// A test that renders after every delta of a text at three step sizes does hundreds of full
// renders: 0.3–0.5 s on an idle machine, past vitest's 5 s default on this shared one under load.
const everyDeltaTimeout = 30_000;

/** What the reply showed before: the whole text rendered at once, then decorated. */
function fullRender(source: string): string {
  const element = document.createElement("div");
  element.innerHTML = renderMarkdown(source);
  decorateCodeBlocks(element, labels);
  return element.innerHTML;
}

/** The same pseudo-random numbers on every run (mulberry32), so a failure can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** Where a text arriving in deltas of 1 to `longest` characters is cut, at random. */
function randomCuts(length: number, longest: number, random: () => number): number[] {
  const cuts: number[] = [];
  for (let end = 0; end < length; end += 1 + Math.floor(random() * longest)) cuts.push(end);
  cuts.push(length);
  return cuts;
}

// Prose as a model streams it, with what a delta can start or end inside of: `**`, backticks,
// `<`, `&` and entities, quotes, CJK and emoji (a surrogate pair cut in two), soft breaks,
// autolinks, and a paragraph that becomes a heading or a list, then code fences.
const prose: Record<string, string> = {
  words: Array.from({ length: 300 }, (_, index) => `d${String(index)}`).join(" "),
  markup: "Plain words, then **bold words** and *emphasis* and `inline code` and ~~gone~~, more words after them. A second sentence with a soft\nbreak and a hard  \nbreak, then \\*escaped\\* stars and a_b_c snake and __under__ score.",
  characters: "Less < more > and a & b && c, &amp; &lt;tag&gt; &#39; &copy; &notanentity; &am, \"double\" and 'single' quotes, <b>bold?</b> <span class=\"x\">raw</span> a <b c <i",
  cjk: "日本語の文章です、句読点。中文段落，含有标点符号：“引号”与（括号）。한국어 문장입니다. Emoji 🎉🚀 and 👩‍💻 mixed in 中文🎉and English.",
  links: "See https://example.com/path?x=1 and www.example.org and mail me@example.com, or [a link](https://example.com) and <https://auto.example>.",
  becomes: "Title\n===\n\nA paragraph\n---\n\n1\n2. two\n\n- item one\n- item two\n\n# Heading\n\n> quote words\n\n```js\nconst a = 1 < 2 && 3;\n```\n\nAfter the fence, plain words again.",
  entityAtEnd: "Ends in an entity &amp",
  preOpen: "An inline <pre> left open makes text raw: words & more <i>x</i> words\n\nnext para words",
  // Open code blocks gaining code, where a later character changes how earlier code is coloured
  // (a string or comment opened and closed, a docstring, a keyword completed) or is escaped.
  code: "Intro\n\n```python\ndef f(x):\n    s = 'it''s a \"quote\" & <tag>'\n    # comment d1 d2\n    return \"\"\"doc\nstring\"\"\" + x if x else None\n```\n\n```rust\nfn main() { let s = \"a < b\"; /* c */ let r = 'x'; }\n```\n\n```\nplain <b> & 'q' d1 d2\n```\n\n    indented code & <i>\n    more\n\n```nosuchlanguage\nkept as 'typed' <x>\n",
  shaped: Array.from({ length: 400 }, (_, index) => shapedWord(index)).join(""),
};

/** Word `index` of a reply shaped as the window bench's (tests/browser-e2e/scripted-provider.mjs). */
function shapedWord(index: number): string {
  const word = `d${String(index)} `;
  const at = index % 250;
  if (at === 59 || at === 109 || at === 249) return `${word}\n\n`;
  if (at >= 110 && at < 160) {
    const item = at - 110;
    if (item % 10 === 0) return `- ${word}`;
    return item === 49 ? `${word}\n\n` : item % 10 === 9 ? `${word}\n` : word;
  }
  if (at >= 160 && at < 210) {
    const line = at - 160;
    if (line === 0) return `\`\`\`python\n${word}`;
    if (line === 49) return `${word}\n\`\`\`\n\n`;
    return line % 10 === 9 ? `${word}\n` : word;
  }
  return word;
}

function undecoratedRender(source: string): string {
  const element = document.createElement("div");
  element.innerHTML = renderMarkdown(source);
  return element.innerHTML;
}

function streamed(source: string, step: number, check?: (element: HTMLElement, prefix: string) => void): HTMLElement {
  const element = document.createElement("div");
  const renderer = incrementalMarkdown(element, (block) => { decorateCodeBlocks(block, labels); });
  for (let end = 0; end < source.length; end += step) {
    const prefix = source.slice(0, end);
    renderer.render(prefix);
    check?.(element, prefix);
  }
  renderer.render(source);
  check?.(element, source);
  return element;
}

const inputs: Record<string, string> = {
  paragraphs: "One paragraph\nwith a soft break.\n\nAnother *with* **emphasis** and `code`.\n\n\n\nLast.",
  headings: "# Title\n\nText\n\n## Sub\nSetext\n===\n\n---\n\nafter rule",
  fences: "Before\n\n```rust\nfn main() {\n\n    println!(\"hi\");\n}\n```\n\nbetween\n\n~~~\nplain <b>not bold</b>\n~~~\n\n```\nunclosed at the end",
  indentedCode: "para\n\n    indented code\n    more\n\nafter",
  lists: "- a\n- b\n  - nested\n  - more\n\n- loose after blank\n\n1. one\n2. two\n\n   continued paragraph in item\n3. three\n\n- [ ] task\n- [x] done",
  table: "| a | b |\n|---|:-:|\n| 1 | 2 |\n| <i>x</i> | `y` |\n\nafter the table",
  html: "<div onclick=\"alert(1)\">\n<script>alert(2)</script>\n</div>\n\n<img src=x onerror=alert(3)>\n\ntext <b>inline</b> <a href=\"javascript:alert(4)\">x</a>",
  links: "See [the docs][docs] and [here](https://example.com \"t\") and <https://auto.example>.\n\nwww.example.com and [bad](javascript:alert(1))\n\n[docs]: https://docs.example.com\n\n![img](https://tracker.example/x.png) ![inline](data:image/png;base64,AAAA)",
  cjk: "日本語の段落です。**強調**と`コード`。\n\n- 項目一\n- 項目二\n\n中文段落，含有 emoji 🎉 和 [链接](https://例子.测试)。\n\n| 列 | 值 |\n|---|---|\n| 甲 | 乙 |",
  blockquote: "> quoted\n> more\n>\n> - list in quote\n\nlazy\n> quote\ncontinuation\n\nout",
  mixed: "Intro\n```js\nconst a = 1;\n```\n- item right after\n# heading right after\n> quote\n| x |\n|---|\n| y |\ntext",
  empty: "",
  whitespace: "\n\n   \n",
};

describe("markdownBlocks", () => {
  it("sanitised block by block and joined, is exactly the whole text's render", () => {
    // Compared as parsed: DOMPurify hands back a string with no `<` untouched (`&quot;` stays)
    // but re-serialises one it parsed (`"`), the same text either way.
    const parsed = (html: string) => {
      const element = document.createElement("div");
      element.innerHTML = html;
      return element.innerHTML;
    };
    for (const [name, source] of Object.entries(inputs)) {
      expect(parsed(markdownBlocks(source).map(sanitiseHtml).join("")), name).toBe(parsed(renderMarkdown(source)));
    }
  });

  it("cuts at top-level blocks: a closed code block is one block, the open paragraph another", () => {
    const blocks = markdownBlocks("Intro\n\n```rust\nfn a() {}\n\nfn b() {}\n```\n\n- a\n- b\n\nopen");
    expect(blocks).toHaveLength(4);
    expect(blocks[1]).toContain("fn</span> <span class=\"hljs-title function_\">b");
    expect(blocks[3]).toBe("<p>open</p>\n");
  });
});

describe("growingMarkdown's appended text", () => {
  for (const [name, source] of Object.entries({ ...inputs, ...prose })) {
    it(`is exactly what the full render adds, whenever it is given (${name}, random deltas)`, () => {
      for (const seed of [1, 2, 3]) {
        const random = seededRandom(seed);
        const grow = growingMarkdown();
        // A DOM that only ever gains the appended text, rebuilt whole when there is none.
        const element = document.createElement("div");
        for (const end of randomCuts(source.length, 9, random)) {
          const prefix = source.slice(0, end);
          const { blocks, appended } = grow(prefix);
          expect(blocks, `${name} at ${String(end)}, seed ${String(seed)}`).toEqual(markdownBlocks(prefix));
          if (appended === undefined) {
            element.innerHTML = blocks.map(sanitiseHtml).join("");
            continue;
          }
          const block = element.lastElementChild;
          expect(block?.nodeName).toBe(appended.into === "paragraph" ? "P" : "PRE");
          const into = appended.into === "paragraph" ? block : block?.querySelector(":scope > code");
          expect(into).toBeTruthy();
          into?.append(document.createTextNode(appended.text));
          expect(element.innerHTML, `${name} at ${String(end)}, seed ${String(seed)}`).toBe(undecoratedRender(prefix));
        }
      }
    }, everyDeltaTimeout);
  }

  it("is given for words added to a paragraph, and for nothing that adds structure", () => {
    const appendedFor = (before: string, after: string) => {
      const grow = growingMarkdown();
      grow(before);
      return grow(after).appended?.text;
    };
    expect(appendedFor("Done.\n\nd0 d1", "Done.\n\nd0 d1 d2 <3 & \"4\" 'five' 中文🎉")).toBe(" d2 <3 & \"4\" 'five' 中文🎉");
    expect(appendedFor("a **b", "a **b c")).toBe(" c");
    expect(appendedFor("first line", "first line\nsecond")).toBe("\nsecond");
    // An open code block gaining words and lines that highlight.js leaves uncoloured.
    expect(appendedFor("```python\nd160 d161 ", "```python\nd160 d161 d162 \nd170 d171")).toBe("d162 \nd170 d171");
    expect(appendedFor("```\nplain", "```\nplain 'text' & <b>")).toBe(" 'text' & <b>");
    // New structure: emphasis, code, a tag, an entity completed, a link, a hard break, a
    // heading (setext or ATX), a list, a new paragraph, a fence.
    for (const [before, after] of [
      ["a **b", "a **b**"],
      ["a `co", "a `code`"],
      ["a <b", "a <b>"],
      ["a &am", "a &amp;"],
      ["a https://exa", "a https://example.com"],
      ["a  ", "a  \nb"],
      ["Title", "Title\n==="],
      ["Title", "Title\n---"],
      ["#", "# a"],
      ["1", "1."],
      ["-", "- a"],
      ["one", "one\n\ntwo"],
      ["``", "```"],
      ["see [x]", "see [x]\n\n[x]: https://example.com"],
      // Code whose new characters are coloured, or colour what came before, or close the fence.
      ["```python\nx = 1", "```python\nx = 1 + 'a'"],
      ["```python\ns = 'ab", "```python\ns = 'abc'"],
      ["```rust\nfn", "```rust\nfn main"],
      ["```\na\n`", "```\na\n```"],
      ["```python\na", "```rust\na b"],
    ]) {
      expect(appendedFor(before ?? "", after ?? ""), `${String(before)} → ${String(after)}`).toBeUndefined();
    }
  });

  it("is decided by the tokens: an earlier token of another type is not an append, even when the HTML reads as one", () => {
    // The paragraph's first character lexed as a token of its own, an escape or a text: both
    // render as that character, so only the tokens tell the two apart.
    const splitting = (firstType: (call: number) => "escape" | "text") => {
      let calls = 0;
      return growingMarkdown((text) => {
        const tokens = lexMarkdown(text);
        calls += 1;
        const paragraph = tokens[0];
        const first = (paragraph?.type === "paragraph" ? paragraph.tokens?.[0] : undefined) as Tokens.Text | undefined;
        if (paragraph?.type === "paragraph" && first?.type === "text" && first.text.length > 1) {
          const head = { type: firstType(calls), raw: first.raw.slice(0, 1), text: first.text.slice(0, 1) } as const;
          paragraph.tokens = [head, { ...first, raw: first.raw.slice(1), text: first.text.slice(1) }, ...(paragraph.tokens ?? []).slice(1)];
        }
        return tokens;
      });
    };
    const alternating = splitting((call) => (call % 2 === 0 ? "escape" : "text"));
    const steady = splitting(() => "escape");
    for (const grow of [alternating, steady]) grow("abc def");
    for (const text of ["abc def ghi", "abc def ghi jkl"]) {
      const changed = alternating(text);
      expect(changed.blocks).toEqual(markdownBlocks(text));
      expect(changed.appended, text).toBeUndefined();
      expect(steady(text).appended?.text, text).toBe(text.slice(-4));
    }
  });
});

describe("growingMarkdownBlocks", () => {
  // What can change earlier blocks when text is added at the end: a loose list item after a
  // blank line, a setext underline, a table's delimiter row, an inline <code> left open across
  // blocks, a link defined at the very end, carriage returns.
  const growing: Record<string, string> = {
    ...inputs,
    looseList: "Intro\n\n- one\n- two\n\n  still two, after a blank line\n\n- three\n\nafter\n\n1. a\n\n2. b",
    setext: "Intro\n\nfirst line\nsecond line\n---\n\nmore\n===\n\nend",
    lateTable: "Intro\n\n| a | b |\n|---|---|\n| 1 | 2 |\nno pipe row\n\nafter",
    openInlineHtml: "Intro with <code>open\n\nnext *em* block\n\n</code> closed *em*\n\nlast",
    lateDefinition: "Intro\n\nSee [docs] and [the guide][g].\n\n- a\n- b\n\n[docs]: https://docs.example.com\n[g]: https://g.example.com \"G\"",
    carriageReturns: "Intro\r\n\r\n- a\r\n- b\r\n\r\n```\r\ncode\r\n```\r\nend",
  };

  for (const [name, source] of Object.entries(growing)) {
    it(`gives what markdownBlocks gives, after every delta (${name})`, () => {
      for (const step of [1, 2, 7]) {
        const blocks = growingMarkdownBlocks();
        for (let end = 0; end <= source.length + step - 1; end += step) {
          const prefix = source.slice(0, end);
          expect(blocks(prefix), `${name} at ${String(prefix.length)}, step ${String(step)}`).toEqual(markdownBlocks(prefix));
        }
      }
    }, everyDeltaTimeout);
  }

  it("lexes again only the end of a text that grew, and the whole of it when a link is defined", () => {
    const lexed: number[] = [];
    const blocks = growingMarkdownBlocks((text) => {
      lexed.push(text.length);
      return lexMarkdown(text);
    });
    const paragraphs = Array.from({ length: 40 }, (_, index) => `Paragraph ${String(index)} with a few words.`).join("\n\n");
    blocks(paragraphs);
    lexed.length = 0;
    const grown = `${paragraphs} More words.`;
    expect(blocks(grown)).toEqual(markdownBlocks(grown));
    // The last two paragraphs, not the forty.
    expect(lexed).toHaveLength(1);
    expect(lexed[0]).toBeLessThan(80);
    const defined = `${grown}\n\n[docs]: https://docs.example.com`;
    lexed.length = 0;
    expect(blocks(defined)).toEqual(markdownBlocks(defined));
    expect(lexed.at(-1)).toBe(defined.length);
  });

  it("starts again when the text changes other than at its end", () => {
    const blocks = growingMarkdownBlocks();
    blocks("One\n\nTwo\n\nThree\n\n- four");
    expect(blocks("One\n\nTwo, edited\n\nThree\n\n- four")).toEqual(markdownBlocks("One\n\nTwo, edited\n\nThree\n\n- four"));
    expect(blocks("Other")).toEqual(["<p>Other</p>\n"]);
  });
});

describe("incrementalMarkdown", () => {
  for (const [name, source] of Object.entries(inputs)) {
    it(`streamed (${name}) ends exactly as the full render, and matches it after every delta`, () => {
      for (const step of [1, 3, 17]) {
        const element = streamed(source, step, (current, prefix) => {
          expect(current.innerHTML, `${name} at ${String(prefix.length)}`).toBe(fullRender(prefix));
        });
        expect(element.innerHTML, name).toBe(fullRender(source));
      }
    }, everyDeltaTimeout);
  }

  it("keeps the nodes of finished blocks while the last one grows", () => {
    const element = document.createElement("div");
    const renderer = incrementalMarkdown(element, (block) => { decorateCodeBlocks(block, labels); });
    renderer.render("First paragraph.\n\n```rust\nfn a() {}\n```\n\nThe open one");
    const first = element.querySelector("p");
    const code = element.querySelector("pre");
    const header = element.querySelector(".code-header");
    renderer.render("First paragraph.\n\n```rust\nfn a() {}\n```\n\nThe open one grows");
    expect(element.querySelector("p")).toBe(first);
    expect(element.querySelector("pre")).toBe(code);
    expect(element.querySelector(".code-header")).toBe(header);
    expect(element.querySelectorAll("p")[1]?.textContent).toBe("The open one grows");
    // A link defined further down changes an earlier block: that block is rebuilt, not kept.
    renderer.render("See [x].\n\nmore");
    renderer.render("See [x].\n\nmore\n\n[x]: https://example.com");
    expect(element.querySelector("a")?.getAttribute("href")).toBe("https://example.com");
    expect(element.innerHTML).toBe(fullRender("See [x].\n\nmore\n\n[x]: https://example.com"));
  });

  it("updates the open paragraph's text in place while it only grows", () => {
    const element = document.createElement("div");
    const renderer = incrementalMarkdown(element, (block) => { decorateCodeBlocks(block, labels); });
    renderer.render("Done.\n\nd0 d1 ");
    const open = element.querySelectorAll("p")[1];
    const text = open?.firstChild;
    renderer.render("Done.\n\nd0 d1 d2 d3 ");
    expect(element.querySelectorAll("p")[1]).toBe(open);
    expect(open?.firstChild).toBe(text);
    expect(text?.textContent).toBe("d0 d1 d2 d3 ");
    // New markup in the open block (emphasis) cannot be a text change: the block is rebuilt.
    renderer.render("Done.\n\nd0 d1 d2 d3 *d4*");
    expect(element.querySelectorAll("p")[1]).not.toBe(open);
    expect(element.innerHTML).toBe(fullRender("Done.\n\nd0 d1 d2 d3 *d4*"));
  });

  for (const [name, source] of Object.entries(prose)) {
    it(`streamed in random deltas (${name}) matches the full render after every delta`, () => {
      for (const seed of [11, 12, 13, 14]) {
        const random = seededRandom(seed);
        const element = document.createElement("div");
        const renderer = incrementalMarkdown(element, (block) => { decorateCodeBlocks(block, labels); });
        for (const end of randomCuts(source.length, 12, random)) {
          const prefix = source.slice(0, end);
          renderer.render(prefix);
          expect(element.innerHTML, `${name} at ${String(end)}, seed ${String(seed)}`).toBe(fullRender(prefix));
        }
      }
    }, everyDeltaTimeout);
  }

  it("appends a paragraph's new words as text, without building the block again", () => {
    const element = document.createElement("div");
    let built = 0;
    const renderer = incrementalMarkdown(element, (block) => {
      built += 1;
      decorateCodeBlocks(block, labels);
    });
    const words = prose.words ?? "";
    renderer.render(words.slice(0, 10));
    const paragraph = element.querySelector("p");
    built = 0;
    const random = seededRandom(7);
    for (const end of randomCuts(words.length, 12, random).filter((cut) => cut > 10)) renderer.render(words.slice(0, end));
    // Every delta after the first only added words to the open paragraph: not one block built.
    expect(built).toBe(0);
    expect(element.querySelector("p")).toBe(paragraph);
    expect(element.innerHTML).toBe(fullRender(words));
    // Structure arrives (emphasis): the block is built again, and is what the full render shows.
    renderer.render(`${words} **bold**`);
    expect(built).toBeGreaterThan(0);
    expect(element.innerHTML).toBe(fullRender(`${words} **bold**`));
  });

  it("keeps a list's finished items when a new item starts", () => {
    const element = document.createElement("div");
    const renderer = incrementalMarkdown(element, (block) => { decorateCodeBlocks(block, labels); });
    renderer.render("Intro\n\n- d0 d1\n- d2 d3\n");
    const list = element.querySelector("ul");
    const items = Array.from(element.querySelectorAll("li"));
    for (const source of ["Intro\n\n- d0 d1\n- d2 d3\n- d4", "Intro\n\n- d0 d1\n- d2 d3\n- d4 d5\n- d6"]) {
      renderer.render(source);
      expect(element.querySelector("ul")).toBe(list);
      expect(Array.from(element.querySelectorAll("li")).slice(0, 2)).toEqual(items);
      expect(element.innerHTML).toBe(fullRender(source));
    }
    // A blank line makes the list loose: every item's text moves into a paragraph, built again.
    renderer.render("Intro\n\n- d0 d1\n- d2 d3\n- d4 d5\n- d6\n\n- d7");
    expect(element.querySelector("li")).not.toBe(items[0]);
    expect(element.innerHTML).toBe(fullRender("Intro\n\n- d0 d1\n- d2 d3\n- d4 d5\n- d6\n\n- d7"));
  });

  it("appends an open code block's new code as text, keeping its header and highlighting", () => {
    const element = document.createElement("div");
    let built = 0;
    const renderer = incrementalMarkdown(element, (block) => {
      built += 1;
      decorateCodeBlocks(block, labels);
    });
    const words = Array.from({ length: 60 }, (_, index) => `d${String(index)} ${index % 10 === 9 ? "\n" : ""}`).join("");
    const source = `Intro\n\n\`\`\`python\n${words}`;
    const start = source.indexOf("d0") + 2;
    renderer.render(source.slice(0, start));
    const pre = element.querySelector("pre");
    const header = element.querySelector(".code-header");
    built = 0;
    for (const end of randomCuts(source.length, 12, seededRandom(9)).filter((cut) => cut > start)) {
      renderer.render(source.slice(0, end));
      expect(element.innerHTML).toBe(fullRender(source.slice(0, end)));
    }
    // Every delta only added uncoloured code: not one block built, the same <pre> and header.
    expect(built).toBe(0);
    expect(element.querySelector("pre")).toBe(pre);
    expect(element.querySelector(".code-header")).toBe(header);
    // A keyword colours what it ends: the block is built again, and is what the full render shows.
    renderer.render(`${source}return`);
    expect(built).toBeGreaterThan(0);
    expect(element.querySelector(".hljs-keyword")?.textContent).toBe("return");
    expect(element.innerHTML).toBe(fullRender(`${source}return`));
  });

  it("never lets a tag split across blocks or deltas reach the page unsanitised", () => {
    const attacks = [
      "<img src=x\n\nonerror=alert(1)>",
      "<scr\n\nipt>alert(1)</script>",
      "<a href=\"\n\njavascript:alert(1)\">x</a>",
      "```\n</code></pre><img src=x onerror=alert(1)>\n```\n\n<img src=x onerror=alert(2)>",
      "[x](javas\n\ncript:alert(1)) [y](javascript:alert(2))",
      "| a |\n|---|\n| <svg onload=alert(1)> |\n\n<iframe src=\"https://evil\">\n\n</iframe>",
      "- <style>\n\n- body{}</style><form><input autofocus onfocus=alert(1)>",
    ];
    for (const attack of attacks) {
      const element = streamed(attack, 1, (current, prefix) => {
        const dangerous = current.querySelector("script, img:not([src^='data:']), iframe, svg, style, form, input, [onerror], [onload], [onfocus], [onclick]");
        expect(dangerous, `${attack} at ${String(prefix.length)}`).toBeNull();
        for (const link of Array.from(current.querySelectorAll("a[href]"))) expect(link.getAttribute("href"), attack).not.toMatch(/^\s*javascript:/i);
        expect(current.innerHTML, `${attack} at ${String(prefix.length)}`).toBe(fullRender(prefix));
      });
      expect(element.innerHTML).toBe(fullRender(attack));
    }
  });

  it("reset builds every block again (new labels)", () => {
    const element = document.createElement("div");
    const renderer = incrementalMarkdown(element, (block) => { decorateCodeBlocks(block, labels); });
    renderer.render("```\nx\n```");
    renderer.reset();
    expect(element.childNodes.length).toBe(0);
    const french = incrementalMarkdown(element, (block) => { decorateCodeBlocks(block, { ...labels, code: "Code source" }); });
    french.render("```\nx\n```");
    expect(element.querySelector(".code-language")?.textContent).toBe("Code source");
  });
});
