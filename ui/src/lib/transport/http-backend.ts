// The browser side of the transport: OpenCode's HTTP routes and the `/event` SSE stream, served
// by dossier-server. Listings page with the `X-Next-Cursor` header.
import type { ConfiguredProviders } from "../bindings/ConfiguredProviders";
import type { Event } from "../bindings/Event";
import type { Model } from "../bindings/Model";
import type { ModelCatalog } from "../bindings/ModelCatalog";
import type { Session } from "../bindings/Session";
import type { McpSettings } from "../bindings/McpSettings";
import type { MessageWithParts } from "../bindings/MessageWithParts";
import type { ExportFormat } from "../shell-bindings/ExportFormat";
import type { ExportOutcome } from "../shell-bindings/ExportOutcome";
import type { DocumentSymbol } from "../bindings/DocumentSymbol";
import { type OperationCall, operations } from "../shell-bindings/operations";
import { type Backend, BackendError, declaredCalls, declaredMcp, settingsUnavailable, toBackendError } from "../transport";
import { plainFileName } from "../session-title";

const nextCursorHeader = "x-next-cursor";

interface Response<T> {
  body: T;
  nextCursor: string | null;
}

/** OpenCode's provider listing (models keyed by id, capabilities in their own object) as the catalog the pickers use. */
export function catalogFromProviderListing(listing: Pick<ConfiguredProviders, "providers">): ModelCatalog {
  return {
    providers: listing.providers.map((provider) => ({
      id: provider.id,
      name: provider.name,
      models: Object.values(provider.models).flatMap((model): Model[] =>
        model === undefined
          ? []
          : [
              {
                id: model.id,
                providerID: provider.id,
                name: model.name,
                variants: Object.keys(model.variants),
                attachment: model.capabilities.attachment,
                reasoning: model.capabilities.reasoning,
                tool_call: model.capabilities.toolcall,
              },
            ],
      ),
    })),
  };
}

/** The pause before opening the event stream again after the browser gave up on it. */
const streamRetryMs = 3000;

/** The file name a `Content-Disposition` header offers: its UTF-8 `filename*`, else `filename`. */
export function downloadName(disposition: string | null): string | undefined {
  if (disposition === null) return undefined;
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1];
  if (encoded !== undefined) {
    try {
      return decodeURIComponent(encoded.trim());
    } catch {
      // A malformed escape: fall back to the plain name.
    }
  }
  return /filename="([^"]+)"/i.exec(disposition)?.[1];
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

  /** Fetches an export and hands it to the browser as a download named after the session. */
  async function download(id: string, format: ExportFormat): Promise<ExportOutcome> {
    let response: globalThis.Response;
    try {
      // The readable export tells times by the reader's clock, which the server cannot know.
      const utcOffset = format === "markdown" ? -new Date().getTimezoneOffset() : undefined;
      response = await fetcher(new URL(`${session(id)}/export${query({ format, utcOffset })}`, baseUrl));
    } catch (error) {
      throw toBackendError(error);
    }
    if (!response.ok) {
      const text = await response.text();
      throw toBackendError(text === "" ? { kind: "internal", message: `${String(response.status)} ${response.statusText}` } : JSON.parse(text));
    }
    // Plain words: a title written in Markdown must not give the file "## " in its name.
    const name = plainFileName(downloadName(response.headers.get("content-disposition")) ?? `${id}.${format === "json" ? "json" : "md"}`);
    const link = document.createElement("a");
    link.href = URL.createObjectURL(await response.blob());
    link.download = name;
    link.click();
    // The click has started the download; the object URL is no longer needed.
    setTimeout(() => {
      URL.revokeObjectURL(link.href);
    }, 0);
    return { outcome: "saved", path: name };
  }

  // The declared operations over HTTP: each call names its method, path and body. A paged
  // listing answers its list alone, the next page's cursor in a header: the page is rebuilt.
  const client = operations(async <T>(operation: OperationCall): Promise<T> => {
    const response = await request<unknown>(operation.method, operation.path, operation.body);
    if (operation.page === undefined) return response.body as T;
    const page: unknown = { [operation.page]: response.body, nextCursor: response.nextCursor };
    return page as T;
  });

  return {
    transport: "http",
    operations: client,
    ...declaredCalls(client),
    createSession: async (input) => (await request<Session>("POST", "/session", input)).body,
    listMessages: async (id, limit, before) => {
      const response = await request<MessageWithParts[]>("GET", `${session(id)}/message${query({ limit, before })}`);
      return { messages: response.body, nextCursor: response.nextCursor };
    },
    sendPrompt: async (id, input) => (await request<MessageWithParts>("POST", `${session(id)}/message`, input)).body,
    // The HTTP server has no route for stored blobs yet: only inline data: URLs preview.
    mediaUrl: (url) => (url.startsWith("data:") ? url : undefined),
    // A new tab with no handle back to this page (`noopener`) and no referrer.
    openLink: (url) => {
      window.open(url, "_blank", "noopener,noreferrer");
      return Promise.resolve();
    },
    listModels: async () => catalogFromProviderListing((await request<ConfiguredProviders>("GET", "/config/providers")).body),
    exportSession: download,
    importFile: async (file) => {
      let document: unknown;
      try {
        document = JSON.parse(await file.text());
      } catch {
        throw new BackendError({ kind: "invalid", message: `${file.name} is not JSON: choose a file exported by Dossier or by opencode export` });
      }
      return (await request<Session>("POST", "/session/import", document)).body;
    },
    subscribe: ({ onEvent, onResync, onConnection }) => {
      let source: EventSource | undefined;
      let retry: ReturnType<typeof setTimeout> | undefined;
      let stopped = false;
      const open = () => {
        const current = new EventSource(new URL("/event", baseUrl));
        source = current;
        current.onopen = () => onConnection?.("connected");
        current.onmessage = (message: MessageEvent<string>) => {
          const event = JSON.parse(message.data) as { type: string };
          // The browser resumes with Last-Event-ID by itself; the server says when it cannot.
          if (event.type === "server.resync-required") onResync();
          else if (!event.type.startsWith("server.")) onEvent(event as Event);
        };
        current.onerror = () => {
          onConnection?.("reconnecting");
          // The browser retries a dropped stream by itself, but gives up for good when a
          // reconnect is answered with an error (a proxy's 502 while the server restarts): then
          // start again, after a pause, with what was missed reloaded.
          if (current.readyState === EventSource.CLOSED && !stopped) {
            retry = setTimeout(() => {
              onResync();
              open();
            }, streamRetryMs);
          }
        };
      };
      open();
      return () => {
        stopped = true;
        clearTimeout(retry);
        source?.close();
      };
    },
    // A browser's chips are data: URLs (the picker is for file: ones); served for other clients.
    fileSymbols: async (path) => (await request<DocumentSymbol[]>("GET", `/dossier/symbols${query({ path })}`)).body,
    // Keys belong in the desktop app's OS keychain; the HTTP server has no route that takes one.
    readSettings: settingsUnavailable,
    saveProvider: settingsUnavailable,
    removeProvider: settingsUnavailable,
    removeProviderKey: settingsUnavailable,
    mcp: {
      importText: async (text) => (await request<McpSettings>("POST", "/dossier/mcp/import/claude-desktop", { text })).body,
      ...declaredMcp(client),
    },
  };
}

export { BackendError };
