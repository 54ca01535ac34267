import { afterEach, describe, expect, it, vi } from "vitest";
import { keepControlsQuiet, messageControls, messageKeyHandler, quietControls } from "./message-focus";

/** Two message slots as the conversation renders them: the message, its reply text, its actions. */
function renderSlots(): HTMLElement {
  const list = document.createElement("div");
  list.innerHTML = `
    <div class="message-slot" data-index="0" data-message-id="m0">
      <article data-testid="message" tabindex="-1"><p>Hello</p></article>
      <div class="message-actions"><button data-testid="copy-message">Copy</button><button data-testid="edit" disabled>Edit</button></div>
    </div>
    <div class="message-slot" data-index="1" data-message-id="m1">
      <article data-testid="message" tabindex="0">
        <div class="markdown"><p>See <a href="https://example.com/a">a</a></p><pre><button class="code-copy">Copy</button></pre></div>
        <details><summary>Reasoning</summary><a href="https://example.com/hidden">hidden</a></details>
      </article>
      <div class="message-actions"><button data-testid="regenerate">Regenerate</button>
        <span role="alertdialog"><button data-testid="delete-message-confirm">Delete</button></span></div>
    </div>`;
  document.body.append(list);
  return list;
}

afterEach(() => {
  document.body.innerHTML = "";
});

describe("the messages as one Tab stop", () => {
  it("takes every link and button out of the Tab order but the messages and an open question", () => {
    const list = renderSlots();
    quietControls(list);
    const tabbable = [...list.querySelectorAll<HTMLElement>("a, button, summary, article")].filter((element) => element.tabIndex >= 0);
    expect(tabbable.map((element) => element.dataset.testid ?? element.tagName)).toEqual(["message", "delete-message-confirm"]);
  });

  it("quiets what is rendered later, as a reply streams in", async () => {
    const list = renderSlots();
    const stop = keepControlsQuiet(list);
    const markdown = list.querySelector(".markdown");
    markdown?.insertAdjacentHTML("beforeend", `<p><a href="https://example.com/late">late</a></p>`);
    await Promise.resolve();
    expect(list.querySelector<HTMLElement>("a[href$=late]")?.tabIndex).toBe(-1);
    stop();
  });

  it("walks a message's own controls with → and ←: shown and enabled ones, the message first", () => {
    const list = renderSlots();
    const slots = list.querySelectorAll(".message-slot");
    expect(messageControls(slots[0] as Element).map((element) => element.dataset.testid)).toEqual(["message", "copy-message"]);
    // The link, the code block's Copy, the reasoning's summary; not the link folded inside it, nor the question's button.
    expect(messageControls(slots[1] as Element).map((element) => element.dataset.testid ?? element.tagName.toLowerCase())).toEqual(["message", "a", "button", "summary", "regenerate"]);
    const handle = messageKeyHandler({ count: () => 2, focusIndex: vi.fn(), aboveFirst: vi.fn() });
    const article = slots[1]?.querySelector("article") as HTMLElement;
    article.focus();
    const press = (key: string) => {
      const event = new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true });
      list.addEventListener("keydown", handle, { once: true });
      document.activeElement?.dispatchEvent(event);
      return event.defaultPrevented;
    };
    expect(press("ArrowRight")).toBe(true);
    expect(document.activeElement?.getAttribute("href")).toBe("https://example.com/a");
    press("ArrowRight");
    expect(document.activeElement?.className).toBe("code-copy");
    press("ArrowLeft");
    press("ArrowLeft");
    expect(document.activeElement).toBe(article);
  });

  it("→/← scroll a wide table's box while it can still move, then walk on", () => {
    const list = renderSlots();
    const markdown = list.querySelector(".markdown") as HTMLElement;
    markdown.insertAdjacentHTML("beforeend", `<div class="table-scroll" tabindex="0"><table><tr><td>wide</td></tr></table></div>`);
    const box = list.querySelector<HTMLElement>(".table-scroll") as HTMLElement;
    // jsdom lays nothing out: the box's sizes are set by hand.
    Object.defineProperties(box, { scrollWidth: { value: 900 }, clientWidth: { value: 400 } });
    const handle = messageKeyHandler({ count: () => 2, focusIndex: vi.fn(), aboveFirst: vi.fn() });
    list.addEventListener("keydown", handle);
    box.focus();
    const press = (key: string) => {
      const event = new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true });
      document.activeElement?.dispatchEvent(event);
      return event.defaultPrevented;
    };
    // At its left edge: → is the box's own (it scrolls), ← walks back to the code block's Copy.
    expect(press("ArrowRight")).toBe(false);
    expect(document.activeElement).toBe(box);
    expect(press("ArrowLeft")).toBe(true);
    expect(document.activeElement?.className).toBe("code-copy");
    // Scrolled to its right edge: ← scrolls back, → walks on to the next control.
    box.focus();
    box.scrollLeft = 500;
    expect(press("ArrowLeft")).toBe(false);
    expect(press("ArrowRight")).toBe(true);
    expect(document.activeElement?.tagName).toBe("SUMMARY");
  });

  it("moves between messages with ↑/↓/Home/End, and ↑ on the oldest loaded one goes above it", () => {
    const list = renderSlots();
    const focusIndex = vi.fn();
    const aboveFirst = vi.fn();
    const handle = messageKeyHandler({ count: () => 2, focusIndex, aboveFirst });
    list.addEventListener("keydown", handle);
    const send = (target: Element, key: string, init: KeyboardEventInit = {}) => target.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true, ...init }));
    const [first, second] = [...list.querySelectorAll("article")];
    send(second as Element, "ArrowUp");
    expect(focusIndex).toHaveBeenLastCalledWith(0);
    send(first as Element, "End");
    expect(focusIndex).toHaveBeenLastCalledWith(1);
    send(first as Element, "ArrowUp");
    expect(aboveFirst).toHaveBeenCalledTimes(1);
    // Not for a modified key, nor inside an open question.
    focusIndex.mockClear();
    send(second as Element, "ArrowUp", { shiftKey: true });
    send(list.querySelector("[data-testid=delete-message-confirm]") as Element, "ArrowUp");
    expect(focusIndex).not.toHaveBeenCalled();
  });
});
