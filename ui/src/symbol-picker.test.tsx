// A dropped text file's chip narrowed to one symbol through its outline picker, with the keyboard,
// through the whole app on the in-memory backend.
// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from "@solidjs/testing-library";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App } from "./App";
import { fakeBackend, session } from "./lib/transport/fake-backend";

afterEach(cleanup);
beforeEach(() => {
  localStorage.clear();
});

/** The chip's picker button, drawn again whenever the chip changes. */
const pickerButton = (name: string) => screen.getByRole("button", { name: `Narrow ${name} to a function, class or section` });

async function withDroppedFile(name: string) {
  const backend = fakeBackend([session("ses_a", "Taxes", 1)]);
  render(() => <App locale="en" backend={backend} />);
  fireEvent.click(await screen.findByText("Taxes"));
  backend.drop([{ path: `/home/ada/${name}`, name, url: `file:///home/ada/${name}`, mime: "text/plain", size: 120, kind: "text" }]);
  const button = await screen.findByRole("button", { name: `Narrow ${name} to a function, class or section` });
  return { backend, button };
}

describe("the chip's outline picker", () => {
  it("narrows a chip to a nested method with the keyboard and sends its lines", async () => {
    const { backend, button } = await withDroppedFile("shapes.py");
    expect(button.textContent).toBe("Whole file");
    fireEvent.click(button);
    const search = await screen.findByTestId("symbol-search");
    await screen.findByText("area");
    expect(screen.getAllByTestId("symbol-option").map((option) => option.textContent)).toEqual([
      "Whole file",
      "ShapeLines 4–13",
      "areaLines 5–7",
      "mainLines 15–21",
    ]);
    fireEvent.keyDown(search, { key: "ArrowDown" });
    fireEvent.keyDown(search, { key: "ArrowDown" });
    fireEvent.keyDown(search, { key: "Enter" });
    await waitFor(() => {
      expect(pickerButton("shapes.py").textContent).toBe("Lines 5–7");
    });
    expect(screen.queryByTestId("symbol-picker")).toBeNull();
    await waitFor(() => {
      expect(document.activeElement).toBe(pickerButton("shapes.py"));
    });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    await waitFor(() => {
      expect(backend.calls.find((call) => call.command === "sendPrompt")?.argument).toMatchObject({
        input: { parts: [{ type: "file", filename: "shapes.py", url: "file:///home/ada/shapes.py?start=5&end=7" }] },
      });
    });
  });

  it("filters by name, widens back to the whole file, and closes on Escape", async () => {
    const { button } = await withDroppedFile("shapes.py");
    fireEvent.click(button);
    const search = await screen.findByTestId("symbol-search");
    await screen.findByText("main");
    fireEvent.input(search, { target: { value: "MAI" } });
    expect(screen.getAllByTestId("symbol-option").map((option) => option.textContent)).toEqual(["Whole file", "mainLines 15–21"]);
    fireEvent.keyDown(search, { key: "ArrowDown" });
    fireEvent.keyDown(search, { key: "Enter" });
    await waitFor(() => {
      expect(pickerButton("shapes.py").textContent).toBe("Lines 15–21");
    });
    fireEvent.click(pickerButton("shapes.py"));
    fireEvent.keyDown(await screen.findByTestId("symbol-search"), { key: "Enter" });
    await waitFor(() => {
      expect(pickerButton("shapes.py").textContent).toBe("Whole file");
    });
    fireEvent.click(pickerButton("shapes.py"));
    fireEvent.keyDown(await screen.findByTestId("symbol-search"), { key: "Escape" });
    await waitFor(() => {
      expect(screen.queryByTestId("symbol-picker")).toBeNull();
    });
    expect(document.activeElement).toBe(pickerButton("shapes.py"));
  });

  it("says when the file has no symbols", async () => {
    const { button } = await withDroppedFile("notes.txt");
    fireEvent.click(button);
    expect((await screen.findByTestId("symbol-empty")).textContent).toBe("Dossier found no functions, classes or sections in this file.");
  });
});
