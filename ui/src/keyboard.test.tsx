// The session list as one Tab stop walked with the arrows, and focus into and out of dialogs.
// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from "@solidjs/testing-library";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App } from "./App";
import { fakeBackend, session } from "./lib/transport/fake-backend";

afterEach(cleanup);
beforeEach(() => {
  localStorage.clear();
});

const threeSessions = () => fakeBackend([session("ses_a", "Alpha", 1), session("ses_b", "Beta", 2), session("ses_c", "Gamma", 3)]);
const openButton = (id: string) => document.querySelector<HTMLElement>(`[data-session-id="${id}"] .session-open`);
const focusedRow = () => document.activeElement?.closest<HTMLElement>("[data-session-id]")?.dataset.sessionId;

describe("the session list from the keyboard", () => {
  it("is one Tab stop: only the first session's button, and none of the rows' other buttons", async () => {
    render(() => <App locale="en" backend={threeSessions()} />);
    await screen.findByText("Alpha");
    const list = screen.getByTestId("session-list");
    const stops = Array.from(list.querySelectorAll<HTMLElement>("button, input")).filter((element) => element.tabIndex >= 0);
    expect(stops).toEqual([openButton("ses_c")]);
    expect(openButton("ses_c")?.getAttribute("aria-describedby")).toBe("session-list-keys");
  });

  it("moves with ↓, ↑, End and Home, and the moved-to row becomes the Tab stop", async () => {
    render(() => <App locale="en" backend={threeSessions()} />);
    await screen.findByText("Alpha");
    openButton("ses_c")?.focus();
    fireEvent.keyDown(document.activeElement ?? document.body, { key: "ArrowDown" });
    await waitFor(() => { expect(focusedRow()).toBe("ses_b"); });
    expect(openButton("ses_b")?.tabIndex).toBe(0);
    expect(openButton("ses_c")?.tabIndex).toBe(-1);
    fireEvent.keyDown(document.activeElement ?? document.body, { key: "End" });
    await waitFor(() => { expect(focusedRow()).toBe("ses_a"); });
    fireEvent.keyDown(document.activeElement ?? document.body, { key: "ArrowUp" });
    await waitFor(() => { expect(focusedRow()).toBe("ses_b"); });
    fireEvent.keyDown(document.activeElement ?? document.body, { key: "Home" });
    await waitFor(() => { expect(focusedRow()).toBe("ses_c"); });
  });

  it("reaches a row's buttons with → and comes back with ←", async () => {
    render(() => <App locale="en" backend={threeSessions()} />);
    await screen.findByText("Alpha");
    openButton("ses_b")?.focus();
    fireEvent.keyDown(document.activeElement ?? document.body, { key: "ArrowRight" });
    expect(document.activeElement?.getAttribute("data-testid")).toBe("pin-session");
    fireEvent.keyDown(document.activeElement ?? document.body, { key: "ArrowRight" });
    expect(document.activeElement?.getAttribute("data-testid")).toBe("session-row-menu");
    fireEvent.keyDown(document.activeElement ?? document.body, { key: "ArrowLeft" });
    fireEvent.keyDown(document.activeElement ?? document.body, { key: "ArrowLeft" });
    expect(document.activeElement).toBe(openButton("ses_b"));
  });

  it("asks with Delete, focus on Keep, and Esc goes back to the row without deleting", async () => {
    const backend = threeSessions();
    render(() => <App locale="en" backend={backend} />);
    await screen.findByText("Alpha");
    openButton("ses_b")?.focus();
    fireEvent.keyDown(document.activeElement ?? document.body, { key: "Delete" });
    const question = await screen.findByRole("alertdialog");
    await waitFor(() => { expect(document.activeElement?.textContent).toBe("Keep"); });
    fireEvent.keyDown(question, { key: "Escape" });
    await waitFor(() => { expect(document.activeElement).toBe(openButton("ses_b")); });
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(backend.calls.some((call) => call.command === "deleteSession")).toBe(false);
  });
});

describe("dialogs and focus", () => {
  it("settings take focus on Close and give it back when closed", async () => {
    render(() => <App locale="en" backend={threeSessions()} />);
    await screen.findByText("Alpha");
    const opener = screen.getByTestId("open-settings");
    opener.focus();
    fireEvent.click(opener);
    await waitFor(() => { expect(document.activeElement?.getAttribute("data-testid")).toBe("close-settings"); });
    fireEvent.keyDown(window, { key: "Escape" });
    await waitFor(() => { expect(screen.queryByTestId("settings")).toBeNull(); });
    expect(document.activeElement).toBe(opener);
  });
});
