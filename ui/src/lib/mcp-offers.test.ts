import { describe, expect, it } from "vitest";
import type { McpPromptItem } from "./bindings/McpPromptItem";
import type { McpResourceItem } from "./bindings/McpResourceItem";
import { buildDrafts } from "./drafts";
import { filterPrompts, filterResources, missingArguments, moveHighlight, offersResources, promptArguments, resourceAttachment, slashQuery } from "./mcp-offers";

const resources: McpResourceItem[] = [
  { clientName: "everything", uri: "demo://resource/static/document/architecture.md", name: "architecture.md", mimeType: "text/markdown", description: "The architecture" },
  { clientName: "everything", uri: "demo://resource/static/image/logo.png", name: "logo.png", mimeType: "image/png" },
  { clientName: "files", uri: "file:///tmp/notes.txt", name: "notes.txt" },
];

const prompts: McpPromptItem[] = [
  { clientName: "everything", name: "simple-prompt", arguments: [] },
  { clientName: "everything", name: "args-prompt", arguments: [{ name: "city", required: true }, { name: "state", required: false }] },
  { clientName: "docs", name: "summarise-everything", arguments: [] },
];

describe("the resource picker", () => {
  it("matches every typed word against name, address, server and description", () => {
    expect(filterResources(resources, "").map((item) => item.name)).toEqual(["architecture.md", "logo.png", "notes.txt"]);
    expect(filterResources(resources, "ARCHITECTURE").map((item) => item.name)).toEqual(["architecture.md"]);
    expect(filterResources(resources, "everything image").map((item) => item.name)).toEqual(["logo.png"]);
    expect(filterResources(resources, "files notes").map((item) => item.name)).toEqual(["notes.txt"]);
    expect(filterResources(resources, "files logo")).toEqual([]);
  });

  it("turns a chosen resource into a file draft whose source is the resource", () => {
    const attachments = resources.map(resourceAttachment);
    expect(attachments.map((attachment) => attachment.kind)).toEqual(["text", "image", "text"]);
    expect(attachments[2]?.mime).toBe("text/plain");
    expect(new Set(attachments.map((attachment) => attachment.key)).size).toBe(3);
    expect(buildDrafts("read this", attachments.slice(0, 1), [])).toEqual([
      { type: "text", text: "read this" },
      {
        type: "file",
        mime: "text/markdown",
        filename: "architecture.md",
        url: "demo://resource/static/document/architecture.md",
        source: { type: "resource", text: { value: "", start: 0, end: 0 }, clientName: "everything", uri: "demo://resource/static/document/architecture.md" },
      },
    ]);
  });
});

describe("the / menu", () => {
  it("is open only while the message is a / and one word at its start", () => {
    expect(slashQuery("/")).toBe("");
    expect(slashQuery("/args")).toBe("args");
    expect(slashQuery("/everything:args-prompt")).toBe("everything:args-prompt");
    expect(slashQuery("/args now")).toBeUndefined();
    expect(slashQuery("see /args")).toBeUndefined();
    expect(slashQuery("")).toBeUndefined();
  });

  it("filters prompts by server:name, those starting with the words first", () => {
    expect(filterPrompts(prompts, "").map((item) => item.name)).toEqual(["simple-prompt", "args-prompt", "summarise-everything"]);
    expect(filterPrompts(prompts, "ARGS").map((item) => item.name)).toEqual(["args-prompt"]);
    expect(filterPrompts(prompts, "every").map((item) => item.name)).toEqual(["simple-prompt", "args-prompt", "summarise-everything"]);
    expect(filterPrompts(prompts, "s").map((item) => item.name)).toEqual(["simple-prompt", "summarise-everything", "args-prompt"]);
    expect(filterPrompts(prompts, "docs:").map((item) => item.name)).toEqual(["summarise-everything"]);
    expect(filterPrompts(prompts, "nothing")).toEqual([]);
  });

  it("asks for the required arguments and sends only the filled ones", () => {
    const wanted = prompts[1]?.arguments ?? [];
    expect(missingArguments(wanted, {})).toEqual(["city"]);
    expect(missingArguments(wanted, { city: "  " })).toEqual(["city"]);
    expect(missingArguments(wanted, { city: "Paris" })).toEqual([]);
    expect(promptArguments({ city: "Paris", state: " " })).toEqual({ city: "Paris" });
  });

  it("moves the highlight round the list", () => {
    expect(moveHighlight(0, 1, 3)).toBe(1);
    expect(moveHighlight(2, 1, 3)).toBe(0);
    expect(moveHighlight(0, -1, 3)).toBe(2);
    expect(moveHighlight(0, 1, 0)).toBe(0);
  });
});

describe("whether the composer offers resources", () => {
  const connected = (resources: number) => ({ status: "connected" as const, tools: 3, resources, prompts: 1 });
  it("only while a connected server offers at least one resource", () => {
    expect(offersResources([])).toBe(false);
    expect(offersResources([connected(0), { status: "connecting" }, undefined])).toBe(false);
    expect(offersResources([{ status: "failed", error: "exited", stderr: [] }, { status: "disabled" }])).toBe(false);
    expect(offersResources([connected(0), connected(2)])).toBe(true);
  });
});
