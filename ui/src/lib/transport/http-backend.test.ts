import { describe, expect, it } from "vitest";
import { BackendError } from "../transport";
import { catalogFromProviderListing, httpBackend } from "./http-backend";

function fetcher(routes: Record<string, { status?: number; body: unknown; headers?: Record<string, string> }>, seen: string[] = []) {
  return (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    const key = `${init?.method ?? "GET"} ${url.pathname}${url.search}`;
    seen.push(key);
    const route = routes[key];
    if (route === undefined) return Promise.resolve(new Response(JSON.stringify({ kind: "not_found", message: key }), { status: 404 }));
    return Promise.resolve(new Response(JSON.stringify(route.body), { status: route.status ?? 200, headers: route.headers ?? {} }));
  };
}

describe("httpBackend", () => {
  it("lists root sessions a page at a time with the X-Next-Cursor header", async () => {
    const backend = httpBackend(
      "http://127.0.0.1:4096",
      fetcher({ "GET /session?roots=true&limit=2": { body: [{ id: "ses_b" }, { id: "ses_a" }], headers: { "x-next-cursor": "170:ses_a" } } }),
    );
    const page = await backend.listSessions({ limit: 2 });
    expect(page.sessions.map((session) => session.id)).toEqual(["ses_b", "ses_a"]);
    expect(page.nextCursor).toBe("170:ses_a");
  });

  it("rejects with the server's {kind, message}", async () => {
    const backend = httpBackend(
      "http://127.0.0.1:4096",
      fetcher({ "POST /session/ses_a/message": { status: 503, body: { kind: "unavailable", message: "replies are not available", name: "UnknownError" } } }),
    );
    const failure = await backend.sendPrompt("ses_a", { parts: [{ type: "text", text: "hi" }] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BackendError);
    expect(failure).toMatchObject({ kind: "unavailable", message: "replies are not available" });
  });

  it("pages messages with before and limit", async () => {
    const seen: string[] = [];
    const backend = httpBackend("http://127.0.0.1:4096", fetcher({ "GET /session/ses_a/message?limit=50&before=msg_9": { body: [] } }, seen));
    const page = await backend.listMessages("ses_a", 50, "msg_9");
    expect(page).toEqual({ messages: [], nextCursor: null });
    expect(seen).toEqual(["GET /session/ses_a/message?limit=50&before=msg_9"]);
  });
});

describe("httpBackend search", () => {
  it("asks Dossier's search route with q, limit, archived and sessionID", async () => {
    const seen: string[] = [];
    const backend = httpBackend(
      "http://127.0.0.1:4096",
      fetcher({ "GET /dossier/search?q=tax+return&limit=20&archived=true&sessionID=ses_a": { body: [{ session: { id: "ses_a" }, excerpts: [] }] } }, seen),
    );
    const results = await backend.search({ text: "tax return", limit: 20, include_archived: true, sessionID: "ses_a" });
    expect(results.map((result) => result.session.id)).toEqual(["ses_a"]);
    expect(seen).toEqual(["GET /dossier/search?q=tax+return&limit=20&archived=true&sessionID=ses_a"]);
  });

  it("leaves out what was not asked for", async () => {
    const seen: string[] = [];
    const backend = httpBackend("http://127.0.0.1:4096", fetcher({ "GET /dossier/search?q=%E6%96%87%E4%BB%B6": { body: [] } }, seen));
    expect(await backend.search({ text: "文件", include_archived: false })).toEqual([]);
    expect(seen).toEqual(["GET /dossier/search?q=%E6%96%87%E4%BB%B6"]);
  });
});

describe("catalogFromProviderListing", () => {
  it("turns OpenCode's keyed models into the catalog the pickers use", () => {
    expect(
      catalogFromProviderListing({
        providers: [{ id: "dossier", name: "Dossier", models: { offline: { id: "offline", name: "Offline model", variants: { high: {} } } } }],
      }),
    ).toEqual({
      providers: [
        { id: "dossier", name: "Dossier", models: [{ id: "offline", providerID: "dossier", name: "Offline model", variants: ["high"], attachment: false, reasoning: false }] },
      ],
    });
  });
});
