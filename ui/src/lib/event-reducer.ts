// The one place that turns core events into UI state. Both transports deliver the same
// `{id, type, properties}` envelope, so this reducer serves the desktop window and the browser.
// It mutates a draft (a Solid `produce` draft, or a plain object in tests) and is idempotent for
// replayed events: an event id seen before is skipped, so a delta is never appended twice.
import type { AssistantError } from "./bindings/AssistantError";
import type { Event } from "./bindings/Event";
import type { Message } from "./bindings/Message";
import type { MessageWithParts } from "./bindings/MessageWithParts";
import type { Part } from "./bindings/Part";
import type { PermissionRequest } from "./bindings/PermissionRequest";
import type { Session } from "./bindings/Session";
import type { SessionStatus } from "./bindings/SessionStatus";

export interface ChatState {
  sessions: Record<string, Session | undefined>;
  /** Per session, sorted by id (ids sort by creation time). */
  messages: Record<string, Message[] | undefined>;
  /** Per message, sorted by id. */
  parts: Record<string, Part[] | undefined>;
  status: Record<string, SessionStatus | undefined>;
  errors: Record<string, AssistantError | undefined>;
  /** Tool calls waiting for the person's answer, by request id. */
  permissions: Record<string, PermissionRequest | undefined>;
}

export function emptyChatState(): ChatState {
  return { sessions: {}, messages: {}, parts: {}, status: {}, errors: {}, permissions: {} };
}

/** Remembers the ids of recent events so replays (reconnects, resyncs) are applied once. */
export class SeenEvents {
  private readonly order: string[] = [];
  private readonly ids = new Set<string>();

  constructor(private readonly capacity = 4096) {}

  /** True the first time an id is offered. */
  firstTime(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    this.order.push(id);
    if (this.order.length > this.capacity) {
      const oldest = this.order.shift();
      if (oldest !== undefined) this.ids.delete(oldest);
    }
    return true;
  }
}

/** Index of `id` in a list sorted by id, or where it would be inserted. */
function search(list: readonly { id: string }[], id: string): { found: boolean; index: number } {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const candidate = list[middle];
    if (candidate === undefined) break;
    if (candidate.id < id) low = middle + 1;
    else high = middle;
  }
  return { found: list[low]?.id === id, index: low };
}

/** Inserts or replaces by id, keeping the list sorted. */
export function upsertSorted<T extends { id: string }>(list: T[], item: T): void {
  const { found, index } = search(list, item.id);
  if (found) list[index] = item;
  else list.splice(index, 0, item);
}

function removeSorted(list: { id: string }[] | undefined, id: string): void {
  if (list === undefined) return;
  const { found, index } = search(list, id);
  if (found) list.splice(index, 1);
}

function removeMessage(state: ChatState, sessionID: string, messageID: string): void {
  removeSorted(state.messages[sessionID], messageID);
  state.parts[messageID] = undefined;
}

/** Loads a page of messages fetched over the transport (older pages merge in by id). */
export function loadMessages(state: ChatState, sessionID: string, page: readonly MessageWithParts[]): void {
  const messages = state.messages[sessionID] ?? (state.messages[sessionID] = []);
  for (const entry of page) {
    upsertSorted(messages, entry.info);
    const parts = state.parts[entry.info.id] ?? (state.parts[entry.info.id] = []);
    for (const part of entry.parts) upsertSorted(parts, part);
  }
}

/** Applies one event. Returns false when it was a replay and nothing changed. */
export function applyEvent(state: ChatState, event: Event, seen?: SeenEvents): boolean {
  if (seen !== undefined && !seen.firstTime(event.id)) return false;
  switch (event.type) {
    case "session.created":
    case "session.updated":
      state.sessions[event.properties.sessionID] = event.properties.info;
      return true;
    case "session.deleted": {
      const sessionID = event.properties.sessionID;
      for (const message of state.messages[sessionID] ?? []) state.parts[message.id] = undefined;
      state.sessions[sessionID] = undefined;
      state.messages[sessionID] = undefined;
      state.status[sessionID] = undefined;
      state.errors[sessionID] = undefined;
      return true;
    }
    case "session.status":
      state.status[event.properties.sessionID] = event.properties.status;
      return true;
    case "session.idle":
      state.status[event.properties.sessionID] = { type: "idle" };
      return true;
    case "session.error": {
      const { sessionID, error } = event.properties;
      if (sessionID !== undefined) state.errors[sessionID] = error;
      return true;
    }
    case "message.updated": {
      const { sessionID, info } = event.properties;
      const messages = state.messages[sessionID] ?? (state.messages[sessionID] = []);
      upsertSorted(messages, info);
      if (info.role === "assistant" && info.error !== undefined) state.errors[sessionID] = info.error;
      return true;
    }
    case "message.removed":
      removeMessage(state, event.properties.sessionID, event.properties.messageID);
      return true;
    case "message.part.updated": {
      const part = event.properties.part;
      const parts = state.parts[part.messageID] ?? (state.parts[part.messageID] = []);
      upsertSorted(parts, part);
      return true;
    }
    case "message.part.removed":
      removeSorted(state.parts[event.properties.messageID], event.properties.partID);
      return true;
    case "permission.asked":
      state.permissions[event.properties.id] = event.properties;
      return true;
    case "permission.replied":
      state.permissions[event.properties.requestID] = undefined;
      return true;
    case "message.part.delta": {
      const { messageID, partID, field, delta } = event.properties;
      const parts = state.parts[messageID];
      if (parts === undefined) return false;
      const { found, index } = search(parts, partID);
      const part = parts[index];
      if (!found || part === undefined) return false;
      const current: unknown = Reflect.get(part, field);
      if (current !== undefined && typeof current !== "string") return false;
      Reflect.set(part, field, (current ?? "") + delta);
      return true;
    }
  }
}
