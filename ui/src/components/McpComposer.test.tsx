// @vitest-environment jsdom
// The composer's MCP pieces on their own: the Resources picker (search, arrows, Enter, Esc) and
// the `/` prompt menu (filtering, choosing, arguments asked for, the prompt's text in the message).
import { cleanup, fireEvent, render, screen, waitFor } from "@solidjs/testing-library";
import { createSignal } from "solid-js";
import { afterEach, describe, expect, it } from "vitest";
import type { McpPromptItem } from "../lib/bindings/McpPromptItem";
import type { McpResourceItem } from "../lib/bindings/McpResourceItem";
import type { McpBackend } from "../lib/transport";
import { McpResourcePicker } from "./McpResourcePicker";
import { PromptMenu } from "./PromptMenu";

afterEach(cleanup);

const resources: McpResourceItem[] = [
  { clientName: "everything", uri: "demo://resource/static/document/architecture.md", name: "architecture.md", mimeType: "text/markdown" },
  { clientName: "everything", uri: "demo://resource/static/document/features.md", name: "features.md", mimeType: "text/markdown" },
  { clientName: "files", uri: "file:///tmp/notes.txt", name: "notes.txt" },
];

const prompts: McpPromptItem[] = [
  { clientName: "everything", name: "simple-prompt", description: "A prompt with no arguments", arguments: [] },
  { clientName: "everything", name: "args-prompt", arguments: [{ name: "city", required: true }, { name: "state", required: false }] },
];

function fakeMcp() {
  const fetched: string[] = [];
  const mcp: McpBackend = {
    statuses: () => Promise.resolve([]),
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    restart: () => Promise.resolve(),
    settings: () => Promise.resolve({ servers: [], configPath: "" }),
    save: () => Promise.reject(new Error("unused")),
    remove: () => Promise.reject(new Error("unused")),
    resources: () => Promise.resolve(resources),
    prompts: () => Promise.resolve(prompts),
    promptText: (clientName, name, args) => {
      fetched.push(`${clientName}:${name} ${JSON.stringify(args)}`);
      return Promise.resolve({ text: name === "simple-prompt" ? "This is a simple prompt without arguments." : `Weather in ${args.city ?? "?"}` });
    },
    toolPermissions: () => Promise.resolve([]),
    setAlwaysAllowed: () => Promise.resolve([]),
  };
  return { mcp, fetched };
}

const key = (target: Element, name: string) => fireEvent.keyDown(target, { key: name });

describe("the Resources picker", () => {
  it("searches, moves with the arrows, chooses with Enter and closes", async () => {
    const chosen: string[] = [];
    let closed = 0;
    render(() => <McpResourcePicker mcp={fakeMcp().mcp} onChoose={(item) => chosen.push(item.uri)} onClosed={() => (closed += 1)} />);
    fireEvent.click(screen.getByTestId("attach-resource"));
    await waitFor(() => {
      expect(screen.getAllByTestId("resource-option")).toHaveLength(3);
    });
    const search = screen.getByTestId("resource-search");
    fireEvent.input(search, { target: { value: "everything md" } });
    expect(screen.getAllByTestId("resource-option").map((option) => option.getAttribute("data-uri"))).toEqual([
      "demo://resource/static/document/architecture.md",
      "demo://resource/static/document/features.md",
    ]);
    key(search, "ArrowDown");
    expect(screen.getAllByTestId("resource-option").map((option) => option.getAttribute("aria-selected"))).toEqual(["false", "true"]);
    key(search, "Enter");
    expect(chosen).toEqual(["demo://resource/static/document/features.md"]);
    expect(screen.queryByTestId("resource-picker")).toBeNull();
    expect(closed).toBe(1);

    fireEvent.click(screen.getByTestId("attach-resource"));
    const again = await screen.findByTestId("resource-search");
    fireEvent.input(again, { target: { value: "nothing like it" } });
    expect(screen.getByTestId("resource-empty").textContent).toBe("No resource matches.");
    key(again, "Escape");
    expect(screen.queryByTestId("resource-picker")).toBeNull();
    expect(chosen).toHaveLength(1);
  });
});

describe("the / menu", () => {
  function renderMenu() {
    const { mcp, fetched } = fakeMcp();
    const [text, setText] = createSignal("");
    let keys: ((event: KeyboardEvent) => boolean) | undefined;
    render(() => (
      <>
        <textarea data-testid="field" value={text()} onKeyDown={(event) => keys?.(event)} />
        <PromptMenu mcp={mcp} text={text()} onText={setText} keys={(handler) => (keys = handler)} onDone={() => undefined} />
      </>
    ));
    return { text, setText, fetched, field: screen.getByTestId("field") };
  }

  it("opens on a leading /, filters as one types, and puts a prompt's text in the message", async () => {
    const { text, setText, fetched, field } = renderMenu();
    setText("hello /");
    expect(screen.queryByTestId("prompt-menu")).toBeNull();
    setText("/");
    await waitFor(() => {
      expect(screen.getAllByTestId("prompt-option").map((option) => option.getAttribute("data-name"))).toEqual(["everything:simple-prompt", "everything:args-prompt"]);
    });
    setText("/simp");
    expect(screen.getAllByTestId("prompt-option").map((option) => option.getAttribute("data-name"))).toEqual(["everything:simple-prompt"]);
    key(field, "Enter");
    await waitFor(() => {
      expect(text()).toBe("This is a simple prompt without arguments.");
    });
    expect(fetched).toEqual(["everything:simple-prompt {}"]);
    expect(screen.queryByTestId("prompt-menu")).toBeNull();
  });

  it("asks for a prompt's arguments and refuses an empty required one", async () => {
    const { text, setText, fetched, field } = renderMenu();
    setText("/args");
    await screen.findByTestId("prompt-menu");
    key(field, "Tab");
    const form = await screen.findByTestId("prompt-arguments");
    expect(screen.queryByTestId("prompt-menu")).toBeNull();
    fireEvent.submit(form);
    await screen.findByText("Fill in: city");
    expect(fetched).toEqual([]);
    const [city] = screen.getAllByTestId("prompt-argument");
    fireEvent.input(city as HTMLElement, { target: { value: "Paris" } });
    fireEvent.submit(form);
    await waitFor(() => {
      expect(text()).toBe("Weather in Paris");
    });
    expect(fetched).toEqual(['everything:args-prompt {"city":"Paris"}']);
    expect(screen.queryByTestId("prompt-arguments")).toBeNull();
  });

  it("closes on Esc and leaves Enter to the composer when nothing matches", async () => {
    const { setText, field } = renderMenu();
    setText("/");
    await screen.findByTestId("prompt-menu");
    expect(fireEvent.keyDown(field, { key: "Escape" })).toBe(false);
    expect(screen.queryByTestId("prompt-menu")).toBeNull();
    // Not handled by the menu: the default action (sending) is not prevented.
    expect(fireEvent.keyDown(field, { key: "Enter" })).toBe(true);
    setText("/zzz");
    setText("x");
    setText("/zzz");
    expect(screen.queryByTestId("prompt-menu")).toBeNull();
    expect(fireEvent.keyDown(field, { key: "Enter" })).toBe(true);
  });
});
