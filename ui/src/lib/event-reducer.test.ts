import { describe, expect, it } from "vitest";
import type { Event } from "./bindings/Event";
import type { Message } from "./bindings/Message";
import type { Part } from "./bindings/Part";
import type { Session } from "./bindings/Session";
import { applyEvent, emptyChatState, loadMessages, SeenEvents } from "./event-reducer";

const session = (id: string, title = "New session"): Session => ({
  id,
  slug: "calm-river",
  projectID: "global",
  directory: "/home/ada",
  path: "",
  cost: 0,
  tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
  title,
  version: "0.1.0",
  time: { created: 1, updated: 1 },
  pinned: false,
});

const userMessage = (id: string, sessionID = "ses_1"): Message => ({
  role: "user",
  id,
  sessionID,
  time: { created: 2 },
  agent: "build",
  model: { providerID: "dossier", modelID: "offline" },
});

const assistantMessage = (id: string): Message => ({
  role: "assistant",
  id,
  sessionID: "ses_1",
  time: { created: 3 },
  parentID: "msg_1",
  modelID: "offline",
  providerID: "dossier",
  mode: "build",
  agent: "build",
  path: { cwd: "/", root: "/" },
  cost: 0,
  tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
});

const textPart = (id: string, text: string, messageID = "msg_2"): Part => ({
  id,
  sessionID: "ses_1",
  messageID,
  type: "text",
  text,
});

let counter = 0;
function event(payload: Omit<Event, "id">, id = `evt_${String(++counter).padStart(4, "0")}`): Event {
  return { id, ...payload } as Event;
}

