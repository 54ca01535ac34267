// jsdom rather than happy-dom: DOMPurify (Markdown replies) needs a complete DOM.
// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from "@solidjs/testing-library";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App } from "./App";
import { appAppearance, appearanceKey } from "./lib/appearance";
import { BackendError } from "./lib/transport";
import { fakeBackend, session } from "./lib/transport/fake-backend";

afterEach(cleanup);
beforeEach(() => {
  localStorage.clear();
});

/** Chooses an action from a session row's ⋯ menu (`SessionRowMenu.tsx`). */
async function rowAction(title: string, action: string): Promise<void> {
  fireEvent.click(screen.getByRole("button", { name: `More actions for “${title}”` }));
  fireEvent.click(await screen.findByRole("menuitem", { name: action }));
}

describe("App", () => {
  it("lists sessions newest first", async () => {
    const backend = fakeBackend([session("ses_a", "Older", 1), session("ses_b", "Newer", 2)]);
    render(() => <App locale="en" backend={backend} />);
    await waitFor(() => {
      expect(screen.getAllByTestId("session-row").map((row) => row.textContent)).toEqual([
        expect.stringContaining("Newer"),
        expect.stringContaining("Older"),
      ]);
    });
  });

  it("shows a session pinned long ago on top, though it is not on the first page", async () => {
    const many = Array.from({ length: 150 }, (_, index) => session(`ses_${String(index).padStart(3, "0")}`, `Session ${String(index)}`, 1000 + index));
    const backend = fakeBackend([{ ...session("ses_old", "Pinned long ago", 1), pinned: true }, ...many]);
    render(() => <App locale="en" backend={backend} />);
    await waitFor(() => {
      expect(screen.getAllByTestId("session-row")[0]?.textContent).toContain("Pinned long ago");
    });
    const firstPage = backend.calls.find((call) => call.command === "listSessions" && (call.argument as { pinned?: boolean }).pinned !== true);
    expect(firstPage?.argument).toMatchObject({ limit: 100 });
  });

  it("says honestly when there are no sessions yet", async () => {
    render(() => <App locale="en" backend={fakeBackend()} />);
    expect(await screen.findByText("No sessions yet")).toBeTruthy();
  });

  it("creates a session with Ctrl+N and opens it", async () => {
    const backend = fakeBackend();
    render(() => <App locale="en" backend={backend} />);
    await screen.findByText("No sessions yet");
    fireEvent.keyDown(window, { key: "n", ctrlKey: true });
    await waitFor(() => {
      expect(screen.getByTestId("session-heading").textContent).toBe("New session");
    });
    expect(screen.getAllByTestId("session-row")).toHaveLength(1);
  });

  it("sends with Enter, shows the message, and the honest unavailable notice", async () => {
    const backend = fakeBackend([session("ses_a", "Taxes", 1)]);
    render(() => <App locale="en" backend={backend} />);
    fireEvent.click(await screen.findByText("Taxes"));
    const field = screen.getByRole<HTMLTextAreaElement>("textbox", { name: "Message" });
    fireEvent.input(field, { target: { value: "hello there" } });
    fireEvent.keyDown(field, { key: "Enter" });
    expect(await screen.findByText("hello there")).toBeTruthy();
    const notice = await screen.findByTestId("notice");
    expect(notice.textContent).toContain("Your message was saved, but replies are not available in this build yet.");
    expect(notice.dataset.kind).toBe("unavailable");
    expect(screen.queryByRole("button", { name: "Retry" })).toBeNull();
  });

  it("offers Retry only for a send whose message was not saved", async () => {
    const backend = fakeBackend([session("ses_a", "Taxes", 1)]);
    const saveWithoutReply = backend.sendPrompt.bind(backend);
    let saveFirst = false;
    backend.sendPrompt = async (id, input) => {
      if (saveFirst) await saveWithoutReply(id, { ...input, noReply: true });
      throw new BackendError({ kind: "internal", message: saveFirst ? "The reply could not be completed: the disk is full" : "The disk is full" });
    };
    render(() => <App locale="en" backend={backend} />);
    fireEvent.click(await screen.findByText("Taxes"));
    const field = screen.getByRole<HTMLTextAreaElement>("textbox", { name: "Message" });
    fireEvent.input(field, { target: { value: "not saved" } });
    fireEvent.keyDown(field, { key: "Enter" });
    fireEvent.click(await screen.findByRole("button", { name: "Retry" }));
    expect(field.value).toBe("not saved");

    saveFirst = true;
    fireEvent.input(field, { target: { value: "saved, no reply" } });
    fireEvent.keyDown(field, { key: "Enter" });
    expect(await screen.findByText("saved, no reply")).toBeTruthy();
    await waitFor(() => {
      expect(screen.getByTestId("notice").textContent).toContain("the disk is full");
    });
    expect(screen.queryByRole("button", { name: "Retry" })).toBeNull();
  });

  it("keeps a new line on Shift+Enter instead of sending", async () => {
    const backend = fakeBackend([session("ses_a", "Taxes", 1)]);
    render(() => <App locale="en" backend={backend} />);
    fireEvent.click(await screen.findByText("Taxes"));
    const field = screen.getByRole<HTMLTextAreaElement>("textbox", { name: "Message" });
    fireEvent.input(field, { target: { value: "line one" } });
    fireEvent.keyDown(field, { key: "Enter", shiftKey: true });
    expect(backend.calls.filter((call) => call.command === "sendPrompt")).toHaveLength(0);
  });

  it("keeps each session's unsent words when switching, and after a restart", async () => {
    const backend = fakeBackend([session("ses_a", "Taxes", 2), session("ses_b", "Garden", 1)]);
    const first = render(() => <App locale="en" backend={backend} />);
    const field = () => screen.getByRole<HTMLTextAreaElement>("textbox", { name: "Message" });
    fireEvent.click(await screen.findByText("Taxes"));
    fireEvent.input(field(), { target: { value: "Which receipts do I still need" } });
    fireEvent.click(screen.getByText("Garden"));
    await waitFor(() => {
      expect(field().value).toBe("");
    });
    fireEvent.input(field(), { target: { value: "When to plant tulips" } });
    fireEvent.click(screen.getByText("Taxes"));
    await waitFor(() => {
      expect(field().value).toBe("Which receipts do I still need");
    });
    // The window closes (or the app crashes a moment after typing) and Dossier starts again.
    window.dispatchEvent(new Event("pagehide"));
    first.unmount();
    render(() => <App locale="en" backend={backend} />);
    fireEvent.click(await screen.findByText("Garden"));
    await waitFor(() => {
      expect(field().value).toBe("When to plant tulips");
    });
    fireEvent.keyDown(field(), { key: "Enter" });
    expect(await screen.findByText("When to plant tulips", { selector: ".message *" })).toBeTruthy();
    expect(field().value).toBe("");
    // Sent words are no draft any more; the other session's stay.
    await waitFor(() => {
      expect(Object.keys(localStorage).filter((key) => key.startsWith("dossier.draft."))).toEqual(["dossier.draft.ses_a"]);
    });
  });

  it("takes words typed before any session was open into the session created next", async () => {
    render(() => <App locale="en" backend={fakeBackend()} />);
    await screen.findByText("No sessions yet");
    const field = () => screen.getByRole<HTMLTextAreaElement>("textbox", { name: "Message" });
    fireEvent.input(field(), { target: { value: "Plan the trip to Lisbon" } });
    fireEvent.keyDown(window, { key: "n", ctrlKey: true });
    await waitFor(() => {
      expect(screen.getByTestId("session-heading").textContent).toBe("New session");
    });
    expect(field().value).toBe("Plan the trip to Lisbon");
  });

  it("shows dropped files as chips, marks the unsendable one, and sends the rest as file drafts", async () => {
    const backend = fakeBackend([session("ses_a", "Taxes", 1)]);
    render(() => <App locale="en" backend={backend} />);
    fireEvent.click(await screen.findByText("Taxes"));
    backend.hover({ hovering: true });
    expect(await screen.findByTestId("drop-overlay")).toBeTruthy();
    backend.hover({ hovering: false });
    backend.drop([
      { path: "/home/ada/notes.txt", name: "notes.txt", url: "file:///home/ada/notes.txt", mime: "text/plain", size: 2048, kind: "text" },
      { path: "/home/ada/app.zip", name: "app.zip", url: "file:///home/ada/app.zip", mime: "application/octet-stream", size: 10, kind: "binary" },
    ]);
    const chips = await screen.findAllByTestId("attachment-chip");
    expect(chips[0]?.textContent).toContain("notes.txt");
    expect(chips[0]?.textContent).toContain("2.0 KB");
    expect(chips[1]?.textContent).toContain("Cannot send: binary file");
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    await waitFor(() => {
      expect(backend.calls.find((call) => call.command === "sendPrompt")?.argument).toMatchObject({
        input: { parts: [{ type: "file", mime: "text/plain", filename: "notes.txt", url: "file:///home/ada/notes.txt" }] },
      });
    });
  });

  it("deletes a session only after confirmation", async () => {
    const backend = fakeBackend([session("ses_a", "Taxes", 1)]);
    render(() => <App locale="en" backend={backend} />);
    await screen.findByText("Taxes");
    await rowAction("Taxes", "Delete");
    expect(backend.calls.some((call) => call.command === "deleteSession")).toBe(false);
    fireEvent.click(screen.getByRole("button", { name: "Keep" }));
    await rowAction("Taxes", "Delete");
    const confirm = screen.getByRole("alertdialog");
    fireEvent.click(confirm.querySelector(".danger-button") ?? confirm);
    await waitFor(() => {
      expect(screen.queryByText("Taxes")).toBeNull();
    });
    expect(backend.calls.some((call) => call.command === "deleteSession")).toBe(true);
  });

  it("archives a session and restores it from the Archived view", async () => {
    const backend = fakeBackend([session("ses_a", "Taxes", 1)]);
    render(() => <App locale="en" backend={backend} />);
    await screen.findByText("Taxes");
    await rowAction("Taxes", "Archive");
    await waitFor(() => {
      expect(screen.queryByText("Taxes")).toBeNull();
    });
    fireEvent.click(screen.getByRole("button", { name: "Archived" }));
    await screen.findByText("Taxes");
    await rowAction("Taxes", "Restore");
    fireEvent.click(screen.getByRole("button", { name: "Back to sessions" }));
    expect(await screen.findByText("Taxes")).toBeTruthy();
  });

  it("renames a session inline", async () => {
    const backend = fakeBackend([session("ses_a", "Taxes", 1)]);
    render(() => <App locale="en" backend={backend} />);
    await screen.findByText("Taxes");
    await rowAction("Taxes", "Rename");
    const input = screen.getByRole<HTMLInputElement>("textbox", { name: "New title" });
    fireEvent.input(input, { target: { value: "Tax return 2025" } });
    fireEvent.keyDown(input, { key: "Enter" });
    expect(await screen.findByText("Tax return 2025")).toBeTruthy();
  });

  it("renders in Simplified Chinese", async () => {
    render(() => <App locale="zh-CN" backend={fakeBackend()} />);
    expect(await screen.findByRole("heading", { name: "会话" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "发送" })).toBeTruthy();
  });
});

