// The UI's state and the actions on it, shared by every component: one Solid store fed by the
// event reducer, plus the listings fetched through the transport. Components read from here and
// call these actions; none of them talks to the transport directly (the settings views have their
// own stores, provider-settings-store.ts and mcp-settings-store.ts).
import type { PermissionReply } from "./bindings/PermissionReply";
import type { PermissionRequest } from "./bindings/PermissionRequest";
import { batch, createMemo, createSignal } from "solid-js";
import { createStore, produce, reconcile } from "solid-js/store";
import type { Agent } from "./bindings/Agent";
import type { ModelCatalog } from "./bindings/ModelCatalog";
import type { McpStatus } from "./bindings/McpStatus";
import type { ModelRef } from "./bindings/ModelRef";
import type { Session } from "./bindings/Session";
import { type Attachment, buildDrafts } from "./drafts";
import { createComposerDrafts } from "./composer-drafts";
import { reusableEmptySession } from "./empty-session";
import type { Event } from "./bindings/Event";
import { frameBatch } from "./frame-batch";
import { applyEvent, type ChatState, emptyChatState, loadMessages, SeenEvents } from "./event-reducer";
import { type Backend, BackendError, type ConnectionState, type McpBackend, type SearchQuery, type SearchResult, toBackendError } from "./transport";

/** The part of the MCP calls the composer uses: prompts for the / menu, resources for the picker. */
export type McpOffers = Pick<McpBackend, "prompts" | "promptText" | "resources">;

function mcpOffersOf(mcp: McpBackend | undefined): McpOffers | undefined {
  if (mcp === undefined) return undefined;
  return {
    prompts: () => mcp.prompts(),
    promptText: (clientName, name, args) => mcp.promptText(clientName, name, args),
    resources: () => mcp.resources(),
  };
}

export const sessionPageSize = 100;
/** Pinned sessions load all at once beside the first page (the server's largest page). */
const pinnedLimit = 1000;
export const messagePageSize = 50;
/** Larger pages while looking for a message further back (a search result, a find match). */
export const revealPageSize = 200;

/** A failed send or action, shown in place in the conversation it belongs to. */
export interface Notice {
  kind: BackendError["kind"];
  message: string;
  /** The drafts to send again with Retry, when the message itself was not saved. */
  retry?: { text: string; attachments: Attachment[] };
}

/**
 * A message the conversation should scroll to and mark: briefly after a search (`jump`), or for
 * as long as find-in-session stays on it (`find`). `serial` makes a repeat jump a new request.
 */
export interface MessageFocus {
  sessionId: string;
  messageId: string;
  reason: "jump" | "find";
  serial: number;
}

export interface Choice {
  agent?: string;
  model?: ModelRef;
  /** The model's "thinking effort" variant, when it has any. */
  variant?: string | undefined;
}

export function sortSessions(sessions: readonly (Session | undefined)[]): Session[] {
  return sessions
    .filter((session): session is Session => session !== undefined && session.parentID === undefined && session.time.archived === undefined)
    .sort((a, b) => (b.pinned ? 1 : 0) - (a.pinned ? 1 : 0) || b.time.updated - a.time.updated || (a.id < b.id ? 1 : -1));
}

