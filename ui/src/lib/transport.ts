// The one module that knows how the UI reaches the Dossier core: over Tauri IPC inside the
// desktop window, or over HTTP + SSE (OpenCode's routes) when the same UI is opened in a browser.
// Everything else talks to a `Backend` and never learns which one it got.
import type { Agent } from "./bindings/Agent";
import type { PermissionReply } from "./bindings/PermissionReply";
import type { CreateSession } from "./bindings/CreateSession";
import type { ErrorBody } from "./bindings/ErrorBody";
import type { ResponseKind } from "./bindings/ResponseKind";
import type { Event } from "./bindings/Event";
import type { MessageWithParts } from "./bindings/MessageWithParts";
import type { ModelCatalog } from "./bindings/ModelCatalog";
import type { PromptInput } from "./bindings/PromptInput";
import type { ProviderInput } from "./bindings/ProviderInput";
import type { ProviderSettings } from "./bindings/ProviderSettings";
import type { McpServerInput } from "./bindings/McpServerInput";
import type { McpSettings } from "./bindings/McpSettings";
import type { McpStatus } from "./bindings/McpStatus";
import type { McpPromptItem } from "./bindings/McpPromptItem";
import type { McpPromptText } from "./bindings/McpPromptText";
import type { McpResourceItem } from "./bindings/McpResourceItem";
import type { McpToolPermission } from "./bindings/McpToolPermission";
import type { StorageUse } from "./bindings/StorageUse";
import type { Session } from "./bindings/Session";
import type { SessionPatch } from "./bindings/SessionPatch";
import type { SearchQuery } from "./bindings/SearchQuery";
import type { SearchResult } from "./bindings/SearchResult";
import type { DocumentSymbol } from "./bindings/DocumentSymbol";
import type { DragHover } from "./shell-bindings/DragHover";
import type { ExportFormat } from "./shell-bindings/ExportFormat";
import type { ExportOutcome } from "./shell-bindings/ExportOutcome";
import type { DroppedFile } from "./shell-bindings/DroppedFile";
import type { MessagePage } from "./bindings/MessagePage";
import type { SessionPage } from "./bindings/SessionPage";
import type { EventName } from "./shell-bindings/EventName";
import type { StreamState } from "./shell-bindings/StreamState";
import type { SessionListQuery } from "./bindings/SessionListQuery";
import type { Operations } from "./shell-bindings/operations";
import type { InstalledModel } from "./bindings/InstalledModel";

/**
 * How the UI talks to the core: Tauri IPC to this computer's ledger, HTTP from a browser, or
 * (`attached`) the desktop window relaying HTTP through its shell to a Dossier server.
 */
export type Transport = "tauri" | "http" | "attached";

/**
 * Tells whether we run inside a Tauri webview. Tauri injects `__TAURI_INTERNALS__` into every
 * page it loads (whether or not `withGlobalTauri` is set), and a browser never has it.
 *
 * `scope` defaults to the global object; tests pass their own.
 */
export function detectTransport(scope: object = globalThis): Exclude<Transport, "attached"> {
  const internals: unknown = Reflect.get(scope, "__TAURI_INTERNALS__");
  return typeof internals === "object" && internals !== null ? "tauri" : "http";
}

/** A failed call, with the adapters' closed set of kinds (`unavailable`, `not_found`, …). */
export class BackendError extends Error {
  readonly kind: ResponseKind | "network";

  constructor(body: { kind: ResponseKind | "network"; message: string }) {
    super(body.message);
    this.name = "BackendError";
    this.kind = body.kind;
  }
}

// Every kind a failure can carry (the core's `ErrorKind` and the server's own, `ResponseKind`
// in Rust). Typed by the generated union, so the compiler refuses a list missing one or naming
// one Rust does not have.
const responseKinds: Readonly<Record<ResponseKind, true>> = {
  not_found: true,
  invalid: true,
  conflict: true,
  busy: true,
  unavailable: true,
  internal: true,
  not_implemented: true,
  method_not_allowed: true,
  unauthorized: true,
  too_large: true,
  misdirected: true,
  forbidden_origin: true,
  unsupported_media_type: true,
  read_only: true,
};

