import { describe, expect, it } from "vitest";
import type { Message } from "./bindings/Message";
import type { Part } from "./bindings/Part";
import { forkPoint, redoStep, sentAttachments, typedText, undoTarget, visibleMessages } from "./reshaping";

const user = (id: string): Message => ({ role: "user", id, sessionID: "ses_a", time: { created: 1 }, agent: "build", model: { providerID: "dossier", modelID: "offline" } });
const reply = (id: string, parentID: string): Message =>
  ({ role: "assistant", id, sessionID: "ses_a", parentID, time: { created: 1 }, agent: "build", modelID: "offline", providerID: "dossier", mode: "build", path: { cwd: "/", root: "/" }, cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } } });

// Listing order deliberately differs from id order: the listing is the truth.
const conversation = [user("msg_3"), reply("msg_1", "msg_3"), user("msg_9"), reply("msg_2", "msg_9"), user("msg_5"), reply("msg_4", "msg_5")];
const ids = (messages: readonly Message[]) => messages.map((message) => message.id);

describe("undo and redo", () => {
  it("undo goes back one message you sent at a time", () => {
    expect(undoTarget(conversation, undefined)?.id).toBe("msg_5");
    expect(undoTarget(conversation, { messageID: "msg_5" })?.id).toBe("msg_9");
    expect(undoTarget(conversation, { messageID: "msg_9" })?.id).toBe("msg_3");
    expect(undoTarget(conversation, { messageID: "msg_3" })).toBeUndefined();
  });

  it("hides the marked message and everything after it", () => {
    expect(ids(visibleMessages(conversation, { messageID: "msg_9" }))).toEqual(["msg_3", "msg_1"]);
    expect(ids(visibleMessages(conversation, undefined))).toHaveLength(6);
    // A marker on a message not loaded hides nothing rather than everything.
    expect(ids(visibleMessages(conversation, { messageID: "msg_missing" }))).toHaveLength(6);
  });

  it("redo moves forward one message you sent, then clears the marker", () => {
    expect(redoStep(conversation, { messageID: "msg_3" })).toEqual({ kind: "revert", messageID: "msg_9" });
    expect(redoStep(conversation, { messageID: "msg_9" })).toEqual({ kind: "revert", messageID: "msg_5" });
    expect(redoStep(conversation, { messageID: "msg_5" })).toEqual({ kind: "unrevert" });
    expect(redoStep(conversation, undefined)).toEqual({ kind: "none" });
  });
});

describe("fork point", () => {
  it("forks before a message you sent, and just after a reply", () => {
    expect(forkPoint(conversation, conversation[2] as Message)).toBe("msg_9");
    expect(forkPoint(conversation, conversation[1] as Message)).toBe("msg_9");
    expect(forkPoint(conversation, conversation[5] as Message)).toBeUndefined();
  });
});

describe("typed text", () => {
  it("keeps what the person typed and leaves out the context the backend added", () => {
    const parts = [
      { id: "prt_1", sessionID: "ses_a", messageID: "msg_3", type: "text", text: "summarise this" },
      { id: "prt_2", sessionID: "ses_a", messageID: "msg_3", type: "text", text: "Called the Read tool…", synthetic: true },
      { id: "prt_3", sessionID: "ses_a", messageID: "msg_3", type: "file", mime: "text/plain", url: "file:///a.txt", filename: "a.txt" },
    ] as Part[];
    expect(typedText(parts)).toBe("summarise this");
  });
});

describe("sentAttachments", () => {
  const file = (id: string, mime: string, url: string, filename?: string): Part =>
    ({ id, sessionID: "ses_a", messageID: "msg_1", type: "file", mime, url, ...(filename === undefined ? {} : { filename }) });
  it("gives back every file you attached, as chips with the same URL, and nothing else", () => {
    const parts: Part[] = [
      { id: "prt_t", sessionID: "ses_a", messageID: "msg_1", type: "text", text: "look" },
      { id: "prt_s", sessionID: "ses_a", messageID: "msg_1", type: "text", text: "Called the Read tool", synthetic: true },
      file("prt_1", "text/plain", "data:text/plain;base64,aGk=", "notes.txt"),
      file("prt_2", "image/png", "dossier-blob:sha256-abc", "photo.png"),
      file("prt_3", "application/x-directory", "file:///home/ada/project", "project"),
      file("prt_4", "application/pdf", "file:///home/ada/a.pdf"),
    ];
    expect(sentAttachments(parts).map(({ name, kind, mime, url }) => ({ name, kind, mime, url }))).toEqual([
      { name: "notes.txt", kind: "text", mime: "text/plain", url: "data:text/plain;base64,aGk=" },
      { name: "photo.png", kind: "image", mime: "image/png", url: "dossier-blob:sha256-abc" },
      { name: "project", kind: "folder", mime: "application/x-directory", url: "file:///home/ada/project" },
      { name: "file:///home/ada/a.pdf", kind: "pdf", mime: "application/pdf", url: "file:///home/ada/a.pdf" },
    ]);
    expect(new Set(sentAttachments(parts).map((attachment) => attachment.key)).size).toBe(4);
  });
});
