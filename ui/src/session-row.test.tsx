// A sidebar row (issue 27): the title opens the session, the actions are in the ⋯ menu and the
// right-click menu, the delete question goes away on a press elsewhere, and a fork is marked.
// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from "@solidjs/testing-library";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App } from "./App";
import { fakeBackend, session } from "./lib/transport/fake-backend";

afterEach(cleanup);
beforeEach(() => {
  localStorage.clear();
});

const twoSessions = () => fakeBackend([session("ses_a", "Journal", 1), session("ses_b", "Long session about the garden", 2)]);
const row = (id: string) => document.querySelector<HTMLElement>(`[data-session-id="${id}"]`) ?? document.body;

describe("a session row", () => {
  it("opens its session on a click on the title and pins nothing", async () => {
    const backend = twoSessions();
    render(() => <App locale="en" backend={backend} />);
    fireEvent.click(await screen.findByText("Journal"));
    await waitFor(() => { expect(screen.getByTestId("session-heading").textContent).toBe("Journal"); });
    expect(screen.getAllByTestId("session-group").map((group) => group.textContent)).not.toContain("Pinned");
    expect(backend.calls.filter((call) => call.command === "deleteSession")).toEqual([]);
    // No tick boxes until several are being chosen.
    expect(row("ses_a").classList.contains("session-row--checked")).toBe(false);
    expect(document.querySelector(".sidebar--selecting")).toBeNull();
  });

  it("opens its menu from ⋯ with ↓, walks it with the arrows and Esc gives focus back to ⋯", async () => {
    render(() => <App locale="en" backend={twoSessions()} />);
    await screen.findByText("Journal");
    const more = within(row("ses_a")).getByTestId("session-row-menu");
    more.focus();
    fireEvent.keyDown(more, { key: "ArrowDown" });
    const menu = await screen.findByRole("menu", { name: "More actions for “Journal”" });
    await waitFor(() => { expect(document.activeElement?.getAttribute("data-testid")).toBe("menu-pin"); });
    expect(more.getAttribute("aria-expanded")).toBe("true");
    fireEvent.keyDown(document.activeElement ?? menu, { key: "End" });
    expect(document.activeElement?.getAttribute("data-testid")).toBe("delete-session");
    fireEvent.keyDown(document.activeElement ?? menu, { key: "Escape" });
    await waitFor(() => { expect(screen.queryByRole("menu")).toBeNull(); });
    expect(document.activeElement).toBe(more);
  });

  it("opens the same menu on a right click, and its Pin pins", async () => {
    render(() => <App locale="en" backend={twoSessions()} />);
    const title = await screen.findByText("Journal");
    fireEvent.contextMenu(title, { clientX: 40, clientY: 120 });
    const menu = await screen.findByRole("menu");
    expect(menu.style.left).toBe("40px");
    fireEvent.click(within(menu).getByTestId("menu-pin"));
    await waitFor(() => { expect(screen.getAllByTestId("session-group")[0]?.textContent).toBe("Pinned"); });
    expect(screen.queryByRole("menu")).toBeNull();
  });

  it("starts choosing several with Select", async () => {
    render(() => <App locale="en" backend={twoSessions()} />);
    await screen.findByText("Journal");
    fireEvent.click(within(row("ses_a")).getByTestId("session-row-menu"));
    fireEvent.click(within(await screen.findByRole("menu")).getByTestId("menu-select"));
    await waitFor(() => { expect(screen.getByTestId("bulk-count").textContent).toBe("1 selected"); });
    expect(document.querySelector(".sidebar--selecting")).not.toBeNull();
  });

  it("closes the menu and the delete question on a press elsewhere, deleting nothing", async () => {
    const backend = twoSessions();
    render(() => <App locale="en" backend={backend} />);
    await screen.findByText("Journal");
    fireEvent.click(within(row("ses_a")).getByTestId("session-row-menu"));
    fireEvent.pointerDown(await screen.findByTestId("welcome"));
    await waitFor(() => { expect(screen.queryByRole("menu")).toBeNull(); });

    fireEvent.click(within(row("ses_a")).getByTestId("session-row-menu"));
    fireEvent.click(within(await screen.findByRole("menu")).getByTestId("delete-session"));
    await screen.findByTestId("delete-question");
    // A press inside the question keeps it.
    fireEvent.pointerDown(screen.getByTestId("delete-question"));
    expect(screen.queryByTestId("delete-question")).not.toBeNull();
    fireEvent.pointerDown(screen.getByTestId("welcome"));
    await waitFor(() => { expect(screen.queryByTestId("delete-question")).toBeNull(); });
    expect(backend.calls.some((call) => call.command === "deleteSession")).toBe(false);
  });

  it("marks a fork, keeps its number whole and names its source in the tooltip", async () => {
    render(() => <App locale="zh-CN" backend={fakeBackend([session("ses_f", "Trip to Lisbon (fork #2)", 1)])} />);
    const title = await screen.findByText("Trip to Lisbon");
    const button = title.closest("button");
    expect(button?.querySelector("[data-testid=session-fork-mark] svg")).not.toBeNull();
    // Read whole by a screen reader.
    expect(button?.textContent).toBe("Trip to Lisbon (fork #2)");
    expect(button?.getAttribute("title")).toBe("“Trip to Lisbon”的分支 #2");
  });
});
