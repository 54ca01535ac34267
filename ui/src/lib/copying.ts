// Copy: a whole message as the Markdown it was written in, or one code block as its text, with
// a visible "Copied" on the button for a moment. Code blocks get their language label and Copy
// button from here, as real elements added after the sanitised HTML is in place (the sanitiser
// lets no button through from a reply).
import type { Part } from "./bindings/Part";

/** How long the button says "Copied". */
export const copiedMs = 2000;

/** A reply's text as Markdown (its text parts, not reasoning or tools); your own words as typed. */
export function messageMarkdown(parts: readonly Part[]): string {
  return parts
    .filter((part): part is Extract<Part, { type: "text" }> => part.type === "text" && part.synthetic !== true)
    .map((part) => part.text)
    .join("\n\n");
}

/** The language a highlighted code block was marked with (`language-rust`), if any. */
export function codeLanguage(code: Element): string | undefined {
  for (const name of Array.from(code.classList)) {
    if (name.startsWith("language-")) return name.slice("language-".length);
  }
  return undefined;
}

export async function writeClipboard(text: string): Promise<void> {
  await navigator.clipboard.writeText(text);
}

/**
 * Gives every code block in `root` a header with its language and a Copy button; run on each
 * block of a reply as it is built (`incremental-markdown.ts`: finished blocks keep theirs).
 */
export function decorateCodeBlocks(root: HTMLElement, labels: { copy: string; copied: string; code: string }): void {
  for (const pre of Array.from(root.querySelectorAll("pre"))) {
    if (pre.previousElementSibling?.classList.contains("code-header") === true) continue;
    const code = pre.querySelector("code");
    if (code === null) continue;
    const header = document.createElement("div");
    header.className = "code-header";
    const label = document.createElement("span");
    label.className = "code-language";
    label.textContent = codeLanguage(code) ?? labels.code;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "code-copy";
    button.dataset.testid = "copy-code";
    button.textContent = labels.copy;
    button.addEventListener("click", () => {
      writeClipboard(code.textContent).then(
        () => {
          button.textContent = labels.copied;
          setTimeout(() => { button.textContent = labels.copy; }, copiedMs);
        },
        (error: unknown) => { console.error("could not copy", error); },
      );
    });
    header.append(label, button);
    pre.before(header);
  }
}
