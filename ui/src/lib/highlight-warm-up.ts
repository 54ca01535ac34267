// highlight.js compiles a language's grammar the first time it highlights in that language: 48 ms
// for Python in the window's JavaScriptCore, a frame of a streaming reply lost when its first
// code block arrives. Each language the app ships is compiled ahead, one per idle moment after
// start, so no reply pays for it and start-up is not held up. What a code block renders to does
// not change: the same grammar, compiled sooner.
import hljs from "highlight.js/lib/core";
// The languages are registered where the Markdown is rendered.
import "./markdown";

/** Runs `task` when the page has nothing else to do (a timer where the engine has no idle callbacks). */
export type IdleScheduler = (task: () => void) => void;

export const whenIdle: IdleScheduler = (task) => {
  if (typeof window.requestIdleCallback === "function") window.requestIdleCallback(() => { task(); }, { timeout: 2000 });
  else setTimeout(task, 50);
};

/** Compiles every registered language's grammar, one per idle moment; ends when all are compiled. */
export function warmHighlighting(schedule: IdleScheduler = whenIdle): void {
  const waiting = hljs.listLanguages();
  const next = () => {
    const language = waiting.shift();
    if (language === undefined) return;
    // Highlighting nothing compiles the grammar (and what it embeds) and renders nothing.
    hljs.highlight("", { language, ignoreIllegals: true });
    schedule(next);
  };
  schedule(next);
}