export function createChat(backend: Backend) {
  const refusedByServer = (failure: BackendError) => failure.kind === "unauthorized" && backend.transport === "attached";
  const [state, setState] = createStore<ChatState>(emptyChatState());
  const seen = new SeenEvents();
  const [agents, setAgents] = createSignal<Agent[]>([]);
  const [catalog, setCatalog] = createSignal<ModelCatalog>({ providers: [] });
  const [selectedId, setSelectedId] = createSignal<string | undefined>();
  const [sessionCursor, setSessionCursor] = createSignal<string | null>(null);
  const [sessionsLoading, setSessionsLoading] = createSignal(false);
  const [sessionsLoaded, setSessionsLoaded] = createSignal(false);
  const [notices, setNotices] = createStore<Record<string, Notice | undefined>>({});
  const [sending, setSending] = createStore<Record<string, boolean | undefined>>({});
  const [messageCursors, setMessageCursors] = createStore<Record<string, string | null | undefined>>({});
  const [choices, setChoices] = createStore<Record<string, Choice | undefined>>({});
  const [children, setChildren] = createStore<Record<string, Session[] | undefined>>({});
  const [focus, setFocus] = createSignal<MessageFocus | undefined>();
  const [connection, setConnection] = createSignal<ConnectionState>("connected");
  /** MCP servers' statuses by name (what they offer), kept for the composer's controls. */
  const [mcpStatuses, setMcpStatuses] = createStore<Record<string, McpStatus | undefined>>({});
  async function readMcpStatuses(): Promise<void> {
    if (backend.mcp === undefined) return;
    try {
      setMcpStatuses(reconcile(Object.fromEntries(await backend.mcp.statuses())));
    } catch (error) {
      // Only a button depends on it: without the statuses the composer offers no resources.
      console.warn("could not read the MCP servers' statuses", error);
    }
  }
  let focusSerial = 0;
  /** Unsent text per session; a deleted session's goes with it (here or in another client). */
  const drafts = createComposerDrafts(localStorage);
  /**
   * How many messages you sent each session has saved, counted as their events arrive (ahead of
   * the frame batching): a send that fails after its message was saved (the reply failed) must
   * not offer to send it again.
   */
  const savedSends = new Map<string, Set<string>>();
  const countSaved = (event: Event) => {
    if (event.type !== "message.updated" || event.properties.info.role !== "user") return;
    const sessionID = event.properties.sessionID;
    const ids = savedSends.get(sessionID) ?? new Set<string>();
    ids.add(event.properties.info.id);
    savedSends.set(sessionID, ids);
  };
  const savedCount = (sessionId: string) => savedSends.get(sessionId)?.size ?? 0;
  /** First pages being fetched, so a second open (a search jump) waits for the same one. */
  const firstPages = new Map<string, Promise<void>>();

  const sessions = createMemo(() => sortSessions(Object.values(state.sessions)));

  function report(sessionId: string | undefined, error: unknown, retry?: Notice["retry"]): void {
    const failure = toBackendError(error);
    // The attached server no longer takes this computer's token: the window's notice says so
    // once (the shell's `refused`), not every action that met it. Only a send keeps its place in
    // the conversation, so that Retry gives back the words it took from the composer.
    if (sessionId === undefined || (refusedByServer(failure) && retry === undefined)) {
      console.error(failure);
      return;
    }
    setNotices(sessionId, { kind: failure.kind, message: failure.message, ...(retry === undefined ? {} : { retry }) });
  }

  async function loadSessions(reset: boolean): Promise<void> {
    if (sessionsLoading()) return;
    setSessionsLoading(true);
    try {
      const cursor = reset ? undefined : (sessionCursor() ?? undefined);
      // With the first page come all pinned sessions, so one pinned long ago is still on top.
      const [page, pinned] = await Promise.all([
        backend.listSessions({ limit: sessionPageSize, ...(cursor === undefined ? {} : { cursor }) }),
        reset ? backend.listSessions({ pinned: true, limit: pinnedLimit }) : undefined,
      ]);
      batch(() => {
        setState(
          produce((draft) => {
            for (const session of [...(pinned?.sessions ?? []), ...page.sessions]) draft.sessions[session.id] = session;
          }),
        );
        setSessionCursor(page.nextCursor);
        setSessionsLoaded(true);
      });
    } finally {
      setSessionsLoading(false);
    }
  }

  async function openSession(sessionId: string): Promise<void> {
    setSelectedId(sessionId);
    localStorage.setItem("dossier.openSession", sessionId);
    // Live events may already have brought a message or two; only a fetched page counts as loaded.
    if (messageCursors[sessionId] !== undefined) return;
    const pending = firstPages.get(sessionId);
    if (pending !== undefined) return pending;
    const loading = loadFirstPage(sessionId).finally(() => firstPages.delete(sessionId));
    firstPages.set(sessionId, loading);
    return loading;
  }

  async function loadFirstPage(sessionId: string): Promise<void> {
    try {
      const page = await backend.listMessages(sessionId, messagePageSize);
      batch(() => {
        setState(produce((draft) => { loadMessages(draft, sessionId, page.messages); }));
        setMessageCursors(sessionId, page.nextCursor);
      });
      const found = await backend.listChildSessions?.(sessionId);
      if (found !== undefined) {
        batch(() => {
          setChildren(sessionId, found);
          setState(produce((draft) => { for (const child of found) draft.sessions[child.id] = child; }));
        });
      }
    } catch (error) {
      report(sessionId, error);
    }
  }

  async function loadOlderMessages(sessionId: string, limit = messagePageSize): Promise<void> {
    const before = messageCursors[sessionId];
    if (before === null || before === undefined) return;
    const page = await backend.listMessages(sessionId, limit, before);
    batch(() => {
      setState(produce((draft) => { loadMessages(draft, sessionId, page.messages); }));
      setMessageCursors(sessionId, page.nextCursor);
    });
  }

  function choiceFor(sessionId: string | undefined): Choice {
    const session = sessionId === undefined ? undefined : state.sessions[sessionId];
    const chosen = sessionId === undefined ? undefined : choices[sessionId];
    const agent = chosen?.agent ?? session?.agent ?? agents().find((candidate) => candidate.mode !== "subagent" && !candidate.hidden)?.name;
    const remembered = session?.model === undefined ? undefined : { providerID: session.model.providerID, modelID: session.model.id };
    const model = chosen?.model ?? remembered;
    const variant = chosen?.model !== undefined ? chosen.variant : session?.model?.variant;
    return {
      ...(agent === undefined ? {} : { agent }),
      ...(model === undefined ? {} : { model }),
      ...(variant === undefined ? {} : { variant }),
    };
  }

  /**
   * A model installed on this computer joins the picker (and is the default for new sessions) at
   * once, whether Settings is still open or the download ended after it closed. The core rebuilds
   * its catalog on the same "installed" event, in a task of its own (`offer_downloaded_models` in
   * start_up.rs), so a read made on the event can come before that: read again every 250 ms until
   * the model is listed, for five seconds at most (a config that defines provider `local` itself
   * never lists it). A failed read keeps the catalog as it was; the next start reads it again.
   */
  async function offerInstalledModel(modelId: string): Promise<void> {
    for (let attempt = 0; attempt < 20; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 250));
      let models: ModelCatalog;
      try {
        models = await backend.listModels();
      } catch {
        return;
      }
      setCatalog(models);
      if (models.providers.some((provider) => provider.id === "local" && provider.models.some((model) => model.id === modelId))) return;
    }
  }

  return {
    backend,
    /** Where the webview can load an attachment's bytes from (a file part's URL). */
    mediaUrl: (url: string) => backend.mediaUrl(url),
    /** Tells the shell the first screen is up (the desktop's start-up timing); nothing elsewhere. */
    reportInteractive: () => {
      backend.reportInteractive?.();
    },
    /** The desktop's native file drop (hover and dropped files), where the transport has one. */
    onNativeDrop: backend.onNativeDrop,
    /** The desktop's open-files dialog, where the transport has one; a browser uses a file input. */
    pickFiles: backend.pickFiles,
    /** What the composer offers from connected MCP servers (the / menu, the Resources picker), where the transport has MCP. */
    mcpOffers: mcpOffersOf(backend.mcp),
    /** A dropped text file's outline (the chip's symbol picker), where the transport reads the person's files. */
    fileSymbols: backend.fileSymbols,
    drafts,
    state,
    sessions,
    agents,
    catalog,
    selectedId,
    notices,
    sending,
    /** MCP servers' statuses by name, following their events. */
    mcpStatuses,
    /** Reads the MCP servers' statuses again (after the settings added or removed one). */
    readMcpStatuses,
    /** Whether the server is reachable (a browser's event stream); the window shows it when not. */
    connection,
    children,
    hasOlderMessages: (sessionId: string) => typeof messageCursors[sessionId] === "string",
    hasMoreSessions: () => sessionCursor() !== null,
    sessionsLoading,
    sessionsLoaded,
    choiceFor,
    setChoice(sessionId: string, choice: Choice): void {
      // Picking a model resets its variant unless one is picked with it.
      const reset = choice.model !== undefined && choice.variant === undefined ? { variant: undefined } : {};
      setChoices(sessionId, { ...choices[sessionId], ...reset, ...choice });
    },

    /** Loads the catalogs and the first page of sessions, and follows the event stream. */
    async start(): Promise<() => void> {
      const apply = frameBatch<Event>((events) => {
        setState(
          produce((draft) => {
            for (const event of events) applyEvent(draft, event, seen);
          }),
        );
      });
      const stop = backend.subscribe({
        onEvent: (event) => {
          if (event.type === "session.deleted") {
            drafts.forget(event.properties.sessionID);
            savedSends.delete(event.properties.sessionID);
          }
          if (event.type === "mcp.status") setMcpStatuses(event.properties.name, event.properties.status);
          if (event.type === "dossier.model.download" && event.properties.status === "installed") {
            void offerInstalledModel(event.properties.modelId);
          }
          countSaved(event);
          apply(event);
        },
        onResync: () => {
          setState(emptyChatState());
          setMessageCursors(reconcile({}));
          void loadSessions(true);
          void readMcpStatuses();
          const open = selectedId();
          if (open !== undefined) void openSession(open);
        },
        onConnection: setConnection,
      });
      const [agentList, models] = await Promise.all([backend.listAgents(), backend.listModels(), loadSessions(true), readMcpStatuses()]);
      batch(() => {
        setAgents(agentList);
        setCatalog(models);
      });
      const last = localStorage.getItem("dossier.openSession");
      if (last !== null && state.sessions[last] !== undefined) await openSession(last);
      return stop;
    },

    loadMoreSessions: () => loadSessions(false),
    openSession,
    loadOlderMessages,

    async searchSessions(search: string): Promise<Session[]> {
      const page = await backend.listSessions({ limit: sessionPageSize, search });
      return page.sessions;
    },

    /** Opens the untouched session already there (`empty-session.ts`), else makes one. */
    async newSession(): Promise<void> {
      const empty = reusableEmptySession(sessions(), {
        loadedMessages: (sessionId) => state.messages[sessionId]?.length,
        busy: (sessionId) => sending[sessionId] === true || state.status[sessionId]?.type === "busy",
      });
      if (empty !== undefined) {
        await openSession(empty.id);
        return;
      }
      try {
        const session = await backend.createSession({});
        setState("sessions", session.id, session);
        await openSession(session.id);
      } catch (error) {
        report(selectedId(), error);
      }
    },

    async renameSession(sessionId: string, title: string): Promise<void> {
      try {
        const session = await backend.updateSession(sessionId, { title });
        setState("sessions", sessionId, session);
      } catch (error) {
        report(sessionId, error);
      }
    },

    async archiveSession(sessionId: string): Promise<void> {
      try {
        const session = await backend.archiveSession(sessionId, true);
        setState("sessions", sessionId, session);
        if (selectedId() === sessionId) setSelectedId(undefined);
      } catch (error) {
        report(sessionId, error);
      }
    },

    /** Archived sessions, newest first (the sidebar's "Archived" view). */
    async archivedSessions(): Promise<Session[]> {
      const page = await backend.listSessions({ limit: sessionPageSize, archived: true });
      return page.sessions.filter((session) => session.time.archived !== undefined);
    },

    async restoreSession(sessionId: string): Promise<void> {
      try {
        const session = await backend.archiveSession(sessionId, false);
        setState("sessions", sessionId, session);
      } catch (error) {
        report(sessionId, error);
      }
    },

    async deleteSession(sessionId: string): Promise<void> {
      try {
        await backend.deleteSession(sessionId);
        drafts.forget(sessionId);
        setState("sessions", sessionId, undefined);
        if (selectedId() === sessionId) setSelectedId(undefined);
      } catch (error) {
        report(sessionId, error);
      }
    },

    /** Deletes one message for good; it leaves the conversation through its `message.removed` event. */
    async deleteMessage(sessionId: string, messageId: string): Promise<void> {
      try {
        await backend.deleteMessage(sessionId, messageId);
      } catch (error) {
        report(sessionId, error);
      }
    },

    /** Sends; a reply (if this build has one) streams in through events. */
    async send(sessionId: string, text: string, attachments: Attachment[]): Promise<void> {
      const parts = buildDrafts(text, attachments, agents());
      if (parts.length === 0) return;
      const { agent, model, variant } = choiceFor(sessionId);
      setNotices(sessionId, undefined);
      setSending(sessionId, true);
      const savedBefore = savedCount(sessionId);
      try {
        await backend.sendPrompt(sessionId, {
          parts,
          ...(agent === undefined ? {} : { agent }),
          ...(model === undefined ? {} : { model }),
          ...(variant === undefined ? {} : { variant }),
        });
      } catch (error) {
        const failure = toBackendError(error);
        // `unavailable`, or a message of yours saved meanwhile, means only the reply is missing:
        // sending again would say it twice, so there is no Retry of the send.
        const saved = failure.kind === "unavailable" || savedCount(sessionId) > savedBefore;
        report(sessionId, failure, saved ? undefined : { text, attachments });
      } finally {
        setSending(sessionId, false);
      }
    },

    /** A reply's link in the system browser (or a new tab); why it could not be opened shows in place. */
    async openLink(sessionId: string, url: string): Promise<void> {
      try {
        await backend.openLink(url);
      } catch (error) {
        report(sessionId, error);
      }
    },

    /** Requests waiting for the person in this session, oldest first. */
    permissionsFor(sessionId: string): PermissionRequest[] {
      return Object.values(state.permissions).filter(
        (request): request is PermissionRequest => request !== undefined && request.sessionID === sessionId,
      );
    },

    async answerPermission(request: PermissionRequest, reply: PermissionReply): Promise<void> {
      try {
        await backend.replyPermission(request.sessionID, request.id, reply);
      } catch (error) {
        report(request.sessionID, error);
      }
    },

    async stop(sessionId: string): Promise<void> {
      try {
        await backend.abort?.(sessionId);
      } catch (error) {
        report(sessionId, error);
      }
    },

    isBusy(sessionId: string): boolean {
      return sending[sessionId] === true || state.status[sessionId]?.type === "busy";
    },

    /** For actions defined outside this file (lib/reshaping.ts): a failure shown in place. */
    reportError: (sessionId: string | undefined, error: unknown) => {
      report(sessionId, error);
    },
    /**
     * Runs a declared operation that starts a reply in the session (`backend.operations`): the
     * session waits meanwhile, and a failure shows in place, as a failed send does.
     */
    async replyBy(sessionId: string, start: (operations: Backend["operations"]) => Promise<unknown>): Promise<void> {
      setNotices(sessionId, undefined);
      setSending(sessionId, true);
      try {
        await start(backend.operations);
      } catch (error) {
        report(sessionId, error);
      } finally {
        setSending(sessionId, false);
      }
    },
    /** Marks a session as waiting for a reply that an action other than `send` started. */
    markSending: (sessionId: string, waiting: boolean) => {
      if (waiting) setNotices(sessionId, undefined);
      setSending(sessionId, waiting);
    },
    /** Takes in a session an action returned (fresher than what is shown), before its event arrives. */
    takeSession: (session: Session) => {
      setState("sessions", session.id, session);
    },

    /** The message the open conversation should scroll to and mark, if any. */
    focus,
    clearFocus: () => { setFocus(undefined); },

    /**
     * Opens the session and scrolls to one of its messages, loading older pages until it is there.
     * False when the message is gone (deleted or reverted since the search).
     */
    async revealMessage(sessionId: string, messageId: string, reason: MessageFocus["reason"]): Promise<boolean> {
      const present = () => (state.messages[sessionId] ?? []).some((message) => message.id === messageId);
      try {
        if (selectedId() !== sessionId || messageCursors[sessionId] === undefined) await openSession(sessionId);
        while (!present() && typeof messageCursors[sessionId] === "string") await loadOlderMessages(sessionId, revealPageSize);
      } catch (error) {
        report(sessionId, error);
        return false;
      }
      if (!present()) return false;
      setFocus({ sessionId, messageId, reason, serial: ++focusSerial });
      return true;
    },

    async pinSession(sessionId: string, pinned: boolean): Promise<void> {
      try {
        const session = await backend.updateSession(sessionId, { pinned });
        setState("sessions", sessionId, session);
      } catch (error) {
        report(sessionId, error);
      }
    },

    /** Archives or deletes several sessions; the ones that failed are returned (and reported). */
    async archiveSessions(sessionIds: readonly string[]): Promise<string[]> {
      const failed: string[] = [];
      for (const sessionId of sessionIds) {
        try {
          const session = await backend.archiveSession(sessionId, true);
          setState("sessions", sessionId, session);
          if (selectedId() === sessionId) setSelectedId(undefined);
        } catch (error) {
          failed.push(sessionId);
          report(sessionId, error);
        }
      }
      return failed;
    },

    async deleteSessions(sessionIds: readonly string[]): Promise<string[]> {
      const failed: string[] = [];
      for (const sessionId of sessionIds) {
        try {
          await backend.deleteSession(sessionId);
          drafts.forget(sessionId);
          setState("sessions", sessionId, undefined);
          if (selectedId() === sessionId) setSelectedId(undefined);
        } catch (error) {
          failed.push(sessionId);
          report(sessionId, error);
        }
      }
      return failed;
    },

    search: (query: SearchQuery): Promise<SearchResult[]> => backend.search(query),

    /** Keeps a session found elsewhere (an archived one from search) so its title can show. */
    rememberSession(session: Session): void {
      if (state.sessions[session.id] === undefined) setState("sessions", session.id, session);
    },

    /** Reads the model catalog again, after the settings changed the providers. */
    async reloadModels(): Promise<void> {
      setCatalog(await backend.listModels());
    },
  };
}

export type Chat = ReturnType<typeof createChat>;
