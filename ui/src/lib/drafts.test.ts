import { describe, expect, it } from "vitest";
import { agentMentions, attachmentFromDrop, buildDrafts, isSendable } from "./drafts";

const agents = [{ name: "build" }, { name: "plan" }, { name: "explore" }];

describe("buildDrafts", () => {
  it("sends plain text as one text draft", () => {
    expect(buildDrafts("hello", [], agents)).toEqual([{ type: "text", text: "hello" }]);
  });

  it("adds a file draft per dropped file and folder, like OpenCode's client", () => {
    const notes = attachmentFromDrop({ path: "/home/ada/notes.txt", name: "notes.txt", url: "file:///home/ada/notes.txt", mime: "text/plain", size: 11, kind: "text" });
    const folder = attachmentFromDrop({ path: "/home/ada/src", name: "src", url: "file:///home/ada/src", mime: "application/x-directory", kind: "folder" });
    expect(buildDrafts("summarise", [notes, folder], agents)).toEqual([
      { type: "text", text: "summarise" },
      { type: "file", mime: "text/plain", filename: "notes.txt", url: "file:///home/ada/notes.txt" },
      { type: "file", mime: "application/x-directory", filename: "src", url: "file:///home/ada/src" },
    ]);
  });

  it("sends a line range as ?start=&end= on the file URL", () => {
    const notes = { ...attachmentFromDrop({ path: "/src/main.rs", name: "main.rs", url: "file:///src/main.rs", mime: "text/plain", size: 900, kind: "text" }), range: { start: 10, end: 20 } };
    expect(buildDrafts("why?", [notes], agents)).toEqual([
      { type: "text", text: "why?" },
      { type: "file", mime: "text/plain", filename: "main.rs", url: "file:///src/main.rs?start=10&end=20" },
    ]);
  });

  it("leaves out files that cannot be sent", () => {
    const binary = attachmentFromDrop({ path: "/a.zip", name: "a.zip", url: "file:///a.zip", mime: "application/octet-stream", size: 3, kind: "binary" });
    expect(isSendable(binary)).toBe(false);
    expect(buildDrafts("x", [binary], agents)).toEqual([{ type: "text", text: "x" }]);
  });

  it("turns @agent mentions into agent drafts with their span", () => {
    expect(buildDrafts("ask @explore about it", [], agents)).toEqual([
      { type: "text", text: "ask @explore about it" },
      { type: "agent", name: "explore", source: { value: "@explore", start: 4, end: 12 } },
    ]);
  });

  it("ignores unknown agents and e-mail addresses", () => {
    expect(agentMentions("mail ada@plan.org or @nobody", agents)).toEqual([]);
    expect(agentMentions("@plan first", agents)).toEqual([{ name: "plan", start: 0, end: 5 }]);
  });

  it("sends attachments alone when there is no text", () => {
    const notes = attachmentFromDrop({ path: "/n.txt", name: "n.txt", url: "file:///n.txt", mime: "text/plain", size: 1, kind: "text" });
    expect(buildDrafts("  ", [notes], agents)).toEqual([{ type: "file", mime: "text/plain", filename: "n.txt", url: "file:///n.txt" }]);
  });
});
