// The search palette, find in the session and the sidebar's pin and multi-select, through the
// whole app on the in-memory backend.
// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from "@solidjs/testing-library";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { App } from "./App";
import { ExcerptText } from "./components/ExcerptText";
import { BackendError } from "./lib/transport";
import { type FakeBackend, fakeBackend, session } from "./lib/transport/fake-backend";

afterEach(cleanup);
beforeEach(() => {
  localStorage.clear();
});
beforeAll(() => {
  // jsdom has no layout and elements have no scrollTo, which the virtual list scrolls with: keep
  // the offset a script sets, so the rendered window follows the list's own scrolling.
  const offsets = new WeakMap<Element, number>();
  Object.defineProperty(Element.prototype, "scrollTop", {
    configurable: true,
    get(this: Element) {
      return offsets.get(this) ?? 0;
    },
    set(this: Element, value: number) {
      offsets.set(this, Math.max(0, value));
    },
  });
  Element.prototype.scrollTo = function (this: Element, options?: ScrollToOptions | number) {
    if (typeof options === "object" && options.top !== undefined) this.scrollTop = options.top;
    this.dispatchEvent(new Event("scroll"));
  };
});

async function say(backend: FakeBackend, sessionId: string, text: string): Promise<string> {
  const message = await backend.sendPrompt(sessionId, { noReply: true, parts: [{ type: "text", text }] });
  return message.info.id;
}

/** Three sessions; the first one long, with the word said in its very first message. */
async function threeSessions(): Promise<{ backend: FakeBackend; target: string }> {
  const backend = fakeBackend([session("ses_a", "Garden", 1), session("ses_b", "Taxes", 2), session("ses_c", "Holiday", 3)]);
  const target = await say(backend, "ses_a", "Remember the word periwinkle for later");
  for (let index = 0; index < 64; index++) await say(backend, "ses_a", `filler message ${String(index)}`);
  await say(backend, "ses_b", "nothing to see");
  await say(backend, "ses_c", "nothing here either");
  return { backend, target };
}

const openPalette = async () => {
  fireEvent.keyDown(window, { key: "k", ctrlKey: true });
  return screen.findByTestId<HTMLInputElement>("palette-input");
};

describe("search palette", () => {
  it("opens with Ctrl+K, shows highlighted excerpts as you type, and lands on a message not loaded yet", async () => {
    const { backend, target } = await threeSessions();
    render(() => <App locale="en" backend={backend} />);
    await screen.findByText("Garden");
    const field = await openPalette();
    expect(document.activeElement).toBe(field);
    fireEvent.input(field, { target: { value: "periwinkle" } });
    const result = await screen.findByTestId("palette-result");
    expect(result.dataset.messageId).toBe(target);
    expect(result.querySelector("mark")?.textContent).toBe("periwinkle");
    expect(result.getAttribute("aria-selected")).toBe("true");
    fireEvent.keyDown(field, { key: "Enter" });
    await waitFor(() => {
      expect(document.querySelector(`.message-slot--marked[data-message-id="${target}"]`)?.textContent).toContain("Remember the word periwinkle");
    });
    expect(screen.queryByTestId("search-palette")).toBeNull();
    expect(screen.getByTestId("session-heading").textContent).toBe("Garden");
    const pages = backend.calls.filter((call) => call.command === "listMessages").map((call) => call.argument);
    expect(pages).toEqual([
      { id: "ses_a", limit: 50, before: undefined },
      { id: "ses_a", limit: 200, before: expect.any(String) as unknown },
    ]);
  });

  it("moves with the arrow keys, opens with a click, closes with Esc", async () => {
    const backend = fakeBackend([session("ses_a", "Walrus one", 1), session("ses_b", "Walrus two", 2)]);
    render(() => <App locale="en" backend={backend} />);
    await screen.findByText("Walrus one");
    const field = await openPalette();
    fireEvent.input(field, { target: { value: "walrus" } });
    await waitFor(() => {
      expect(screen.getAllByTestId("palette-result")).toHaveLength(2);
    });
    const selected = () => screen.getAllByTestId("palette-result").map((row) => row.getAttribute("aria-selected"));
    expect(selected()).toEqual(["true", "false"]);
    fireEvent.keyDown(field, { key: "ArrowDown" });
    expect(selected()).toEqual(["false", "true"]);
    fireEvent.keyDown(field, { key: "ArrowDown" });
    expect(selected()).toEqual(["true", "false"]);
    fireEvent.keyDown(field, { key: "ArrowUp" });
    expect(selected()).toEqual(["false", "true"]);
    fireEvent.keyDown(field, { key: "Escape" });
    expect(screen.queryByTestId("search-palette")).toBeNull();
    fireEvent.input(await openPalette(), { target: { value: "walrus" } });
    const rows = await screen.findAllByTestId("palette-result");
    fireEvent.click(rows[1] ?? document.body);
    await waitFor(() => {
      expect(screen.getByTestId("session-heading").textContent).toBe("Walrus one");
    });
  });

  it("searches archived sessions only when asked, and says when nothing matches", async () => {
    const backend = fakeBackend([{ ...session("ses_a", "Old walrus", 1), time: { created: 1, updated: 1, archived: 5 } }]);
    render(() => <App locale="en" backend={backend} />);
    const field = await openPalette();
    fireEvent.input(field, { target: { value: "walrus" } });
    await waitFor(() => {
      expect(screen.getByTestId("palette-status").textContent).toBe("Nothing matches “walrus”.");
    });
    fireEvent.click(screen.getByTestId("palette-archived"));
    const row = await screen.findByTestId("palette-result");
    expect(row.textContent).toContain("Archived");
    expect(backend.calls.filter((call) => call.command === "search").at(-1)?.argument).toMatchObject({ text: "walrus", include_archived: true });
    fireEvent.click(row);
    await waitFor(() => {
      expect(screen.getByTestId("session-heading").textContent).toBe("Old walrus");
    });
    expect(screen.queryByText("Old walrus", { selector: ".session-title" })).toBeNull();
  });

  it("shows a failed search as an error, in Chinese too", async () => {
    const backend = fakeBackend();
    backend.search = () => Promise.reject(new BackendError({ kind: "internal", message: "disk I/O error" }));
    render(() => <App locale="zh-CN" backend={backend} />);
    const field = await openPalette();
    expect(screen.getByTestId("palette-status").textContent).toBe("输入关键词，搜索你的全部会话。");
    fireEvent.input(field, { target: { value: "税" } });
    await waitFor(() => {
      expect(screen.getByTestId("palette-status").textContent).toBe("搜索失败：disk I/O error");
    });
  });

  it("opens from the sidebar button too", async () => {
    render(() => <App locale="en" backend={fakeBackend()} />);
    fireEvent.click(await screen.findByTestId("open-search"));
    expect(await screen.findByTestId("search-palette")).toBeTruthy();
  });
});

