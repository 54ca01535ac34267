// @vitest-environment jsdom
// Sending after Undo and Redo (issue 27): the composer holds what it held before the Undo that
// the Redo reversed, so one Send neither says an exchange twice nor loses one.
import { cleanup, fireEvent, render, screen, waitFor } from "@solidjs/testing-library";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App } from "./App";
import { fakeBackend, session } from "./lib/transport/fake-backend";

afterEach(cleanup);
beforeEach(() => {
  localStorage.clear();
});

async function sessionWithTwoMessages() {
  const backend = fakeBackend([session("ses_a", "Taxes", 1)]);
  render(() => <App locale="en" backend={backend} />);
  fireEvent.click(await screen.findByText("Taxes"));
  const field = screen.getByRole<HTMLTextAreaElement>("textbox", { name: "Message" });
  for (const text of ["first question", "second question"]) {
    fireEvent.input(field, { target: { value: text } });
    fireEvent.keyDown(field, { key: "Enter" });
    await screen.findByText(text);
  }
  return { backend, field };
}

/** What the backend has stored: the text of each message you sent, in order. */
async function storedPrompts(backend: ReturnType<typeof fakeBackend>): Promise<string[]> {
  const page = await backend.listMessages("ses_a", 100);
  return page.messages
    .filter((entry) => entry.info.role === "user")
    .map((entry) => entry.parts.map((part) => (part.type === "text" ? part.text : "")).join(""));
}

const undoneCount = () => screen.queryByTestId("undone")?.textContent ?? "";

describe("sending after undo and redo", () => {
  it("Undo ×2, Redo ×1: the composer holds the still-undone second prompt, and Send says each once", async () => {
    const { backend, field } = await sessionWithTwoMessages();
    fireEvent.click(screen.getByTestId("undo"));
    await waitFor(() => { expect(undoneCount()).toContain("1 undone message"); });
    fireEvent.click(screen.getByTestId("undo"));
    await waitFor(() => { expect(undoneCount()).toContain("2 undone messages"); });
    expect(field.value).toBe("first question");

    fireEvent.click(screen.getByTestId("redo"));
    await screen.findByText("first question");
    await waitFor(() => { expect(field.value).toBe("second question"); });

    fireEvent.keyDown(field, { key: "Enter" });
    await waitFor(async () => { expect(await storedPrompts(backend)).toEqual(["first question", "second question"]); });
    expect(field.value).toBe("");
  });

  it("Undo ×1, Redo ×1 gives back the draft that was being written, and Send adds just it", async () => {
    const { backend, field } = await sessionWithTwoMessages();
    fireEvent.input(field, { target: { value: "a third thought" } });
    fireEvent.click(screen.getByTestId("undo"));
    await waitFor(() => { expect(field.value).toBe("second question"); });

    fireEvent.click(screen.getByTestId("redo"));
    await waitFor(() => { expect(screen.queryByTestId("undone")).toBeNull(); });
    await waitFor(() => { expect(field.value).toBe("a third thought"); });

    fireEvent.keyDown(field, { key: "Enter" });
    await waitFor(async () => { expect(await storedPrompts(backend)).toEqual(["first question", "second question", "a third thought"]); });
  });

  it("words typed after an Undo are not taken away by Redo", async () => {
    const { field } = await sessionWithTwoMessages();
    fireEvent.click(screen.getByTestId("undo"));
    await waitFor(() => { expect(field.value).toBe("second question"); });
    fireEvent.input(field, { target: { value: "something else entirely" } });
    fireEvent.click(screen.getByTestId("redo"));
    await waitFor(() => { expect(screen.queryByTestId("undone")).toBeNull(); });
    expect(field.value).toBe("something else entirely");
  });
});
