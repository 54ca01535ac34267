// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Part } from "./bindings/Part";
import { decorateCodeBlocks, messageMarkdown } from "./copying";
import { renderMarkdown } from "./markdown";

afterEach(() => {
  vi.useRealTimers();
});

describe("messageMarkdown", () => {
  it("is the text parts as written, without the context the backend added", () => {
    const parts = [
      { id: "a", sessionID: "s", messageID: "m", type: "text", text: "# Title\n\n**bold**" },
      { id: "b", sessionID: "s", messageID: "m", type: "reasoning", text: "thinking", time: { start: 1 } },
      { id: "c", sessionID: "s", messageID: "m", type: "text", text: "Read notes.txt", synthetic: true },
      { id: "d", sessionID: "s", messageID: "m", type: "text", text: "more" },
    ] as Part[];
    expect(messageMarkdown(parts)).toBe("# Title\n\n**bold**\n\nmore");
  });
});

describe("decorateCodeBlocks", () => {
  it("labels each code block with its language and copies its text, saying Copied", async () => {
    vi.useFakeTimers();
    const written: string[] = [];
    Object.defineProperty(navigator, "clipboard", { configurable: true, value: { writeText: (text: string) => { written.push(text); return Promise.resolve(); } } });
    const root = document.createElement("div");
    root.innerHTML = renderMarkdown("```rust\nfn main() {}\n```\n\n```\nplain\n```");
    const labels = { copy: "Copy", copied: "Copied", code: "Code" };
    decorateCodeBlocks(root, labels);
    decorateCodeBlocks(root, labels); // a second pass adds nothing
    expect([...root.querySelectorAll(".code-language")].map((label) => label.textContent)).toEqual(["rust", "Code"]);
    const buttons = [...root.querySelectorAll<HTMLButtonElement>(".code-copy")];
    expect(buttons).toHaveLength(2);
    buttons[0]?.click();
    await Promise.resolve();
    await Promise.resolve();
    expect(written).toEqual(["fn main() {}"]);
    expect(buttons[0]?.textContent).toBe("Copied");
    vi.advanceTimersByTime(2000);
    expect(buttons[0]?.textContent).toBe("Copy");
  });
});