function isResponseKind(kind: string): kind is ResponseKind {
  return Object.hasOwn(responseKinds, kind);
}

/** Turns whatever a call rejected with into a `BackendError`. */
export function toBackendError(error: unknown): BackendError {
  if (error instanceof BackendError) return error;
  if (typeof error === "object" && error !== null) {
    const kind: unknown = Reflect.get(error, "kind");
    const message: unknown = Reflect.get(error, "message");
    if (typeof kind === "string" && typeof message === "string") {
      return new BackendError({ kind: isResponseKind(kind) ? kind : "internal", message });
    }
  }
  return new BackendError({ kind: "network", message: error instanceof Error ? error.message : String(error) });
}

export interface EventHandlers {
  onEvent: (event: Event) => void;
  /** Events were lost (a lagging forwarder, a reconnect after a gap): reload what is shown. */
  onResync: () => void;
  /** Whether the event stream reaches the server: lost when it drops, back when it reopens. */
  onConnection?: (state: ConnectionState) => void;
}

/**
 * The desktop app's core is in-process and always reachable; a browser's server may go away.
 * `refused`: the server the desktop window is attached to answered, and no longer accepts this
 * computer's access token (the shell's `StreamState`); waiting will not fix that.
 */
export type ConnectionState = StreamState;

export interface Backend {
  readonly transport: Transport;
  /**
   * The declared operations (`src-tauri/core/src/operations.rs`), through this transport: the
   * generated client, the same for every backend. The methods below that are declared
   * operations are made from it once, in `declaredCalls` and `declaredMcp`; the others are
   * written per transport.
   */
  readonly operations: Operations;
  /** The Dossier server the desktop window is attached to (`attached` only), for the sidebar. */
  readonly server?: string;
  /** The sidebar's sessions (never sub-sessions), newest first, a page at a time. */
  listSessions(request: Omit<SessionListQuery, "roots">): Promise<SessionPage>;
  /** Sub-sessions of a session (agents that ran as subtasks), oldest first. */
  readonly listChildSessions?: (sessionID: string) => Promise<Session[]>;
  createSession(input: CreateSession): Promise<Session>;
  updateSession(sessionID: string, patch: SessionPatch): Promise<Session>;
  archiveSession(sessionID: string, archived: boolean): Promise<Session>;
  deleteSession(sessionID: string): Promise<void>;
  /** A message and its parts, for good; refused with `busy` while the session replies. */
  deleteMessage(sessionID: string, messageID: string): Promise<void>;
  listMessages(sessionID: string, limit: number, before?: string): Promise<MessagePage>;
  sendPrompt(sessionID: string, input: PromptInput): Promise<MessageWithParts>;
  /** Stops a streaming reply; absent where the build cannot stop one yet. */
  readonly abort?: (sessionID: string) => Promise<void>;
  /** Answers a tool's request for permission (the run waits until then). */
  replyPermission(sessionID: string, requestID: string, reply: PermissionReply): Promise<void>;
  listAgents(): Promise<Agent[]>;
  listModels(): Promise<ModelCatalog>;
  /**
   * "Add a model file…": the native open dialog, then the file is checked and added to the
   * models folder; `undefined` when closed. Desktop only (a browser cannot give a path).
   */
  readonly addModelFileWithDialog?: () => Promise<InstalledModel | undefined>;
  /** The native file dialog; `undefined` in a browser, where a file input is used instead. */
  readonly pickFiles?: () => Promise<DroppedFile[]>;
  subscribe(handlers: EventHandlers): () => void;
  /** Opens an http/https link outside the app: the system browser, or a new browser tab. */
  openLink(url: string): Promise<void>;
  /** Where the webview can load an attachment's bytes (`data:` as is, stored blobs by hash). */
  mediaUrl(url: string): string | undefined;
  /** Native drag and drop (desktop only): hover state and the classified dropped files. */
  readonly onNativeDrop?: (hover: (state: DragHover) => void, dropped: (files: DroppedFile[]) => void) => () => void;

