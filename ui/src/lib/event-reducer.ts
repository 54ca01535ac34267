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
  /** Per session, in the ledger's listing order (oldest first). */
  messages: Record<string, Message[] | undefined>;
  /** Per message, in the ledger's listing order. */
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

/**
 * Inserts or replaces by id. Lists keep the ledger's listing order (its `seq`), not id order:
 * a known item is replaced where it stands, a new one arrives last, because live events only
 * ever bring the newest message or part.
 */
export function upsertInOrder<T extends { id: string }>(list: T[], item: T): void {
  const index = list.findIndex((existing) => existing.id === item.id);
  if (index >= 0) list[index] = item;
  else list.push(item);
}

function removeById(list: { id: string }[] | undefined, id: string): void {
  if (list === undefined) return;
  const index = list.findIndex((existing) => existing.id === id);
  if (index >= 0) list.splice(index, 1);
}

function removeMessage(state: ChatState, sessionID: string, messageID: string): void {
  removeById(state.messages[sessionID], messageID);
  state.parts[messageID] = undefined;
}

/**
 * Puts a page in listing order in front of what is already known: pages are fetched newest first,
 * so a page is older than everything loaded before it, and messages that live events brought in
 * meanwhile are newer still. Items in both keep their place from the page and the copy that live
 * events kept up to date (a page fetched before the last delta would be stale).
 */
function mergePage<T extends { id: string }>(known: readonly T[], page: readonly T[]): T[] {
  const fresh = new Map(known.map((item) => [item.id, item]));
  const merged = page.map((item) => fresh.get(item.id) ?? item);
  const inPage = new Set(page.map((item) => item.id));
  return [...merged, ...known.filter((item) => !inPage.has(item.id))];
}

/** Loads a page of messages fetched over the transport, oldest first (older pages go in front). */
export function loadMessages(state: ChatState, sessionID: string, page: readonly MessageWithParts[]): void {
  state.messages[sessionID] = mergePage(state.messages[sessionID] ?? [], page.map((entry) => entry.info));
  for (const entry of page) {
    state.parts[entry.info.id] = mergePage(state.parts[entry.info.id] ?? [], entry.parts);
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
      // A new run starts: an error of an earlier one no longer explains anything.
      if (event.properties.status.type === "busy") state.errors[event.properties.sessionID] = undefined;
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
      upsertInOrder(messages, info);
      if (info.role === "assistant" && info.error !== undefined) state.errors[sessionID] = info.error;
      return true;
    }
    case "message.removed":
      removeMessage(state, event.properties.sessionID, event.properties.messageID);
      return true;
    case "message.part.updated": {
      const part = event.properties.part;
      const parts = state.parts[part.messageID] ?? (state.parts[part.messageID] = []);
      upsertInOrder(parts, part);
      return true;
    }
    case "message.part.removed":
      removeById(state.parts[event.properties.messageID], event.properties.partID);
      return true;
    case "permission.asked":
      state.permissions[event.properties.id] = event.properties;
      return true;
    case "permission.replied":
      state.permissions[event.properties.requestID] = undefined;
      return true;
    // MCP server statuses are not part of a chat's state; the chat view has nothing to redraw.
    case "mcp.status":
    case "dossier.model.download":
      // Settings' own listeners follow these; the chat state does not change.
      return false;
    case "message.part.delta": {
      const { messageID, partID, field, delta } = event.properties;
      const parts = state.parts[messageID];
      if (parts === undefined) return false;
      const part = parts.find((candidate) => candidate.id === partID);
      if (part === undefined) return false;
      const current: unknown = Reflect.get(part, field);
      if (current !== undefined && typeof current !== "string") return false;
      Reflect.set(part, field, (current ?? "") + delta);
      return true;
    }
  }
}
