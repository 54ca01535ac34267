// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from "@solidjs/testing-library";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App } from "../App";
import { fakeBackend, session } from "../lib/transport/fake-backend";

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

describe("session actions", () => {
  it("fork and export wait for a first message, and say why", async () => {
    render(() => <App locale="en" backend={fakeBackend([session("ses_a", "Empty", 1)])} />);
    fireEvent.click(await screen.findByText("Empty"));
    fireEvent.click(await screen.findByTestId("session-menu"));
    const fork = await screen.findByTestId("fork-session");
    await waitFor(() => {
      expect(fork.hasAttribute("disabled")).toBe(true);
    });
    expect(screen.getByTestId("export-markdown").hasAttribute("disabled")).toBe(true);
    expect(fork.getAttribute("title")).toBe("Nothing to fork or export yet: send a message first");
    const field = screen.getByRole<HTMLTextAreaElement>("textbox", { name: "Message" });
    fireEvent.input(field, { target: { value: "hello" } });
    fireEvent.keyDown(field, { key: "Enter" });
    await waitFor(() => {
      expect(fork.hasAttribute("disabled")).toBe(false);
    });
    expect(screen.getByTestId("export-markdown").hasAttribute("disabled")).toBe(false);
  });

  it("the session menu opens on its first item, walks with the arrows and gives focus back on Esc", async () => {
    await sessionWithTwoMessages();
    const button = screen.getByTestId("session-menu");
    expect(button.getAttribute("aria-haspopup")).toBe("menu");
    button.focus();
    fireEvent.keyDown(button, { key: "ArrowDown" });
    const menu = await screen.findByRole("menu");
    expect(button.getAttribute("aria-expanded")).toBe("true");
    // jsdom has no stylesheet, so the narrow window's Undo, Redo and Find are items here too.
    await waitFor(() => {
      expect(document.activeElement?.getAttribute("data-testid")).toBe("menu-undo");
    });
    fireEvent.keyDown(document.activeElement as HTMLElement, { key: "End" });
    expect(document.activeElement?.getAttribute("data-testid")).toBe("archive-session");
    fireEvent.keyDown(document.activeElement as HTMLElement, { key: "ArrowUp" });
    expect(document.activeElement?.getAttribute("data-testid")).toBe("export-json");
    expect(within(menu).getAllByRole("menuitem").map((item) => item.getAttribute("data-testid"))).toEqual([
      "menu-undo",
      "menu-redo",
      "menu-find",
      "fork-session",
      "export-markdown",
      "export-json",
      "archive-session",
    ]);
    fireEvent.keyDown(document.activeElement as HTMLElement, { key: "Escape" });
    expect(screen.queryByRole("menu")).toBeNull();
    expect(document.activeElement).toBe(button);
  });

  it("archiving from the menu says so in a toast whose Undo restores the session", async () => {
    const { backend } = await sessionWithTwoMessages();
    fireEvent.click(screen.getByTestId("session-menu"));
    fireEvent.click(await screen.findByTestId("archive-session"));
    expect((await screen.findByTestId("toast-text")).textContent).toBe("Archived “Taxes”");
    await waitFor(() => {
      expect(screen.queryByTestId("session-row")).toBeNull();
    });
    expect(screen.queryByTestId("session-heading")?.textContent).toBe("");
    fireEvent.click(screen.getByTestId("toast-undo"));
    expect(await screen.findByTestId("session-row")).toBeTruthy();
    // The session that was open is open again.
    await waitFor(() => {
      expect(screen.getByTestId("session-heading").textContent).toBe("Taxes");
    });
    expect(screen.queryByTestId("toast")).toBeNull();
    // The server agrees: the session is current again, not archived.
    expect((await backend.listSessions({ limit: 10 })).sessions.map((item) => item.id)).toEqual(["ses_a"]);
  });

  it("undo hides the last message you sent and puts its text back; redo brings it back", async () => {
    const { backend, field } = await sessionWithTwoMessages();
    fireEvent.click(screen.getByTestId("undo"));
    await waitFor(() => {
      expect(screen.queryByText("second question")).toBeNull();
    });
    expect(field.value).toBe("second question");
    expect(screen.getByTestId("undone").textContent).toContain("1 undone message is hidden");
    expect(backend.calls.at(-1)).toEqual({ command: "revertSession", argument: { id: "ses_a", messageID: expect.stringMatching(/^msg_/) as unknown } });

    fireEvent.click(screen.getByTestId("redo"));
    expect(await screen.findByText("second question")).toBeTruthy();
    expect(screen.queryByTestId("undone")).toBeNull();
    expect(backend.calls.at(-1)).toEqual({ command: "unrevertSession", argument: "ses_a" });
  });

  it("undoing every message shows the undone notice alone, not an empty session as well", async () => {
    await sessionWithTwoMessages();
    fireEvent.click(screen.getByTestId("undo"));
    await screen.findByTestId("undone");
    fireEvent.click(screen.getByTestId("undo"));
    await waitFor(() => {
      expect(screen.getByTestId("undone").textContent).toContain("2 undone messages are hidden");
    });
    expect(screen.queryByText("Nothing here yet")).toBeNull();
    expect(screen.queryByText("first question")).toBeNull();
  });

  it("Ctrl+Z outside a text field undoes a turn, inside one it is left to the field", async () => {
    const { backend, field } = await sessionWithTwoMessages();
    const before = backend.calls.length;
    fireEvent.keyDown(field, { key: "z", ctrlKey: true });
    expect(backend.calls.length).toBe(before);
    fireEvent.keyDown(window, { key: "z", ctrlKey: true });
    await waitFor(() => {
      expect(screen.queryByText("second question")).toBeNull();
    });
  });

  it("forks from a message into a new session that opens with that message in the composer", async () => {
    const { backend, field } = await sessionWithTwoMessages();
    const forks = screen.getAllByTestId("fork-here");
    fireEvent.click(forks[1] as HTMLElement);
    await waitFor(() => {
      expect(screen.getByTestId("session-heading").textContent).toBe("Taxes (fork #1)");
      expect(field.value).toBe("second question");
    });
    expect(screen.getByText("first question")).toBeTruthy();
    expect(screen.queryByText("second question")).toBeNull();
    expect(field.value).toBe("second question");
    expect(backend.calls.find((call) => call.command === "forkSession")).toBeTruthy();
  });

  it("edit opens the text in place and sends the edited text", async () => {
    const { backend } = await sessionWithTwoMessages();
    fireEvent.click(screen.getAllByTestId("edit")[0] as HTMLElement);
    const editor = await screen.findByRole<HTMLTextAreaElement>("textbox", { name: "Edit" });
    expect(editor.value).toBe("first question");
    fireEvent.input(editor, { target: { value: "a better first question" } });
    fireEvent.keyDown(editor, { key: "Enter" });
    await waitFor(() => {
      expect(backend.calls.at(-1)).toEqual({ command: "resendMessage", argument: { id: "ses_a", messageID: expect.stringMatching(/^msg_/) as unknown, text: "a better first question" } });
    });
    // The fake, like this build without a provider, says replies are unavailable: shown in place.
    expect((await screen.findByTestId("notice")).dataset.kind).toBe("unavailable");
  });

  it("export says where the file went in a toast; import, in the sidebar, opens the new session", async () => {
    const { backend } = await sessionWithTwoMessages();
    fireEvent.click(screen.getByTestId("session-menu"));
    fireEvent.click(await screen.findByTestId("export-markdown"));
    expect((await screen.findByTestId("toast-text")).textContent).toBe("Saved to /home/ada/ses_a.md");
    expect(screen.queryByTestId("toast-undo")).toBeNull();
    expect(backend.calls).toContainEqual({ command: "exportSession", argument: { id: "ses_a", format: "markdown" } });

    const importButton = screen.getByTestId("import");
    expect(importButton.closest("aside")).not.toBeNull();
    fireEvent.click(importButton);
    await waitFor(() => {
      expect(screen.getByTestId("session-heading").textContent).toBe("Imported");
    });
  });

  it("a slow export says so and holds fork, export and import until it is done", async () => {
    const { backend } = await sessionWithTwoMessages();
    let finish: (() => void) | undefined;
    backend.exportSession = () =>
      new Promise((resolve) => {
        finish = () => {
          resolve({ outcome: "saved", path: "/home/ada/big.json" });
        };
      });
    fireEvent.click(screen.getByTestId("session-menu"));
    fireEvent.click(await screen.findByTestId("export-json"));
    expect((await screen.findByTestId("toolbar-working")).textContent).toBe("Exporting…");
    fireEvent.click(screen.getByTestId("session-menu"));
    for (const action of ["export-markdown", "export-json", "fork-session", "import"]) {
      expect(screen.getByTestId(action).hasAttribute("disabled"), action).toBe(true);
    }
    expect(screen.getByRole("toolbar", { name: "Session actions" }).getAttribute("aria-busy")).toBe("true");
    finish?.();
    expect((await screen.findByTestId("toast-text")).textContent).toBe("Saved to /home/ada/big.json");
    expect(screen.queryByTestId("toolbar-working")).toBeNull();
    for (const action of ["export-markdown", "export-json", "fork-session", "import"]) {
      expect(screen.getByTestId(action).hasAttribute("disabled"), action).toBe(false);
    }
  });

  it("deletes one message for good, only after confirmation", async () => {
    const { backend } = await sessionWithTwoMessages();
    const first = screen.getByText("first question").closest<HTMLElement>("[data-message-id]");
    if (first === null) throw new Error("no message slot");
    // Read now: the virtual list reuses the slot for another message afterwards.
    const messageID = first.dataset.messageId;
    const actions = within(first);
    fireEvent.click(actions.getByTestId("delete-message"));
    expect(actions.getByRole("alertdialog").textContent).toContain("Delete this message for good?");
    fireEvent.click(actions.getByRole("button", { name: "Keep" }));
    fireEvent.click(actions.getByTestId("delete-message"));
    // Esc from the focused Delete button steps back too.
    fireEvent.keyDown(actions.getByTestId("delete-message-confirm"), { key: "Escape" });
    expect(actions.queryByRole("alertdialog")).toBeNull();
    expect(backend.calls.some((call) => call.command === "deleteMessage")).toBe(false);

    fireEvent.click(actions.getByTestId("delete-message"));
    fireEvent.click(actions.getByTestId("delete-message-confirm"));
    await waitFor(() => {
      expect(screen.queryByText("first question")).toBeNull();
    });
    expect(screen.getByText("second question")).toBeTruthy();
    expect(backend.calls).toContainEqual({ command: "deleteMessage", argument: { id: "ses_a", messageID } });
  });

  it("a failed reply offers Retry, which answers the message again", async () => {
    const { backend } = await sessionWithTwoMessages();
    const info = {
      role: "assistant" as const,
      id: "msg_reply",
      sessionID: "ses_a",
      parentID: "msg_x",
      time: { created: 5, completed: 6 },
      agent: "build",
      modelID: "gpt",
      providerID: "openai",
      mode: "build",
      path: { cwd: "/", root: "/" },
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      error: { name: "ProviderAuthError" as const, data: { providerID: "openai", message: "Incorrect API key provided" } },
    };
    backend.publish({ type: "message.updated", properties: { sessionID: "ses_a", info } });
    const retry = await screen.findByRole("button", { name: "Retry" });
    fireEvent.click(retry);
    await waitFor(() => {
      expect(backend.calls.at(-1)).toEqual({ command: "regenerateReply", argument: { id: "ses_a", messageID: "msg_reply" } });
    });
    // The fake says the session is busy: the refusal is shown in place, in words.
    expect((await screen.findByTestId("notice")).textContent).toContain("The session is replying");
  });
});
