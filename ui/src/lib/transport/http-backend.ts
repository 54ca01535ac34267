// The browser side of the transport: OpenCode's HTTP routes and the `/event` SSE stream, served
// by dossier-server. Listings page with the `X-Next-Cursor` header.
import type { Agent } from "../bindings/Agent";
import type { Event } from "../bindings/Event";
import type { Model } from "../bindings/Model";
import type { ModelCatalog } from "../bindings/ModelCatalog";
import type { Session } from "../bindings/Session";
import type { MessageWithParts } from "../bindings/MessageWithParts";
import { type Backend, BackendError, settingsUnavailable, toBackendError } from "../transport";

const nextCursorHeader = "x-next-cursor";

interface Response<T> {
  body: T;
  nextCursor: string | null;
}

/** OpenCode's provider listing keys models by id, with optional variants keyed by name. */
interface ListedProvider {
  id: string;
  name: string;
  npm?: string;
  models: Record<string, { id: string; name?: string; variants?: Record<string, unknown>; attachment?: boolean; reasoning?: boolean }>;
}

export function catalogFromProviderListing(listing: { providers: ListedProvider[] }): ModelCatalog {
  return {
    providers: listing.providers.map((provider) => ({
      id: provider.id,
      name: provider.name,
      ...(provider.npm === undefined ? {} : { npm: provider.npm }),
      models: Object.values(provider.models).map(
        (model): Model => ({
          id: model.id,
          providerID: provider.id,
          name: model.name ?? model.id,
          variants: Object.keys(model.variants ?? {}),
          attachment: model.attachment ?? false,
          reasoning: model.reasoning ?? false,
        }),
      ),
    })),
  };
}

export function httpBackend(baseUrl: string, fetcher: typeof fetch = fetch.bind(globalThis)): Backend {
  async function request<T>(method: string, path: string, body?: unknown): Promise<Response<T>> {
    let response: globalThis.Response;
    try {
      response = await fetcher(new URL(path, baseUrl), {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? null : JSON.stringify(body),
      });
    } catch (error) {
      throw toBackendError(error);
    }
    const text = await response.text();
    const parsed: unknown = text === "" ? undefined : JSON.parse(text);
    if (!response.ok) {
      throw toBackendError(parsed ?? { kind: "internal", message: `${String(response.status)} ${response.statusText}` });
    }
    return { body: parsed as T, nextCursor: response.headers.get(nextCursorHeader) };
  }

  const query = (values: Record<string, string | number | boolean | undefined>): string => {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(values)) if (value !== undefined) search.set(key, String(value));
    const text = search.toString();
    return text === "" ? "" : `?${text}`;
  };

  const session = (id: string): string => `/session/${encodeURIComponent(id)}`;

  return {
    transport: "http",
    listSessions: async (options) => {
      const response = await request<Session[]>(
        "GET",
        `/session${query({ roots: true, limit: options.limit, cursor: options.cursor, search: options.search, archived: options.includeArchived })}`,
      );
      return { sessions: response.body, nextCursor: response.nextCursor };
    },
    listChildSessions: async (id) => (await request<Session[]>("GET", `${session(id)}/children`)).body,
    createSession: async (input) => (await request<Session>("POST", "/session", input)).body,
    updateSession: async (id, patch) => (await request<Session>("PATCH", session(id), patch)).body,
    archiveSession: async (id, archived) =>
      (await request<Session>("PATCH", session(id), { time: { archived: archived ? Date.now() : null } })).body,
    deleteSession: async (id) => {
      await request<unknown>("DELETE", session(id));
    },
    listMessages: async (id, limit, before) => {
      const response = await request<MessageWithParts[]>("GET", `${session(id)}/message${query({ limit, before })}`);
      return { messages: response.body, nextCursor: response.nextCursor };
    },
    sendPrompt: async (id, input) => (await request<MessageWithParts>("POST", `${session(id)}/message`, input)).body,
    replyPermission: async (id, requestID, reply) => {
      await request<unknown>("POST", `${session(id)}/permissions/${encodeURIComponent(requestID)}`, { response: reply });
    },
    abort: async (id) => {
      await request<unknown>("POST", `${session(id)}/abort`);
    },
    // The HTTP server has no route for stored blobs yet: only inline data: URLs preview.
    mediaUrl: (url) => (url.startsWith("data:") ? url : undefined),
    listAgents: async () => (await request<Agent[]>("GET", "/agent")).body,
    listModels: async () => catalogFromProviderListing((await request<{ providers: ListedProvider[] }>("GET", "/config/providers")).body),
    subscribe: ({ onEvent, onResync }) => {
      const source = new EventSource(new URL("/event", baseUrl));
      source.onmessage = (message: MessageEvent<string>) => {
        const event = JSON.parse(message.data) as { type: string };
        // The browser resumes with Last-Event-ID by itself; the server says when it cannot.
        if (event.type === "server.resync-required") onResync();
        else if (!event.type.startsWith("server.")) onEvent(event as Event);
      };
      return () => {
        source.close();
      };
    },
    // Keys belong in the desktop app's OS keychain; the HTTP server has no route that takes one.
    readSettings: settingsUnavailable,
    saveProvider: settingsUnavailable,
    removeProvider: settingsUnavailable,
    removeProviderKey: settingsUnavailable,
  };
}

export { BackendError };
