// @vitest-environment jsdom
import hljs from "highlight.js/lib/core";
import { describe, expect, it, vi } from "vitest";
import { warmHighlighting, whenIdle } from "./highlight-warm-up";
import { renderMarkdown } from "./markdown";

/** Whether highlight.js has compiled `language`'s grammar (it marks a compiled mode so). */
const compiled = (language: string) => (hljs.getLanguage(language) as { isCompiled?: boolean } | undefined)?.isCompiled === true;

describe("warmHighlighting", () => {
  it("compiles every shipped language, one per idle moment, and changes no render", () => {
    const languages = hljs.listLanguages();
    expect(languages).toEqual(expect.arrayContaining(["python", "rust", "typescript", "bash"]));
    const source = "```python\ndef f(x):\n    return 'x' # c\n```\n\n```rust\nfn main() {}\n```";
    expect(languages.filter(compiled)).toEqual([]);
    const tasks: (() => void)[] = [];
    warmHighlighting((task) => tasks.push(task));
    // Nothing runs until the page is idle.
    expect(languages.filter(compiled)).toEqual([]);
    // Each idle moment compiles one language; the one after the last finds none left and stops.
    const compiledEachMoment: number[] = [];
    while (tasks.length > 0) {
      const before = languages.filter(compiled).length;
      tasks.shift()?.();
      compiledEachMoment.push(languages.filter(compiled).length - before);
    }
    expect(compiledEachMoment).toEqual([...languages.map(() => 1), 0]);
    expect(languages.filter((language) => !compiled(language))).toEqual([]);
    const warm = renderMarkdown(source);
    expect(warm).toContain('<span class="hljs-keyword">def</span>');
    expect(warm).toBe(renderMarkdown(source));
  });

  it("waits for an idle callback where there is one, and for a timer where there is none", () => {
    vi.useFakeTimers();
    try {
      const task = vi.fn();
      const idle = vi.fn((callback: IdleRequestCallback) => { callback({ didTimeout: false, timeRemaining: () => 10 }); return 1; });
      vi.stubGlobal("requestIdleCallback", idle);
      whenIdle(task);
      expect(idle).toHaveBeenCalledTimes(1);
      expect(task).toHaveBeenCalledTimes(1);
      vi.stubGlobal("requestIdleCallback", undefined);
      whenIdle(task);
      expect(task).toHaveBeenCalledTimes(1);
      vi.advanceTimersByTime(60);
      expect(task).toHaveBeenCalledTimes(2);
    } finally {
      vi.unstubAllGlobals();
      vi.useRealTimers();
    }
  });
});