describe("App with a streaming reply", () => {
  /** Opens "Taxes" and starts a reply in it that streams `deltas` (not finished). */
  async function replyStreaming(deltas: readonly string[]) {
    const backend = fakeBackend([session("ses_a", "Taxes", 1)]);
    render(() => <App locale="en" backend={backend} />);
    fireEvent.click(await screen.findByText("Taxes"));
    backend.publish({ type: "session.status", properties: { sessionID: "ses_a", status: { type: "busy" } } });
    backend.publish({
      type: "message.updated",
      properties: {
        sessionID: "ses_a",
        info: {
          role: "assistant", id: "msg_900", sessionID: "ses_a", time: { created: 5 }, parentID: "msg_1", modelID: "offline", providerID: "dossier",
          mode: "build", agent: "build", path: { cwd: "/", root: "/" }, cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
        },
      },
    });
    backend.publish({ type: "message.part.updated", properties: { sessionID: "ses_a", part: { id: "prt_900", sessionID: "ses_a", messageID: "msg_900", type: "text", text: "" }, time: 5 } });
    for (const delta of deltas) {
      backend.publish({ type: "message.part.delta", properties: { sessionID: "ses_a", messageID: "msg_900", partID: "prt_900", field: "text", delta } });
    }
    return backend;
  }

  it("streams assistant Markdown in place, sanitised, with Stop while busy", async () => {
    const backend = await replyStreaming(["# Sum", "mary\n\n**done** <img src=x onerror=alert(1)>"]);
    const reply = await screen.findByTestId("reply-text");
    await waitFor(() => {
      expect(reply.querySelector("h1")?.textContent).toBe("Summary");
    });
    expect(reply.querySelector("strong")?.textContent).toBe("done");
    expect(screen.getByRole("button", { name: "Stop" })).toBeTruthy();
    backend.publish({ type: "session.idle", properties: { sessionID: "ses_a" } });
    await waitFor(() => {
      expect(screen.queryByRole("button", { name: "Stop" })).toBeNull();
    });
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("says why a reply stopped when the reply could not record it (a full disk)", async () => {
    const backend = await replyStreaming(["Half a sen"]);
    await screen.findByTestId("reply-text");
    const why = "The disk that holds Dossier's data is full, so this was not saved.";
    backend.publish({ type: "session.error", properties: { sessionID: "ses_a", error: { name: "UnknownError", data: { message: why } } } });
    expect(screen.queryByRole("alert")).toBeNull();
    backend.publish({ type: "session.status", properties: { sessionID: "ses_a", status: { type: "idle" } } });
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toBe(`The reply failed: ${why}`);
    expect(alert.closest("[data-message-id]")?.getAttribute("data-message-id")).toBe("msg_900");
    // And it is offered again, like a reply that recorded its failure.
    expect(screen.getByTestId("regenerate").textContent).toBe("Retry");
  });

  it("opens an http link from a reply outside the app, and a file: link not at all", async () => {
    const backend = await replyStreaming(["See [the guide](https://example.com/guide) and [notes](file:///etc/passwd)."]);
    const reply = await screen.findByTestId("reply-text");
    const guide = await waitFor(() => {
      const link = reply.querySelector("a[href]");
      if (link === null) throw new Error("no link yet");
      return link;
    });
    const click = new MouseEvent("click", { bubbles: true, cancelable: true });
    guide.dispatchEvent(click);
    expect(click.defaultPrevented).toBe(true);
    const local = [...reply.querySelectorAll("a")].find((link) => link.textContent === "notes");
    const localClick = new MouseEvent("click", { bubbles: true, cancelable: true });
    local?.dispatchEvent(localClick);
    expect(localClick.defaultPrevented).toBe(true);
    expect(backend.calls.filter((call) => call.command === "openLink").map((call) => call.argument)).toEqual(["https://example.com/guide"]);
  });

  it("says plainly in the conversation why a link could not be opened", async () => {
    const backend = await replyStreaming(["See [the guide](https://example.com/guide)."]);
    backend.setBrowserMissing("no xdg-open, gio, gnome-open or kde-open");
    const reply = await screen.findByTestId("reply-text");
    const guide = await waitFor(() => {
      const link = reply.querySelector("a[href]");
      if (link === null) throw new Error("no link yet");
      return link;
    });
    fireEvent.click(guide);
    const notice = await screen.findByTestId("notice");
    expect(notice.textContent).toBe("Something went wrong: Could not open https://example.com/guide: no xdg-open, gio, gnome-open or kde-open");
    expect(backend.calls.filter((call) => call.command === "openLink").map((call) => call.argument)).toEqual(["https://example.com/guide"]);
  });

  it("shows a reply's cost only when it is known and not zero", async () => {
    const backend = await replyStreaming(["Done."]);
    const step = (id: string, cost: number) => ({
      type: "message.part.updated" as const,
      properties: { sessionID: "ses_a", time: 6, part: { id, sessionID: "ses_a", messageID: "msg_900", type: "step-finish" as const, reason: "stop", cost, tokens: { input: 12, output: 3, reasoning: 0, cache: { read: 0, write: 0 } } } },
    });
    backend.publish(step("prt_free", 0));
    backend.publish(step("prt_paid", 0.0123));
    await waitFor(() => {
      expect(screen.getAllByTestId("usage").map((usage) => usage.textContent)).toEqual(["12 in · 3 out", "12 in · 3 out · $0.0123"]);
    });
  });

  it("marks a stopped reply quietly as stopped, its text kept, with Continue and Regenerate", async () => {
    const backend = await replyStreaming(["Half a sen"]);
    fireEvent.click(await screen.findByRole("button", { name: "Stop" }));
    // What the core records on an abort: OpenCode's MessageAbortedError.
    backend.publish({
      type: "message.updated",
      properties: {
        sessionID: "ses_a",
        info: {
          role: "assistant", id: "msg_900", sessionID: "ses_a", time: { created: 5, completed: 6 }, parentID: "msg_1", modelID: "offline", providerID: "dossier",
          mode: "build", agent: "build", path: { cwd: "/", root: "/" }, cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
          error: { name: "MessageAbortedError", data: { message: "The operation was aborted." } },
        },
      },
    });
    backend.publish({ type: "session.error", properties: { sessionID: "ses_a", error: { name: "MessageAbortedError", data: { message: "The operation was aborted." } } } });
    backend.publish({ type: "session.idle", properties: { sessionID: "ses_a" } });
    expect((await screen.findByTestId("reply-stopped")).textContent).toBe("Stopped");
    expect(screen.getByTestId("reply-text").textContent).toContain("Half a sen");
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.queryByText(/failed/)).toBeNull();
    expect(screen.getByTestId("regenerate").textContent).toBe("Regenerate");
    const prompts = () => backend.calls.filter((call) => call.command === "sendPrompt").length;
    const promptsBefore = prompts();
    fireEvent.click(screen.getByTestId("continue"));
    await waitFor(() => {
      // The core's Continue operation, not the word sent as a prompt.
      expect(backend.calls.filter((call) => call.command === "continue_reply").map((call) => call.argument)).toEqual([{ sessionId: "ses_a" }]);
    });
    expect(prompts()).toBe(promptsBefore);
    // The fake keeps no reply loop: its refusal shows in place, as a failed send's would.
    expect(await screen.findByRole("alert")).toBeTruthy();
  });
});

describe("App pickers", () => {
  it("sends the picked agent, model and variant", async () => {
    const backend = fakeBackend([session("ses_a", "Taxes", 1)]);
    const offline = await backend.listModels();
    backend.listModels = () => Promise.resolve({
      providers: [
        ...offline.providers,
        { id: "acme", name: "Acme", models: [{ id: "smart", providerID: "acme", name: "Smart", variants: ["low", "high"], attachment: true, reasoning: true, tool_call: true }] },
      ],
    });
    render(() => <App locale="en" backend={backend} />);
    fireEvent.click(await screen.findByText("Taxes"));
    await waitFor(() => {
      expect(screen.getByTestId("model-picker").textContent).toContain("Dossier · Offline");
    });
    fireEvent.change(screen.getByTestId("agent-picker"), { target: { value: "plan" } });
    fireEvent.click(screen.getByTestId("model-picker"));
    fireEvent.input(screen.getByRole("searchbox", { name: "Search models" }), { target: { value: "sma" } });
    expect(screen.queryByText("Offline")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "high" }));
    expect(screen.getByTestId("model-picker").textContent).toContain("Acme · Smart (high)");
    const field = screen.getByRole<HTMLTextAreaElement>("textbox", { name: "Message" });
    fireEvent.input(field, { target: { value: "go" } });
    fireEvent.keyDown(field, { key: "Enter" });
    await waitFor(() => {
      expect(backend.calls.find((call) => call.command === "sendPrompt")?.argument).toMatchObject({
        input: { agent: "plan", model: { providerID: "acme", modelID: "smart" }, variant: "high" },
      });
    });
  });
});

