// A ledger opened read-only: the banner names the version, the composer is gone, every control
// that would write is marked for hiding (components/StartUpProblem.css hides `.app--read-only [data-writes]`), and
// the write shortcuts do nothing.
// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from "@solidjs/testing-library";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App } from "./App";
import { fakeBackend, session } from "./lib/transport/fake-backend";

afterEach(cleanup);
beforeEach(() => {
  localStorage.clear();
});

const readOnly = { madeBy: "3.1.0", schemaVersion: 42, knownVersion: 9 };

describe("a read-only ledger", () => {
  it("shows the banner, no composer, and marks every writing control", async () => {
    const backend = fakeBackend([session("ses_a", "Taxes", 1)]);
    const { container } = render(() => <App locale="en" backend={backend} readOnly={readOnly} />);
    expect((await screen.findByTestId("read-only-banner")).textContent).toBe(
      "Read-only: this ledger was last written by Dossier 3.1.0 — install Dossier 3.1.0 or later to change it.",
    );
    expect(container.querySelector(".app")?.classList.contains("app--read-only")).toBe(true);
    fireEvent.click(await screen.findByText("Taxes"));
    await waitFor(() => {
      expect(screen.getByTestId("session-heading").textContent).toBe("Taxes");
    });
    expect(screen.queryByRole("textbox", { name: "Message" })).toBeNull();
    // The row's ⋯ holds only writing actions (archive, delete, …), so it is marked as a whole.
    for (const control of ["new-session", "import", "session-row-menu", "session-check", "pin-session", "undo", "redo"]) {
      const element = screen.getAllByTestId(control)[0];
      expect(element?.hasAttribute("data-writes"), control).toBe(true);
    }
    // Still there and unmarked: reading and searching.
    expect(screen.getByTestId("open-search").hasAttribute("data-writes")).toBe(false);
  });

  it("makes no session on Ctrl+N", async () => {
    const backend = fakeBackend();
    render(() => <App locale="en" backend={backend} readOnly={readOnly} />);
    await screen.findByText("No sessions yet");
    fireEvent.keyDown(window, { key: "n", ctrlKey: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(backend.calls.filter((call) => call.command === "createSession")).toEqual([]);
    expect(screen.queryAllByTestId("session-row")).toHaveLength(0);
  });

  it("a writable ledger has no banner and keeps its composer", async () => {
    render(() => <App locale="en" backend={fakeBackend([session("ses_a", "Taxes", 1)])} />);
    await screen.findByText("Taxes");
    expect(screen.queryByTestId("read-only-banner")).toBeNull();
    expect(screen.getByRole("textbox", { name: "Message" })).toBeTruthy();
  });
});
