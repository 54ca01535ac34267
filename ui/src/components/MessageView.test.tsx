// A reply's rendered Markdown survives the store swapping in the part's final copy.
// @vitest-environment jsdom
import { cleanup, render } from "@solidjs/testing-library";
import { createSignal } from "solid-js";
import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../lib/bindings/Message";
import type { Part } from "../lib/bindings/Part";
import { MessageView } from "./MessageView";

afterEach(cleanup);

const reply: Message = {
  role: "assistant", id: "msg_2", sessionID: "ses_1", time: { created: 2 }, parentID: "msg_1", modelID: "m", providerID: "p",
  mode: "build", agent: "build", path: { cwd: "/", root: "/" }, cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
};
const text = (value: string): Part => ({ id: "prt_1", sessionID: "ses_1", messageID: "msg_2", type: "text", text: value });

describe("MessageView", () => {
  it("keeps a reply's rendered blocks when its text part is replaced by an equal copy, and follows a changed one", () => {
    const streamed = "Intro\n\n```python\nprint(1)\n```\n\n- a\n- b\n\nlast words";
    const [parts, setParts] = createSignal<readonly Part[]>([text(streamed)]);
    const { container } = render(() => <MessageView message={reply} parts={parts()} mediaUrl={() => undefined} tabStop={false} />);
    const markdown = container.querySelector("[data-testid=reply-text]");
    const code = container.querySelector("pre");
    const paragraphs = Array.from(container.querySelectorAll("p"));
    expect(code?.textContent).toBe("print(1)");
    // The final copy: a new object with the same text (and a step part after it).
    setParts([text(streamed), { id: "prt_2", sessionID: "ses_1", messageID: "msg_2", type: "step-finish", cost: 0, tokens: { input: 1, output: 2, reasoning: 0, cache: { read: 0, write: 0 } } } as Part]);
    expect(container.querySelector("[data-testid=reply-text]")).toBe(markdown);
    expect(container.querySelector("pre")).toBe(code);
    expect(Array.from(container.querySelectorAll("[data-testid=reply-text] p"))).toEqual(paragraphs);
    expect(container.querySelector("[data-testid=usage]")).not.toBeNull();
    // A copy whose text differs shows the new text.
    setParts([text(`${streamed}, and more`)]);
    expect(container.querySelector("[data-testid=reply-text]")?.textContent).toContain("last words, and more");
    expect(container.querySelector("[data-testid=usage]")).toBeNull();
  });

  it("streams reasoning like a reply's text: finished blocks keep their elements as more arrives", () => {
    const reasoning = (value: string): Part => ({ id: "prt_r", sessionID: "ses_1", messageID: "msg_2", type: "reasoning", text: value, time: { start: 1 } });
    const first = "First I read the file.\n\nThen I";
    const [parts, setParts] = createSignal<readonly Part[]>([reasoning(first)]);
    const { container } = render(() => <MessageView message={reply} parts={parts()} mediaUrl={() => undefined} tabStop={false} />);
    const markdown = container.querySelector("[data-testid=reasoning-text]");
    expect(markdown?.closest("details.reasoning")).not.toBeNull();
    const finished = markdown?.querySelector("p");
    expect(finished?.textContent).toBe("First I read the file.");
    setParts([reasoning(`${first} count the lines.\n\n- one\n- two`)]);
    const now = container.querySelector("[data-testid=reasoning-text]");
    expect(now).toBe(markdown);
    // The finished paragraph is the same element; the open one grew; the list is new.
    expect(now?.querySelector("p")).toBe(finished);
    expect(Array.from(now?.querySelectorAll("p") ?? []).map((paragraph) => paragraph.textContent)).toEqual(["First I read the file.", "Then I count the lines."]);
    expect(Array.from(now?.querySelectorAll("li") ?? []).map((item) => item.textContent)).toEqual(["one", "two"]);
    // Not mistaken for the reply's own text.
    expect(container.querySelector("[data-testid=reply-text]")).toBeNull();
  });
});
