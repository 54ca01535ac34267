// How a reply ended, as the person sees it. A reply the person stopped (or one the app closed
// under) is recorded by the core as `MessageAbortedError`, OpenCode's wire shape for an abort:
// that is not a failure, so it is marked quietly as stopped, its text kept, with Continue and
// Regenerate. Any other error is a failure, shown as one, with Retry.
import type { AssistantError } from "./bindings/AssistantError";
import type { Message } from "./bindings/Message";

export type ReplyOutcome =
  | { kind: "stopped"; error: AssistantError }
  | { kind: "failed"; error: AssistantError };

/**
 * `unrecordedError` is the session's error for a reply that could not record its own (shown
 * under it all the same). Undefined for a message you sent and a reply that finished well.
 */
export function replyOutcome(message: Message, unrecordedError?: AssistantError): ReplyOutcome | undefined {
  if (message.role !== "assistant") return undefined;
  const error = message.error ?? unrecordedError;
  if (error === undefined) return undefined;
  return error.name === "MessageAbortedError" ? { kind: "stopped", error } : { kind: "failed", error };
}

/** The human-readable message of an assistant error; its name when it carries none. */
export function errorMessage(error: AssistantError): string {
  const message: unknown = Reflect.get(error.data, "message");
  return typeof message === "string" ? message : error.name;
}