describe("excerpts", () => {
  it("render what a message said as text, never as HTML", () => {
    const { container } = render(() => (
      <ExcerptText
        pieces={[
          { text: "<img src=x onerror=alert(1)> and ", highlighted: false },
          { text: "<b>bold</b>", highlighted: true },
        ]}
      />
    ));
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("b")).toBeNull();
    expect(container.querySelector("mark")?.textContent).toBe("<b>bold</b>");
    expect(container.textContent).toBe("<img src=x onerror=alert(1)> and <b>bold</b>");
  });
});

describe("find in the session", () => {
  it("counts matches across unloaded messages and steps through them with Enter and Shift+Enter", async () => {
    const backend = fakeBackend([session("ses_a", "Garden", 1)]);
    const oldest = await say(backend, "ses_a", "the heron was here first");
    for (let index = 0; index < 60; index++) await say(backend, "ses_a", `filler ${String(index)}`);
    const middle = await say(backend, "ses_a", "a heron again");
    const newest = await say(backend, "ses_a", "last heron");
    render(() => <App locale="en" backend={backend} />);
    fireEvent.click(await screen.findByText("Garden"));
    await waitFor(() => {
      expect(document.querySelectorAll(".message-slot").length).toBeGreaterThan(0);
    });
    fireEvent.keyDown(window, { key: "f", ctrlKey: true });
    const field = await screen.findByTestId("find-input");
    fireEvent.input(field, { target: { value: "heron" } });
    const count = screen.getByTestId("find-count");
    await waitFor(() => {
      expect(count.textContent).toBe("1 of 3");
    });
    // jsdom has no layout, so only the top of the list renders: the newest match is checked by its
    // excerpt here, the scrolling by the browser and window tests.
    expect(screen.getByTestId("find-excerpt").textContent).toBe("last heron");
    const marked = () => document.querySelector(".message-slot--marked")?.getAttribute("data-message-id");
    fireEvent.keyDown(field, { key: "Enter" });
    expect(count.textContent).toBe("2 of 3");
    fireEvent.keyDown(field, { key: "Enter" });
    expect(count.textContent).toBe("3 of 3");
    await waitFor(() => {
      expect(marked()).toBe(oldest);
    });
    fireEvent.keyDown(field, { key: "Enter", shiftKey: true });
    expect(count.textContent).toBe("2 of 3");
    expect(backend.calls.filter((call) => call.command === "search").at(-1)?.argument).toMatchObject({ sessionID: "ses_a" });
    expect(screen.getByTestId("find-excerpt").textContent).toBe("a heron again");
    expect([middle, newest]).not.toContain(oldest);
    fireEvent.keyDown(field, { key: "Escape" });
    expect(screen.queryByTestId("find-bar")).toBeNull();
    await waitFor(() => {
      expect(marked()).toBeUndefined();
    });
  });

  it("says so when nothing matches", async () => {
    const backend = fakeBackend([session("ses_a", "Garden", 1)]);
    await say(backend, "ses_a", "roses");
    render(() => <App locale="en" backend={backend} />);
    fireEvent.click(await screen.findByText("Garden"));
    fireEvent.click(await screen.findByTestId("open-find"));
    fireEvent.input(await screen.findByTestId("find-input"), { target: { value: "tulips" } });
    await waitFor(() => {
      expect(screen.getByTestId("find-count").textContent).toBe("No matches");
    });
  });
});