  // Reshaping (lib/reshaping.ts): each refused with `busy` while the session replies.
  /** A new session with the messages before `messageID` (all of them when absent). */
  forkSession(sessionID: string, messageID?: string): Promise<Session>;
  /** Undo: hides `messageID` and what follows until redo or the next prompt. */
  revertSession(sessionID: string, messageID: string): Promise<Session>;
  /** Redo everything. */
  unrevertSession(sessionID: string): Promise<Session>;
  /** Edit and resend a message you sent (its attachments go again); resolves with the reply. */
  resendMessage(sessionID: string, messageID: string, text: string): Promise<MessageWithParts>;
  /** Answers again the message behind reply `messageID`. */
  regenerateReply(sessionID: string, messageID: string): Promise<MessageWithParts>;
  /** Desktop: the save dialog, then the file; browser: a download. */
  exportSession(sessionID: string, format: ExportFormat): Promise<ExportOutcome>;
  /** Desktop: the open dialog picks the file; `undefined` when it was closed. */
  readonly importWithDialog?: () => Promise<Session | undefined>;
  /** Browser: a file the person chose with a file input. */
  readonly importFile?: (file: File) => Promise<Session>;
  /**
   * The outline of a text file on this machine (a dropped or picked one on the desktop), for the
   * chip's symbol picker; `[]` when Dossier has no grammar for it. Absent where chips are never
   * `file:` URLs (attached to a server).
   */
  readonly fileSymbols?: (path: string) => Promise<DocumentSymbol[]>;
  /** Full-text search over every session's content, or one session's (`sessionID`). */
  search(query: SearchQuery): Promise<SearchResult[]>;
  /** The settings view's providers (key hints only). Desktop only: keys go to the OS keychain. */
  readSettings(): Promise<ProviderSettings>;
  /** Adds or changes a provider; a new key goes to the keychain. The model catalog follows. */
  saveProvider(input: ProviderInput): Promise<ProviderSettings>;
  removeProvider(providerID: string): Promise<ProviderSettings>;
  removeProviderKey(providerID: string): Promise<ProviderSettings>;
  /** How much room the sessions take, and in which folder. Desktop only. */
  readonly readStorageUse?: () => Promise<StorageUse>;
  /** Tells the desktop app the window is usable (its launch-time log line); absent in a browser. */
  readonly reportInteractive?: () => void;
  /** MCP servers (Settings → MCP servers); absent where the backend has none (UI test fakes). */
  readonly mcp?: McpBackend;
}

/** MCP servers: their statuses and lifecycle, the settings view's list and form, the import. */
export interface McpBackend {
  /** Every configured server's status, in the config's order. */
  statuses(): Promise<[string, McpStatus][]>;
  connect(name: string): Promise<void>;
  disconnect(name: string): Promise<void>;
  restart(name: string): Promise<void>;
  settings(): Promise<McpSettings>;
  /** Adds or changes a server; typed values go to the keychain. The server follows at once. */
  save(input: McpServerInput): Promise<McpSettings>;
  remove(name: string): Promise<McpSettings>;
  /** Desktop: the open dialog picks Claude Desktop's config; `undefined` when it was closed. */
  readonly importWithDialog?: () => Promise<McpSettings | undefined>;
  /** Browser: the text of the file the person chose with a file input. */
  readonly importText?: (text: string) => Promise<McpSettings>;
  /** Connected servers' resources, for the composer's resource picker. */
  resources(): Promise<McpResourceItem[]>;
  /** Connected servers' prompts, for the composer's `/` menu. */
  prompts(): Promise<McpPromptItem[]>;
  /** A prompt fetched from its server with `args`, as the text that goes into the message. */
  promptText(clientName: string, name: string, args: Record<string, string>): Promise<McpPromptText>;
  /** Connected servers' tools with their "Always allow" switches. */
  toolPermissions(): Promise<McpToolPermission[]>;
  /** Turns "Always allow" for the tool `name` (`<server>_<tool>`) on or off in the config file. */
  setAlwaysAllowed(name: string, allowed: boolean): Promise<McpToolPermission[]>;
}

/** The backend's calls that are declared operations, through the generated client. */
export function declaredCalls(
  client: Operations,
): Pick<
  Backend,
  | "listSessions"
  | "listChildSessions"
  | "updateSession"
  | "archiveSession"
  | "deleteSession"
  | "deleteMessage"
  | "abort"
  | "replyPermission"
  | "listAgents"
  | "forkSession"
  | "revertSession"
  | "unrevertSession"
  | "resendMessage"
  | "regenerateReply"
  | "search"
