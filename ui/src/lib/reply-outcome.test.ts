import { describe, expect, it } from "vitest";
import type { AssistantError } from "./bindings/AssistantError";
import type { Message } from "./bindings/Message";
import { errorMessage, replyOutcome } from "./reply-outcome";

const reply = (error?: AssistantError): Message => ({
  role: "assistant", id: "msg_2", sessionID: "ses_1", time: { created: 2, completed: 3 }, parentID: "msg_1", modelID: "m", providerID: "p",
  mode: "build", agent: "build", path: { cwd: "/", root: "/" }, cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
  ...(error === undefined ? {} : { error }),
});
const aborted: AssistantError = { name: "MessageAbortedError", data: { message: "The operation was aborted." } };
const failed: AssistantError = { name: "UnknownError", data: { message: "The disk is full" } };

describe("replyOutcome", () => {
  it("calls an aborted reply stopped, not failed", () => {
    expect(replyOutcome(reply(aborted))).toEqual({ kind: "stopped", error: aborted });
  });
  it("calls any other error a failure", () => {
    expect(replyOutcome(reply(failed))).toEqual({ kind: "failed", error: failed });
    expect(replyOutcome(reply({ name: "MessageOutputLengthError", data: {} }))?.kind).toBe("failed");
  });
  it("takes the session's error for a reply that could not record its own", () => {
    expect(replyOutcome(reply(), failed)?.kind).toBe("failed");
    expect(replyOutcome(reply(), aborted)?.kind).toBe("stopped");
    // The reply's own error wins.
    expect(replyOutcome(reply(aborted), failed)?.kind).toBe("stopped");
  });
  it("has nothing to say of a finished reply or a message you sent", () => {
    expect(replyOutcome(reply())).toBeUndefined();
    const user: Message = { role: "user", id: "msg_1", sessionID: "ses_1", time: { created: 1 }, agent: "build", model: { providerID: "p", modelID: "m" } };
    expect(replyOutcome(user, failed)).toBeUndefined();
  });
});

describe("errorMessage", () => {
  it("reads the message, or the name when there is none", () => {
    expect(errorMessage(failed)).toBe("The disk is full");
    expect(errorMessage({ name: "MessageOutputLengthError", data: {} })).toBe("MessageOutputLengthError");
  });
});
