// An in-memory Backend for UI tests: keeps sessions and messages, publishes the same events the
// core would, and fails a prompt that wants a reply with the core's `unavailable` error.
import type { EventPayload } from "../bindings/EventPayload";
import type { Message } from "../bindings/Message";
import type { MessageWithParts } from "../bindings/MessageWithParts";
import type { Part } from "../bindings/Part";
import type { SearchResult } from "../bindings/SearchResult";
import type { ProviderSetting } from "../bindings/ProviderSetting";
import type { ProviderSettings } from "../bindings/ProviderSettings";
import type { Session } from "../bindings/Session";
import type { DragHover } from "../shell-bindings/DragHover";
import type { DroppedFile } from "../shell-bindings/DroppedFile";
import { operations } from "../shell-bindings/operations";
import { type Backend, BackendError, type ConnectionState, type EventHandlers } from "../transport";

export interface FakeBackend extends Backend {
  readonly calls: { command: string; argument: unknown }[];
  drop(files: DroppedFile[]): void;
  hover(state: DragHover): void;
  publish(payload: EventPayload): void;
  /** Reports the event stream lost or back, as a browser's would. */
  connection(state: ConnectionState): void;
  /** From now on, saving a key fails as on a computer without a keychain. */
  setKeychainUnavailable(reason: string): void;
  /** From now on, opening a link fails as on a computer with no browser to hand it to. */
  setBrowserMissing(reason: string): void;
}

export function session(id: string, title: string, updated: number): Session {
  return {
    id,
    slug: id,
    projectID: "global",
    directory: "/home/ada",
    path: "",
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    title,
    version: "0.1.0",
    time: { created: updated, updated },
    pinned: false,
  };
}