describe("sidebar", () => {
  const rowTitles = () => screen.getAllByTestId("session-row").map((row) => row.querySelector(".session-title")?.textContent);

  it("pins a session to the top and unpins it", async () => {
    const backend = fakeBackend([session("ses_a", "Older", 1), session("ses_b", "Newer", 2)]);
    render(() => <App locale="en" backend={backend} />);
    await screen.findByText("Older");
    expect(rowTitles()).toEqual(["Newer", "Older"]);
    const older = screen.getAllByTestId("session-row")[1] ?? document.body;
    fireEvent.click(within(older).getByRole("button", { name: "Pin to the top" }));
    await waitFor(() => {
      expect(rowTitles()).toEqual(["Older", "Newer"]);
    });
    fireEvent.click(screen.getByRole("button", { name: "Unpin" }));
    await waitFor(() => {
      expect(rowTitles()).toEqual(["Newer", "Older"]);
    });
  });

  it("filters by title", async () => {
    const backend = fakeBackend([session("ses_a", "Garden", 1), session("ses_b", "Taxes", 2)]);
    render(() => <App locale="en" backend={backend} />);
    await screen.findByText("Garden");
    fireEvent.input(screen.getByRole("searchbox", { name: "Filter sessions by title" }), { target: { value: "tax" } });
    await waitFor(() => {
      expect(rowTitles()).toEqual(["Taxes"]);
    });
  });

  it("ticks several sessions (checkbox, Ctrl-click, Shift-click) and archives them at once", async () => {
    const backend = fakeBackend([session("ses_a", "A", 1), session("ses_b", "B", 2), session("ses_c", "C", 3), session("ses_d", "D", 4)]);
    render(() => <App locale="en" backend={backend} />);
    await screen.findByText("A");
    expect(rowTitles()).toEqual(["D", "C", "B", "A"]);
    fireEvent.click(screen.getByRole("checkbox", { name: "Select “D”" }));
    fireEvent.click(screen.getByText("B"), { shiftKey: true });
    expect(screen.getByTestId("bulk-count").textContent).toBe("3 selected");
    fireEvent.click(screen.getByText("C"), { ctrlKey: true });
    expect(screen.getByTestId("bulk-count").textContent).toBe("2 selected");
    expect(screen.getByTestId("session-heading").textContent).toBe("");
    fireEvent.click(screen.getByTestId("bulk-archive"));
    await waitFor(() => {
      expect(rowTitles()).toEqual(["C", "A"]);
    });
    expect(screen.queryByTestId("bulk-bar")).toBeNull();
  });

  it("deletes several sessions only after confirming, and Esc clears the selection", async () => {
    const backend = fakeBackend([session("ses_a", "A", 1), session("ses_b", "B", 2), session("ses_c", "C", 3)]);
    render(() => <App locale="en" backend={backend} />);
    await screen.findByText("A");
    fireEvent.click(screen.getByRole("checkbox", { name: "Select “A”" }));
    fireEvent.keyDown(screen.getByRole("checkbox", { name: "Select “A”" }), { key: "Escape" });
    expect(screen.queryByTestId("bulk-bar")).toBeNull();
    fireEvent.click(screen.getByRole("checkbox", { name: "Select “A”" }));
    fireEvent.click(screen.getByRole("checkbox", { name: "Select “C”" }));
    fireEvent.click(screen.getByTestId("bulk-delete"));
    expect(screen.getByRole("alertdialog").textContent).toContain("Delete 2 sessions and their messages for good?");
    expect(backend.calls.some((call) => call.command === "deleteSession")).toBe(false);
    fireEvent.click(screen.getByRole("button", { name: "Keep" }));
    expect(screen.getByTestId("bulk-count").textContent).toBe("2 selected");
    fireEvent.click(screen.getByTestId("bulk-delete"));
    fireEvent.click(screen.getByTestId("bulk-delete-confirm"));
    await waitFor(() => {
      expect(rowTitles()).toEqual(["B"]);
    });
    expect(backend.calls.filter((call) => call.command === "deleteSession").map((call) => call.argument)).toEqual(["ses_c", "ses_a"]);
  });
});