describe("Settings", () => {
  const fill = (name: string, value: string) => {
    const field = screen.getByTestId("provider-form").querySelector<HTMLInputElement | HTMLSelectElement>(`[name=${name}]`);
    if (field === null) throw new Error(`no field ${name}`);
    if (field instanceof HTMLSelectElement) fireEvent.change(field, { target: { value } });
    else fireEvent.input(field, { target: { value } });
  };

  it("opens with Ctrl+, says how much room the sessions take, adds a provider whose key comes back only as a hint, and reloads the models", async () => {
    const backend = fakeBackend();
    render(() => <App locale="en" backend={backend} />);
    await screen.findByText("No sessions yet");
    fireEvent.keyDown(window, { key: ",", ctrlKey: true });
    await screen.findByText("No providers yet. The built-in offline model answers until you add one.");
    expect((await screen.findByTestId("storage-use")).textContent).toBe(
      "Your sessions take 3.3 MB on this computer, in /home/ada/.local/share/dossier. Deleting a session gives its space back.",
    );
    fireEvent.click(screen.getByTestId("add-provider"));
    fill("id", "lmstudio");
    fireEvent.click(screen.getByTestId("save-provider"));
    expect(await screen.findByText("List at least one model id.")).toBeTruthy();
    expect(backend.calls.some((call) => call.command === "saveProvider")).toBe(false);

    fill("baseURL", "http://127.0.0.1:1234/v1");
    fill("models", "qwen3-8b");
    fill("apiKey", "sk-typed-secret-5678");
    const modelLoads = backend.calls.filter((call) => call.command === "listModels").length;
    fireEvent.click(screen.getByTestId("save-provider"));
    expect(await screen.findByText("Saved. The model list is up to date.")).toBeTruthy();
    expect(screen.getByTestId("provider-key").textContent).toBe("Key …5678 (keychain)");
    // The form (and the key typed in it) is gone from the page.
    expect(screen.queryByTestId("provider-form")).toBeNull();
    expect(document.body.innerHTML).not.toContain("sk-typed-secret");
    await waitFor(() => {
      expect(backend.calls.filter((call) => call.command === "listModels").length).toBe(modelLoads + 1);
    });

    fireEvent.keyDown(window, { key: "Escape" });
    expect(screen.queryByTestId("settings")).toBeNull();
  });

  it("reads the model list again when a model on this computer is installed, until the core lists it, and not while it downloads", async () => {
    const backend = fakeBackend();
    render(() => <App locale="en" backend={backend} />);
    await screen.findByText("No sessions yet");
    const modelLoads = () => backend.calls.filter((call) => call.command === "listModels").length;
    await waitFor(() => { expect(modelLoads()).toBe(1); });
    const progress = { modelId: "smollm2-135m", receivedBytes: 10, totalBytes: 98 } as const;
    backend.publish({ type: "dossier.model.download", properties: { ...progress, status: "downloading", bytesPerSecond: 5, secondsLeft: 18 } });
    backend.publish({ type: "dossier.model.download", properties: { ...progress, status: "verifying", receivedBytes: 98 } });
    expect(modelLoads()).toBe(1);
    // The core rebuilds its catalog on the same event, in a task of its own: the first reads may
    // come before the model is listed, and the window reads again until it is.
    backend.publish({ type: "dossier.model.download", properties: { ...progress, status: "installed", receivedBytes: 98 } });
    await waitFor(() => { expect(modelLoads()).toBeGreaterThanOrEqual(3); });
    await backend.saveProvider({ id: "local", name: "On this computer", npm: "", models: ["smollm2-135m"] });
    fireEvent.click(await screen.findByTestId("new-session"));
    fireEvent.click(await screen.findByTestId("model-picker"));
    expect((await screen.findByRole("group", { name: "On this computer" })).textContent).toContain("smollm2-135m");
    const loadsWhenListed = modelLoads();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(modelLoads()).toBe(loadsWhenListed);
  });

  it("shows that there is no keychain, and the typed error when a key cannot be stored", async () => {
    const backend = fakeBackend();
    backend.setKeychainUnavailable("no Secret Service on the session bus");
    render(() => <App locale="en" backend={backend} />);
    fireEvent.click(await screen.findByTestId("open-settings"));
    const warning = await screen.findByTestId("keychain-unavailable");
    expect(warning.textContent).toContain("No keychain is available");
    expect(warning.textContent).toContain("no Secret Service on the session bus");
    fireEvent.click(screen.getByTestId("add-provider"));
    fill("id", "openai");
    fill("npm", "@ai-sdk/openai");
    fill("models", "gpt-4o-mini");
    fill("apiKey", "sk-typed-secret-5678");
    fireEvent.click(screen.getByTestId("save-provider"));
    const error = await screen.findByTestId("settings-error");
    expect(error.dataset.kind).toBe("unavailable");
    expect(error.textContent).toContain("No keychain is available to store the key");
    // Nothing was saved; the form stays so the person can remove the key and save again.
    expect(screen.getByTestId("provider-form")).toBeTruthy();
    expect(screen.queryAllByTestId("provider-row")).toHaveLength(0);
  });

  it("shows in the browser the server's providers read-only, and where to change them", async () => {
    const backend = { ...fakeBackend(), transport: "http" as const };
    render(() => <App locale="zh-CN" backend={backend} />);
    fireEvent.keyDown(window, { key: ",", metaKey: true });
    expect((await screen.findByTestId("settings-desktop-only")).textContent).toContain("要添加或更改，请使用桌面应用");
    const row = await screen.findByTestId("server-provider-row");
    expect(row.dataset.providerId).toBe("dossier");
    expect(row.textContent).toContain("Offline");
    // Read-only: no form, no buttons that would fail against the server.
    expect(screen.queryByTestId("add-provider")).toBeNull();
    expect(row.querySelector("button")).toBeNull();
  });

  it("lets a browser choose the theme and the language, which the whole app follows", async () => {
    localStorage.removeItem(appearanceKey);
    const appearance = appAppearance();
    appearance.choose({ theme: "system", language: "system" });
    const backend = { ...fakeBackend(), transport: "http" as const };
    render(() => <App locale={appearance.locale()} backend={backend} />);
    fireEvent.keyDown(window, { key: ",", metaKey: true });
    const language = await screen.findByTestId<HTMLSelectElement>("language-choice");
    expect(language.value).toBe("system");
    fireEvent.change(language, { target: { value: "zh-CN" } });
    expect((await screen.findByTestId("settings")).querySelector("h2")?.textContent).toBe("设置");
    expect(screen.getByTestId("theme-choice").closest("label")?.textContent).toContain("主题");
    fireEvent.change(screen.getByTestId("theme-choice"), { target: { value: "dark" } });
    expect(appearance.theme()).toBe("dark");
    expect(JSON.parse(localStorage.getItem(appearanceKey) ?? "null")).toEqual({ theme: "dark", language: "zh-CN" });
    appearance.choose({ theme: "system", language: "system" });
  });
});