export function fakeBackend(initial: Session[] = []): FakeBackend {
  const sessions = new Map(initial.map((item) => [item.id, item]));
  const messages = new Map<string, MessageWithParts[]>();
  const calls: { command: string; argument: unknown }[] = [];
  // Every subscriber hears every event, as with the real transports (the app and, say, an open
  // settings section listen at once).
  const handlers = new Set<EventHandlers>();
  let dropHandlers: [(state: DragHover) => void, (files: DroppedFile[]) => void] | undefined;
  let counter = 100;
  const next = (prefix: string) => `${prefix}_${String(++counter).padStart(6, "0")}`;
  const publish = (payload: EventPayload) => {
    const event = { id: next("evt"), ...payload };
    for (const handler of handlers) handler.onEvent(event);
  };
  /** Sets or clears the revert marker and publishes the change, as the core does. */
  const marked = (id: string, revert: Session["revert"]) => {
    const current = sessions.get(id);
    if (current === undefined) return Promise.reject(new BackendError({ kind: "not_found", message: `Session not found: ${id}` }));
    const updated: Session = { ...current };
    if (revert === undefined) delete updated.revert;
    else updated.revert = revert;
    sessions.set(id, updated);
    publish({ type: "session.updated", properties: { sessionID: id, info: updated } });
    return Promise.resolve(updated);
  };
  const providers = new Map<string, ProviderSetting>();
  let keychainReason: string | undefined;
  let browserMissing: string | undefined;
  const settingsNow = (): ProviderSettings => ({
    providers: [...providers.values()],
    configPath: "/home/ada/.config/dossier/dossier.json",
    keychain: keychainReason === undefined ? { available: true } : { available: false, reason: keychainReason },
  });
  const sorted = () => [...sessions.values()].sort((a, b) => b.time.updated - a.time.updated);

  return {
    transport: "tauri",
    // Declared operations are recorded by their command name and answered `unavailable`: this
    // fake keeps no reply loop or MCP servers for them to act on.
    operations: operations((operation) => {
      calls.push({ command: operation.command, argument: operation.args });
      return Promise.reject(new BackendError({ kind: "unavailable", message: `${operation.command} is not kept by the fake backend` }));
    }),
    calls,
    publish,
    connection: (state) => {
      for (const handler of handlers) handler.onConnection?.(state);
    },
    drop: (files) => dropHandlers?.[1](files),
    hover: (state) => dropHandlers?.[0](state),
    listSessions: (request) => {
      calls.push({ command: "listSessions", argument: request });
      const search = request.search?.toLowerCase();
      const found = sorted().filter(
        (item) =>
          (request.archived === true || item.time.archived === undefined) &&
          (search === undefined || item.title.toLowerCase().includes(search)) &&
          (request.pinned !== true || item.pinned === true),
      );
      // Pages like the ledger: `limit` at a time, the cursor being where the next page starts.
      const start = Number(request.cursor ?? 0);
      const end = request.limit === undefined ? found.length : start + request.limit;
      return Promise.resolve({ sessions: found.slice(start, end), nextCursor: end < found.length ? String(end) : null });
    },
    createSession: () => {
      const created = session(next("ses"), "New session", 10_000 + counter);
      sessions.set(created.id, created);
      publish({ type: "session.created", properties: { sessionID: created.id, info: created } });
      return Promise.resolve(created);
    },
    updateSession: (id, patch) => {
      const current = sessions.get(id);
      if (current === undefined) return Promise.reject(new BackendError({ kind: "not_found", message: `Session not found: ${id}` }));
      const updated = {
        ...current,
        ...(patch.title === undefined || patch.title === null ? {} : { title: patch.title }),
        ...(patch.pinned === undefined || patch.pinned === null ? {} : { pinned: patch.pinned }),
      };
      sessions.set(id, updated);
      return Promise.resolve(updated);
    },
    archiveSession: (id, archived) => {
      const current = sessions.get(id);
      if (current === undefined) return Promise.reject(new BackendError({ kind: "not_found", message: id }));
      const time = { created: current.time.created, updated: current.time.updated };
      const updated = { ...current, time: archived ? { ...time, archived: 1 } : time };
      sessions.set(id, updated);
      return Promise.resolve(updated);
    },
    deleteSession: (id) => {
      calls.push({ command: "deleteSession", argument: id });
      sessions.delete(id);
      return Promise.resolve();
    },
    deleteMessage: (id, messageID) => {
      calls.push({ command: "deleteMessage", argument: { id, messageID } });
      const all = messages.get(id) ?? [];
      if (!all.some((entry) => entry.info.id === messageID)) {
        return Promise.reject(new BackendError({ kind: "not_found", message: `Message not found: ${messageID} in session ${id}` }));
      }
      messages.set(id, all.filter((entry) => entry.info.id !== messageID));
      publish({ type: "message.removed", properties: { sessionID: id, messageID } });
      return Promise.resolve();
    },
    listMessages: (id, limit, before) => {
      calls.push({ command: "listMessages", argument: { id, limit, before } });
      // Pages newest first like the ledger, each page oldest first; the cursor is the oldest id.
      const all = messages.get(id) ?? [];
      const end = before === undefined ? all.length : all.findIndex((entry) => entry.info.id === before);
      const start = Math.max(0, end - limit);
      const page = all.slice(start, end);
      return Promise.resolve({ messages: page, nextCursor: start > 0 ? (page[0]?.info.id ?? null) : null });
    },
    sendPrompt: (id, input) => {
      calls.push({ command: "sendPrompt", argument: { id, input } });
      // Like the core's revert clean-up: a prompt removes the undone messages for good first.
      const current = sessions.get(id);
      if (current?.revert !== undefined) {
        const all = messages.get(id) ?? [];
        const cut = all.findIndex((entry) => entry.info.id === current.revert?.messageID);
        if (cut !== -1) {
          messages.set(id, all.slice(0, cut));
          for (const entry of all.slice(cut)) publish({ type: "message.removed", properties: { sessionID: id, messageID: entry.info.id } });
        }
        void marked(id, undefined);
      }
      const messageID = next("msg");
      const info: Message = { role: "user", id: messageID, sessionID: id, time: { created: counter }, agent: input.agent ?? "build", model: { providerID: "dossier", modelID: "offline" } };
      const parts: Part[] = input.parts.map((draft) => ({ ...draft, id: next("prt"), sessionID: id, messageID }));
      messages.set(id, [...(messages.get(id) ?? []), { info, parts }]);
      publish({ type: "message.updated", properties: { sessionID: id, info } });
      for (const part of parts) publish({ type: "message.part.updated", properties: { sessionID: id, part, time: counter } });
      if (input.noReply === true) return Promise.resolve({ info, parts });
      return Promise.reject(new BackendError({ kind: "unavailable", message: "Dossier saved your message, but replies are not available in this build yet" }));
    },
    replyPermission: (sessionID, requestID, reply) => {
      calls.push({ command: "replyPermission", argument: { sessionID, requestID, reply } });
      publish({ type: "permission.replied", properties: { sessionID, requestID, reply } });
      return Promise.resolve();
    },
    listAgents: () =>
      Promise.resolve([
        { name: "build", mode: "primary", native: true, hidden: false, permission: [], options: {} },
        { name: "plan", mode: "primary", native: true, hidden: false, permission: [], options: {} },
        { name: "explore", mode: "subagent", native: true, hidden: false, permission: [], options: {}, description: "Searches the files" },
      ]),
    listModels: () => {
      calls.push({ command: "listModels", argument: undefined });
      return Promise.resolve({
        providers: [
          ...[...providers.values()].map((provider) => ({
            id: provider.id,
            name: provider.name ?? provider.id,
            models: provider.models.map((id) => ({ id, providerID: provider.id, name: id, variants: [], attachment: false, reasoning: false, tool_call: true })),
          })),
          { id: "dossier", name: "Dossier", models: [{ id: "offline", providerID: "dossier", name: "Offline", variants: [], attachment: false, reasoning: false, tool_call: false }] },
        ],
      });
    },
    pickFiles: () => Promise.resolve([]),
    mediaUrl: (url) => (url.startsWith("data:") ? url : undefined),
    openLink: (url) => {
      calls.push({ command: "openLink", argument: url });
      if (browserMissing !== undefined) {
        return Promise.reject(new BackendError({ kind: "internal", message: `Could not open ${url}: ${browserMissing}` }));
      }
      return Promise.resolve();
    },
    subscribe: (given) => {
      handlers.add(given);
      return () => {
        handlers.delete(given);
      };
    },
    search: (query) => {
      calls.push({ command: "search", argument: query });
      const needle = query.text.trim().toLowerCase();
      if (needle === "") return Promise.reject(new BackendError({ kind: "invalid", message: "type something to search for" }));
      const cut = (text: string) => {
        const at = text.toLowerCase().indexOf(needle);
        if (at < 0) return undefined;
        return [
          { text: text.slice(0, at), highlighted: false },
          { text: text.slice(at, at + needle.length), highlighted: true },
          { text: text.slice(at + needle.length), highlighted: false },
        ].filter((piece) => piece.text !== "");
      };
      const results: SearchResult[] = [];
      for (const item of sorted()) {
        if (query.sessionID !== undefined && item.id !== query.sessionID) continue;
        if (!query.include_archived && item.time.archived !== undefined) continue;
        const excerpts: SearchResult["excerpts"] = [];
        const title = cut(item.title);
        if (title !== undefined) excerpts.push({ field: "title", pieces: title });
        for (const entry of [...(messages.get(item.id) ?? [])].reverse()) {
          for (const part of entry.parts) {
            const pieces = part.type === "text" ? cut(part.text) : undefined;
            if (pieces !== undefined) excerpts.push({ field: "text", messageID: entry.info.id, partID: part.id, pieces });
          }
        }
        if (excerpts.length > 0) results.push({ session: item, excerpts: excerpts.slice(0, query.sessionID === undefined ? 3 : (query.limit ?? 20)) });
      }
      return Promise.resolve(results);
    },
    fileSymbols: (path) => {
      calls.push({ command: "fileSymbols", argument: path });
      if (!path.endsWith(".py")) return Promise.resolve([]);
      return Promise.resolve([
        { name: "Shape", kind: "class", line: 3, endLine: 12, children: [{ name: "area", kind: "method", line: 4, endLine: 6, children: [] }] },
        { name: "main", kind: "function", line: 14, endLine: 20, children: [] },
      ]);
    },
    onNativeDrop: (hover, dropped) => {
      dropHandlers = [hover, dropped];
      return () => {
        dropHandlers = undefined;
      };
    },
    forkSession: (id, messageID) => {
      calls.push({ command: "forkSession", argument: { id, messageID } });
      const source = sessions.get(id);
      if (source === undefined) return Promise.reject(new BackendError({ kind: "not_found", message: `Session not found: ${id}` }));
      const fork = session(next("ses"), `${source.title} (fork #1)`, 10_000 + counter);
      sessions.set(fork.id, fork);
      const all = messages.get(id) ?? [];
      const cut = messageID === undefined ? all.length : all.findIndex((message) => message.info.id === messageID);
      messages.set(fork.id, all.slice(0, cut === -1 ? all.length : cut).map((message) => ({ ...message, info: { ...message.info, sessionID: fork.id } })));
      publish({ type: "session.created", properties: { sessionID: fork.id, info: fork } });
      return Promise.resolve(fork);
    },
    revertSession: (id, messageID) => {
      calls.push({ command: "revertSession", argument: { id, messageID } });
      return marked(id, { messageID });
    },
    unrevertSession: (id) => {
      calls.push({ command: "unrevertSession", argument: id });
      return marked(id, undefined);
    },
    resendMessage: (id, messageID, text) => {
      calls.push({ command: "resendMessage", argument: { id, messageID, text } });
      return Promise.reject(new BackendError({ kind: "unavailable", message: "Dossier saved your message, but replies are not available in this build yet" }));
    },
    regenerateReply: (id, messageID) => {
      calls.push({ command: "regenerateReply", argument: { id, messageID } });
      return Promise.reject(new BackendError({ kind: "busy", message: "The session is replying; wait for it to finish or stop it" }));
    },
    exportSession: (id, format) => {
      calls.push({ command: "exportSession", argument: { id, format } });
      return Promise.resolve({ outcome: "saved", path: `/home/ada/${id}.${format === "json" ? "json" : "md"}` });
    },
    importWithDialog: () => {
      calls.push({ command: "importWithDialog", argument: undefined });
      const imported = session(next("ses"), "Imported", 10_000 + counter);
      sessions.set(imported.id, imported);
      publish({ type: "session.created", properties: { sessionID: imported.id, info: imported } });
      return Promise.resolve(imported);
    },
    // Providers in memory; the hint imitates the core's (which tests in Rust pin down).
    readSettings: () => Promise.resolve(settingsNow()),
    readStorageUse: () => Promise.resolve({ dataFolder: "/home/ada/.local/share/dossier", bytes: 3_460_300 }),
    saveProvider: (input) => {
      calls.push({ command: "saveProvider", argument: { ...input, apiKey: input.apiKey === undefined ? undefined : "<typed>" } });
      if (keychainReason !== undefined && input.apiKey !== undefined) {
        return Promise.reject(new BackendError({ kind: "unavailable", message: `No keychain is available to store the key: ${keychainReason}` }));
      }
      const key = input.apiKey === undefined ? providers.get(input.id)?.key : { source: "keychain" as const, hint: `…${input.apiKey.slice(-4)}` };
      providers.set(input.id, {
        id: input.id,
        npm: input.npm,
        models: input.models,
        editable: true,
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.baseURL === undefined ? {} : { baseURL: input.baseURL }),
        ...(key === undefined ? {} : { key }),
      });
      return Promise.resolve(settingsNow());
    },
    removeProvider: (id) => {
      calls.push({ command: "removeProvider", argument: id });
      providers.delete(id);
      return Promise.resolve(settingsNow());
    },
    removeProviderKey: (id) => {
      const current = providers.get(id);
      if (current !== undefined) {
        const rest: ProviderSetting = { ...current };
        delete rest.key;
        providers.set(id, rest);
      }
      return Promise.resolve(settingsNow());
    },
    setKeychainUnavailable: (reason) => {
      keychainReason = reason;
    },
    setBrowserMissing: (reason) => {
      browserMissing = reason;
    },
  };
}
