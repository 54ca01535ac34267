// @vitest-environment jsdom
// The window's frame (issue 13, items 8–10): the sidebar hides and shows (button, Ctrl/Cmd+B,
// remembered), sections by date with plain titles, the connection state, the offline notice,
// the first-run welcome, the typing indicator and the model list's current model.
import { cleanup, fireEvent, render, screen, waitFor, within } from "@solidjs/testing-library";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App } from "./App";
import { fakeBackend, session } from "./lib/transport/fake-backend";

afterEach(cleanup);
beforeEach(() => {
  localStorage.clear();
});

describe("the window's frame", () => {
  it("hides and shows the sidebar with its button and Ctrl+B, and remembers it", async () => {
    render(() => <App locale="en" backend={fakeBackend([session("ses_a", "Taxes", Date.now())])} />);
    await screen.findByText("Taxes");
    const toggle = screen.getByTestId("toggle-sidebar");
    const app = document.querySelector(".app");
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    fireEvent.click(toggle);
    expect(app?.classList.contains("app--sidebar-collapsed")).toBe(true);
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect(toggle.getAttribute("aria-label")).toBe("Show sidebar (Ctrl+B)");
    // With the sidebar hidden, a new session is still one click away.
    expect(screen.getByTestId("header-new-session")).toBeTruthy();
    expect(localStorage.getItem("dossier.sidebarCollapsed")).toBe("true");
    fireEvent.keyDown(window, { key: "b", ctrlKey: true });
    expect(app?.classList.contains("app--sidebar-collapsed")).toBe(false);
    fireEvent.keyDown(window, { key: "b", ctrlKey: true });
    cleanup();

    render(() => <App locale="en" backend={fakeBackend([session("ses_a", "Taxes", Date.now())])} />);
    await screen.findByText("Taxes");
    expect(document.querySelector(".app")?.classList.contains("app--sidebar-collapsed")).toBe(true);
  });

  it("puts Import and Settings in the sidebar as one Tab stop, the arrows between them", async () => {
    render(() => <App locale="en" backend={fakeBackend([session("ses_a", "Taxes", Date.now())])} />);
    await screen.findByText("Taxes");
    const toolbar = screen.getByRole("toolbar", { name: "App" });
    expect(toolbar.closest("aside")).not.toBeNull();
    const importButton = within(toolbar).getByTestId("import");
    const settings = within(toolbar).getByTestId("open-settings");
    expect([importButton.tabIndex, settings.tabIndex]).toEqual([0, -1]);
    importButton.focus();
    fireEvent.keyDown(importButton, { key: "ArrowRight" });
    expect(document.activeElement).toBe(settings);
    expect([importButton.tabIndex, settings.tabIndex]).toEqual([-1, 0]);
    fireEvent.keyDown(settings, { key: "ArrowLeft" });
    expect(document.activeElement).toBe(importButton);
  });

  it("groups the sessions by date under Pinned, with titles as plain text", async () => {
    const now = Date.now();
    const pinned = { ...session("ses_p", "**Pinned** plan", now - 400 * 24 * 3600 * 1000), pinned: true };
    render(() => <App locale="en" backend={fakeBackend([session("ses_a", "## Summary of your file", now), session("ses_b", "Old notes", now - 40 * 24 * 3600 * 1000), pinned])} />);
    await screen.findByText("Summary of your file");
    const list = screen.getByTestId("session-list");
    const shown = Array.from(list.querySelectorAll("[data-testid=session-group], .session-title"), (element) => element.textContent);
    expect(shown.slice(0, 4)).toEqual(["Pinned", "Pinned plan", "Today", "Summary of your file"]);
    expect(shown[4]).toMatch(/^[A-Z][a-z]+ \d{4}$/);
    expect(shown[5]).toBe("Old notes");
    expect(list.textContent).not.toContain("##");
    fireEvent.click(screen.getByText("Summary of your file"));
    await waitFor(() => {
      expect(screen.getByTestId("session-heading").textContent).toBe("Summary of your file");
    });
    // The icons carry their names for readers and on hover: the quick Pin and the ⋯ menu.
    const row = within(list.querySelector<HTMLElement>("[data-session-id=ses_a]") ?? list);
    expect(row.getByRole("button", { name: "Pin to the top" }).getAttribute("title")).toBe("Pin to the top");
    const more = row.getByRole("button", { name: "More actions for “Summary of your file”" });
    expect(more.getAttribute("title")).toBe("More actions");
    expect(more.querySelector("svg")).not.toBeNull();
    // The rest are in the row's menu, each with its icon.
    fireEvent.click(more);
    const menu = await screen.findByRole("menu", { name: "More actions for “Summary of your file”" });
    expect(within(menu).getAllByRole("menuitem").map((item) => item.textContent)).toEqual([" Pin to the top", " Select", " Rename", " Archive", " Delete"]);
    for (const item of within(menu).getAllByRole("menuitem")) expect(item.querySelector("svg")).not.toBeNull();
  });

  it("asks before deleting with the whole plain title", async () => {
    render(() => <App locale="en" backend={fakeBackend([session("ses_a", "## Home network: a long title that a one-line row would cut", Date.now())])} />);
    const title = await screen.findByText("Home network: a long title that a one-line row would cut");
    fireEvent.keyDown(title.closest("button") as HTMLElement, { key: "Delete" });
    expect((await screen.findByTestId("delete-question")).textContent).toBe("Delete “Home network: a long title that a one-line row would cut” and its messages for good?");
  });

  it("says when the server cannot be reached and when it is back", async () => {
    const backend = fakeBackend([session("ses_a", "Taxes", Date.now())]);
    render(() => <App locale="en" backend={backend} />);
    await screen.findByText("Taxes");
    expect(screen.queryByTestId("connection-status")).toBeNull();
    backend.connection("reconnecting");
    expect((await screen.findByTestId("connection-status")).textContent).toBe("Can’t reach Dossier’s server — retrying");
    backend.connection("connected");
    await waitFor(() => {
      expect(screen.queryByTestId("connection-status")).toBeNull();
    });
  });

  it("a send that cannot reach the server says so in words, with Retry, not 'Failed to fetch'", async () => {
    const backend = fakeBackend([session("ses_a", "Taxes", Date.now())]);
    backend.sendPrompt = () => Promise.reject(new TypeError("Failed to fetch"));
    render(() => <App locale="en" backend={backend} />);
    fireEvent.click(await screen.findByText("Taxes"));
    const field = screen.getByRole<HTMLTextAreaElement>("textbox", { name: "Message" });
    fireEvent.input(field, { target: { value: "hello" } });
    fireEvent.keyDown(field, { key: "Enter" });
    const notice = await screen.findByTestId("notice");
    expect(notice.dataset.kind).toBe("network");
    expect(notice.textContent).toContain("Can’t reach Dossier’s server, so this was not sent.");
    expect(notice.textContent).not.toContain("Failed to fetch");
    expect(within(notice).getByRole("button", { name: "Retry" })).toBeTruthy();
  });

  it("welcomes a first run with example prompts and Add a model provider", async () => {
    const backend = fakeBackend([]);
    render(() => <App locale="en" backend={backend} />);
    const welcome = await screen.findByTestId("welcome");
    expect(within(welcome).getByRole("heading").textContent).toBe("What shall we work on?");
    const examples = within(welcome).getAllByTestId("welcome-example");
    expect(examples.length).toBeGreaterThanOrEqual(3);
    // One Tab stop for the whole group; the arrows move in it.
    expect(within(welcome).getAllByRole("button").filter((button) => button.tabIndex === 0)).toHaveLength(1);
    fireEvent.keyDown(examples[0] as HTMLElement, { key: "ArrowRight" });
    expect(document.activeElement).toBe(examples[1]);
    fireEvent.click(examples[1] as HTMLElement);
    const field = screen.getByRole<HTMLTextAreaElement>("textbox", { name: "Message" });
    expect(field.value).toBe("Explain a piece of code step by step");
    expect(document.activeElement).toBe(field);
    fireEvent.click(within(welcome).getByTestId("welcome-add-provider"));
    expect(await screen.findByTestId("settings")).toBeTruthy();
  });

  it("shows a typing indicator in the reply's place while waiting for its first words", async () => {
    const backend = fakeBackend([session("ses_a", "Taxes", Date.now())]);
    render(() => <App locale="en" backend={backend} />);
    fireEvent.click(await screen.findByText("Taxes"));
    await screen.findByRole("textbox", { name: "Message" });
    backend.publish({ type: "session.status", properties: { sessionID: "ses_a", status: { type: "busy" } } });
    const indicator = await screen.findByTestId("typing-indicator");
    expect(indicator.textContent).toBe("Replying…");
    expect(indicator.getAttribute("role")).toBe("status");
    // The reply's message arrives, still empty: the dots stand in its place, once.
    const info = {
      role: "assistant" as const,
      id: "msg_reply",
      sessionID: "ses_a",
      parentID: "msg_x",
      time: { created: 5 },
      agent: "build",
      modelID: "offline",
      providerID: "dossier",
      mode: "build",
      path: { cwd: "/", root: "/" },
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    };
    backend.publish({ type: "message.updated", properties: { sessionID: "ses_a", info } });
    await waitFor(() => {
      expect(document.querySelector("[data-message-id=msg_reply] [data-testid=typing-indicator]")).not.toBeNull();
    });
    expect(screen.getAllByTestId("typing-indicator")).toHaveLength(1);
    // Its first words replace the dots.
    const part = { id: "prt_1", sessionID: "ses_a", messageID: "msg_reply", type: "text" as const, text: "Hello there" };
    backend.publish({ type: "message.part.updated", properties: { sessionID: "ses_a", part, time: 6 } });
    expect(await screen.findByText("Hello there")).toBeTruthy();
    expect(screen.queryByTestId("typing-indicator")).toBeNull();
    backend.publish({ type: "session.status", properties: { sessionID: "ses_a", status: { type: "idle" } } });
    await waitFor(() => {
      expect(screen.queryByTestId("typing-indicator")).toBeNull();
    });
  });

  it("marks the current model in the model list, the default one too", async () => {
    const backend = fakeBackend([session("ses_a", "Taxes", Date.now())]);
    const model = (id: string, name: string) => ({ id, providerID: "openai", name, variants: [], attachment: false, reasoning: false, tool_call: true });
    backend.listModels = () => Promise.resolve({ providers: [{ id: "openai", name: "OpenAI", models: [model("gpt-a", "GPT A"), model("gpt-b", "GPT B")] }] });
    render(() => <App locale="en" backend={backend} />);
    fireEvent.click(await screen.findByText("Taxes"));
    await waitFor(() => {
      expect(screen.getByTestId("model-picker").textContent).toContain("GPT A");
    });
    fireEvent.click(screen.getByTestId("model-picker"));
    const options = await screen.findAllByTestId("model-option");
    const current = options.filter((option) => option.getAttribute("aria-pressed") === "true");
    expect(current).toHaveLength(1);
    expect(current[0]?.textContent).toBe("GPT A current");
    fireEvent.click(options[1] as HTMLElement);
    fireEvent.click(screen.getByTestId("model-picker"));
    const after = await screen.findAllByTestId("model-option");
    expect(after.filter((option) => option.getAttribute("aria-pressed") === "true").map((option) => option.textContent)).toEqual(["GPT B current"]);
  });
});