> {
  return {
    listSessions: (request) => client.listSessions({ roots: true, ...request }),
    listChildSessions: (sessionID) => client.childSessions(sessionID),
    updateSession: (sessionID, patch) => client.updateSession(sessionID, patch),
    // The ledger stamps the time with its own clock, whichever transport asks.
    archiveSession: (sessionID, archived) => client.archiveSession(sessionID, { archived }),
    deleteSession: (sessionID) => client.deleteSession(sessionID),
    deleteMessage: (sessionID, messageID) => client.deleteMessage(sessionID, messageID),
    abort: (sessionID) => client.abortReply(sessionID),
    replyPermission: (sessionID, requestID, reply) => client.replyPermission(sessionID, requestID, { response: reply }),
    listAgents: () => client.listAgents(),
    forkSession: (sessionID, messageID) => client.forkSession(sessionID, messageID === undefined ? {} : { messageID }),
    revertSession: (sessionID, messageID) => client.revertSession(sessionID, { messageID }),
    unrevertSession: (sessionID) => client.unrevertSession(sessionID),
    resendMessage: (sessionID, messageID, text) => client.resendMessage(sessionID, messageID, { text }),
    regenerateReply: (sessionID, messageID) => client.regenerateReply(sessionID, messageID),
    search: (query) =>
      client.search({
        q: query.text,
        ...(query.limit === undefined ? {} : { limit: query.limit }),
        ...(query.offset === undefined ? {} : { offset: query.offset }),
        // Only when asked, so the query string stays as short as before.
        ...(query.include_archived ? { archived: true } : {}),
        ...(query.sessionID === undefined ? {} : { sessionID: query.sessionID }),
      }),
  };
}

/** The MCP calls that are declared operations, through the generated client. */
export function declaredMcp(
  client: Operations,
): Pick<
  McpBackend,
  "statuses" | "connect" | "disconnect" | "restart" | "settings" | "save" | "remove" | "resources" | "prompts" | "promptText" | "toolPermissions" | "setAlwaysAllowed"
> {
  return {
    // An object in the config's order; a server that has none yet is left out.
    statuses: async () =>
      Object.entries(await client.mcpStatus()).flatMap(([name, status]): [string, McpStatus][] => (status === undefined ? [] : [[name, status]])),
    connect: (name) => client.connectMcp(name),
    disconnect: (name) => client.disconnectMcp(name),
    restart: (name) => client.restartMcp(name),
    settings: () => client.mcpSettings(),
    save: (input) => client.saveMcpServer(input),
    remove: (name) => client.removeMcpServer(name),
    resources: () => client.mcpResources(),
    prompts: () => client.mcpPrompts(),
    promptText: (clientName, name, args) => client.mcpPromptText({ clientName, name, arguments: args }),
    toolPermissions: () => client.mcpToolPermissions(),
    setAlwaysAllowed: (name, allowed) => client.setMcpToolAlwaysAllowed(name, { alwaysAllowed: allowed }),
  };
}

/** What a backend without settings (the browser) answers to every settings call. */
export function settingsUnavailable(): Promise<never> {
  return Promise.reject(new BackendError({ kind: "unavailable", message: "Settings are available in the desktop app" }));
}

/** Event names the desktop shell emits (Tauri forbids dots, so core events share one name). */
export const tauriEventNames = {
  core: "dossier://event",
  resync: "dossier://resync",
  drag: "dossier://drag",
  dropped: "dossier://dropped",
  updateAvailable: "dossier://update-available",
  serverConnection: "dossier://server-connection",
} as const satisfies Record<string, EventName>;

export async function createBackend(transport: Transport, baseUrl = location.origin): Promise<Backend> {
  if (transport === "tauri") {
    // This computer's ledger, or the server Settings attached the window to.
    const { desktopBackend } = await import("./transport/attached-backend");
    return desktopBackend();
  }
  const { httpBackend } = await import("./transport/http-backend");
  return httpBackend(baseUrl);
}

export type { ErrorBody };
export type { PermissionReply };
export type { SearchQuery, SearchResult };