describe("applyEvent", () => {
  it("adds, updates and deletes sessions", () => {
    const state = emptyChatState();
    applyEvent(state, event({ type: "session.created", properties: { sessionID: "ses_1", info: session("ses_1") } }));
    expect(state.sessions.ses_1?.title).toBe("New session");
    applyEvent(state, event({ type: "session.updated", properties: { sessionID: "ses_1", info: session("ses_1", "Taxes") } }));
    expect(state.sessions.ses_1?.title).toBe("Taxes");
    applyEvent(state, event({ type: "message.updated", properties: { sessionID: "ses_1", info: userMessage("msg_1") } }));
    applyEvent(state, event({ type: "message.part.updated", properties: { sessionID: "ses_1", part: textPart("prt_1", "hi", "msg_1"), time: 1 } }));
    applyEvent(state, event({ type: "session.deleted", properties: { sessionID: "ses_1", info: session("ses_1") } }));
    expect(state.sessions.ses_1).toBeUndefined();
    expect(state.messages.ses_1).toBeUndefined();
    expect(state.parts.msg_1).toBeUndefined();
  });

  it("keeps the ledger's listing order: new items arrive last, updates stay in place", () => {
    const state = emptyChatState();
    applyEvent(state, event({ type: "message.updated", properties: { sessionID: "ses_1", info: assistantMessage("msg_b") } }));
    applyEvent(state, event({ type: "message.updated", properties: { sessionID: "ses_1", info: userMessage("msg_a") } }));
    applyEvent(state, event({ type: "message.updated", properties: { sessionID: "ses_1", info: { ...assistantMessage("msg_b"), cost: 2 } } }));
    expect(state.messages.ses_1?.map((message) => message.id)).toEqual(["msg_b", "msg_a"]);
    expect(state.messages.ses_1?.[0]).toMatchObject({ cost: 2 });
    applyEvent(state, event({ type: "message.part.updated", properties: { sessionID: "ses_1", part: textPart("prt_b", "b"), time: 1 } }));
    applyEvent(state, event({ type: "message.part.updated", properties: { sessionID: "ses_1", part: textPart("prt_a", "a"), time: 1 } }));
    expect(state.parts.msg_2?.map((part) => part.id)).toEqual(["prt_b", "prt_a"]);
  });

  it("puts an older page in front in its own order, even where ids would sort otherwise", () => {
    const state = emptyChatState();
    loadMessages(state, "ses_1", [
      { info: userMessage("msg_9"), parts: [textPart("prt_z", "z", "msg_9"), textPart("prt_y", "y", "msg_9")] },
      { info: userMessage("msg_8"), parts: [] },
    ]);
    loadMessages(state, "ses_1", [{ info: userMessage("msg_5"), parts: [] }, { info: userMessage("msg_7"), parts: [] }]);
    expect(state.messages.ses_1?.map((message) => message.id)).toEqual(["msg_5", "msg_7", "msg_9", "msg_8"]);
    expect(state.parts.msg_9?.map((part) => part.id)).toEqual(["prt_z", "prt_y"]);
  });

  it("keeps the streamed copy of a part when a page that overlaps it arrives", () => {
    const state = emptyChatState();
    applyEvent(state, event({ type: "message.part.updated", properties: { sessionID: "ses_1", part: textPart("prt_a", "Hello, wor"), time: 1 } }));
    loadMessages(state, "ses_1", [{ info: assistantMessage("msg_2"), parts: [textPart("prt_0", "step"), textPart("prt_a", "Hel")] }]);
    expect(state.parts.msg_2?.map((part) => [part.id, part.type === "text" ? part.text : ""])).toEqual([
      ["prt_0", "step"],
      ["prt_a", "Hello, wor"],
    ]);
  });

  it("replaces a part on update and removes parts and messages", () => {
    const state = emptyChatState();
    applyEvent(state, event({ type: "message.updated", properties: { sessionID: "ses_1", info: assistantMessage("msg_2") } }));
    applyEvent(state, event({ type: "message.part.updated", properties: { sessionID: "ses_1", part: textPart("prt_a", "draft"), time: 1 } }));
    applyEvent(state, event({ type: "message.part.updated", properties: { sessionID: "ses_1", part: textPart("prt_a", "final"), time: 2 } }));
    expect(state.parts.msg_2).toEqual([textPart("prt_a", "final")]);
    applyEvent(state, event({ type: "message.part.removed", properties: { sessionID: "ses_1", messageID: "msg_2", partID: "prt_a" } }));
    expect(state.parts.msg_2).toEqual([]);
    applyEvent(state, event({ type: "message.removed", properties: { sessionID: "ses_1", messageID: "msg_2" } }));
    expect(state.messages.ses_1).toEqual([]);
    expect(state.parts.msg_2).toBeUndefined();
  });

  it("appends deltas to the named field in order", () => {
    const state = emptyChatState();
    applyEvent(state, event({ type: "message.part.updated", properties: { sessionID: "ses_1", part: textPart("prt_a", ""), time: 1 } }));
    for (const delta of ["Hel", "lo, ", "world"]) {
      applyEvent(state, event({ type: "message.part.delta", properties: { sessionID: "ses_1", messageID: "msg_2", partID: "prt_a", field: "text", delta } }));
    }
    expect(state.parts.msg_2?.[0]).toMatchObject({ text: "Hello, world" });
  });

  it("ignores a delta for a part it has not seen or a field that is not text", () => {
    const state = emptyChatState();
    const unknown = event({ type: "message.part.delta", properties: { sessionID: "ses_1", messageID: "msg_2", partID: "prt_x", field: "text", delta: "x" } });
    expect(applyEvent(state, unknown)).toBe(false);
    const timed: Part = { ...textPart("prt_a", "a"), time: { start: 1 } } as Part;
    applyEvent(state, event({ type: "message.part.updated", properties: { sessionID: "ses_1", part: timed, time: 1 } }));
    const wrongField = event({ type: "message.part.delta", properties: { sessionID: "ses_1", messageID: "msg_2", partID: "prt_a", field: "time", delta: "x" } });
    expect(applyEvent(state, wrongField)).toBe(false);
  });

  it("applies a replayed event only once, so deltas never double", () => {
    const state = emptyChatState();
    const seen = new SeenEvents();
    applyEvent(state, event({ type: "message.part.updated", properties: { sessionID: "ses_1", part: textPart("prt_a", ""), time: 1 } }), seen);
    const delta = event({ type: "message.part.delta", properties: { sessionID: "ses_1", messageID: "msg_2", partID: "prt_a", field: "text", delta: "once" } });
    expect(applyEvent(state, delta, seen)).toBe(true);
    expect(applyEvent(state, delta, seen)).toBe(false);
    expect(state.parts.msg_2?.[0]).toMatchObject({ text: "once" });
  });

  it("forgets the oldest event ids beyond its capacity", () => {
    const seen = new SeenEvents(2);
    expect(seen.firstTime("a")).toBe(true);
    expect(seen.firstTime("b")).toBe(true);
    expect(seen.firstTime("c")).toBe(true);
    expect(seen.firstTime("a")).toBe(true);
    expect(seen.firstTime("c")).toBe(false);
  });

  it("tracks status, idle and errors per session", () => {
    const state = emptyChatState();
    applyEvent(state, event({ type: "session.status", properties: { sessionID: "ses_1", status: { type: "busy" } } }));
    expect(state.status.ses_1).toEqual({ type: "busy" });
    applyEvent(state, event({ type: "session.idle", properties: { sessionID: "ses_1" } }));
    expect(state.status.ses_1).toEqual({ type: "idle" });
    applyEvent(state, event({ type: "session.error", properties: { sessionID: "ses_1", error: { name: "UnknownError", data: { message: "boom" } } } }));
    expect(state.errors.ses_1).toEqual({ name: "UnknownError", data: { message: "boom" } });
    applyEvent(state, event({ type: "session.error", properties: {} }));
    expect(state.errors.ses_1).toBeDefined();
    applyEvent(state, event({ type: "session.status", properties: { sessionID: "ses_1", status: { type: "busy" } } }));
    expect(state.errors.ses_1).toBeUndefined();
  });

  it("records an assistant message's error for its session", () => {
    const state = emptyChatState();
    const failed: Message = { ...assistantMessage("msg_2"), error: { name: "MessageAbortedError", data: { message: "Stopped" } } } as Message;
    applyEvent(state, event({ type: "message.updated", properties: { sessionID: "ses_1", info: failed } }));
    expect(state.errors.ses_1).toEqual({ name: "MessageAbortedError", data: { message: "Stopped" } });
  });

  it("merges a loaded page with live events by id", () => {
    const state = emptyChatState();
    applyEvent(state, event({ type: "message.updated", properties: { sessionID: "ses_1", info: assistantMessage("msg_2") } }));
    loadMessages(state, "ses_1", [{ info: userMessage("msg_1"), parts: [textPart("prt_1", "hi", "msg_1")] }]);
    expect(state.messages.ses_1?.map((message) => message.id)).toEqual(["msg_1", "msg_2"]);
    expect(state.parts.msg_1).toEqual([textPart("prt_1", "hi", "msg_1")]);
  });
});

describe("permission requests", () => {
  it("are kept while asked and dropped once answered", () => {
    const state = emptyChatState();
    const request = { id: "per_1", sessionID: "ses_1", permission: "read", patterns: [".env"], metadata: {}, always: ["*"] };
    applyEvent(state, { id: "evt_p1", type: "permission.asked", properties: request });
    expect(state.permissions.per_1).toEqual(request);
    applyEvent(state, { id: "evt_p2", type: "permission.replied", properties: { sessionID: "ses_1", requestID: "per_1", reply: "once" } });
    expect(state.permissions.per_1).toBeUndefined();
  });
});
