import { describe, expect, it } from "vitest";
import type { ListedModel } from "../bindings/ListedModel";
import type { ListedProvider } from "../bindings/ListedProvider";
import { BackendError } from "../transport";
import { catalogFromProviderListing, downloadName, httpBackend } from "./http-backend";

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

  it("makes a declared operation's call: its method, its path with the id encoded, its JSON body", async () => {
    const bodies: unknown[] = [];
    const seen: string[] = [];
    const answer = fetcher({ "POST /dossier/mcp/tools/files_read%2Fall": { body: [] } }, seen);
    const backend = httpBackend("http://127.0.0.1:4096", (input, init) => {
      bodies.push(typeof init?.body === "string" ? JSON.parse(init.body) : init?.body);
      return answer(input, init);
    });
    await backend.mcp?.setAlwaysAllowed("files_read/all", true);
    expect(seen).toEqual(["POST /dossier/mcp/tools/files_read%2Fall"]);
    expect(bodies).toEqual([{ alwaysAllowed: true }]);
    const failure = await backend.operations.mcpSettings().catch((error: unknown) => error);
    expect(failure).toMatchObject({ kind: "not_found", message: "GET /dossier/mcp/settings" });
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

/** A model as dossier-server lists it (`provider_listing.rs`). */
function listedModel(id: string, name: string, capabilities: { attachment: boolean; reasoning: boolean }, variants: string[]): ListedModel {
  const modalities = { text: true, audio: false, image: capabilities.attachment, video: false, pdf: capabilities.attachment };
  return {
    id,
    providerID: "dossier",
    api: { id, url: "", npm: "" },
    name,
    capabilities: { temperature: true, toolcall: true, interleaved: false, input: modalities, output: { ...modalities, image: false, pdf: false }, ...capabilities },
    cost: { input: 0, output: 0, cache: { read: 0, write: 0 } },
    limit: { context: 0, output: 0 },
    status: "active",
    options: {},
    headers: {},
    release_date: "",
    variants: Object.fromEntries(variants.map((variant) => [variant, {}])),
  };
}

function listedProvider(models: ListedModel[]): ListedProvider {
  return { id: "dossier", name: "Dossier", source: "custom", env: [], options: {}, models: Object.fromEntries(models.map((model) => [model.id, model])) };
}

describe("catalogFromProviderListing", () => {
  it("reads whether a model takes attachments and reasons from its capabilities", () => {
    expect(
      catalogFromProviderListing({ providers: [listedProvider([listedModel("vision", "Vision", { attachment: true, reasoning: true }, [])])] }),
    ).toEqual({
      providers: [{ id: "dossier", name: "Dossier", models: [{ id: "vision", providerID: "dossier", name: "Vision", variants: [], attachment: true, reasoning: true, tool_call: true }] }],
    });
  });

  it("turns OpenCode's keyed models into the catalog the pickers use", () => {
    expect(
      catalogFromProviderListing({
        providers: [listedProvider([listedModel("offline", "Offline model", { attachment: false, reasoning: false }, ["high"])])],
      }),
    ).toEqual({
      providers: [
        { id: "dossier", name: "Dossier", models: [{ id: "offline", providerID: "dossier", name: "Offline model", variants: ["high"], attachment: false, reasoning: false, tool_call: true }] },
      ],
    });
  });
});

describe("httpBackend reshaping", () => {
  it("reaches OpenCode's fork, revert and unrevert routes and Dossier's resend and regenerate", async () => {
    const seen: string[] = [];
    const backend = httpBackend(
      "http://127.0.0.1:4096",
      fetcher(
        {
          "POST /session/ses_a/fork": { body: { id: "ses_f" } },
          "POST /session/ses_a/revert": { body: { id: "ses_a" } },
          "POST /session/ses_a/unrevert": { body: { id: "ses_a" } },
          "POST /session/ses_a/message/msg_1/resend": { body: { info: { id: "msg_2" } } },
          "POST /session/ses_a/message/msg_2/regenerate": { body: { info: { id: "msg_3" } } },
        },
        seen,
      ),
    );
    expect((await backend.forkSession("ses_a", "msg_1")).id).toBe("ses_f");
    await backend.revertSession("ses_a", "msg_1");
    await backend.unrevertSession("ses_a");
    expect((await backend.resendMessage("ses_a", "msg_1", "edited")).info.id).toBe("msg_2");
    expect((await backend.regenerateReply("ses_a", "msg_2")).info.id).toBe("msg_3");
    expect(seen).toHaveLength(5);
  });

  it("archives through Dossier's route and leaves the time to the server's clock", async () => {
    const sent: { key: string; body: unknown }[] = [];
    const backend = httpBackend("http://127.0.0.1:4096", (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : input.toString());
      sent.push({ key: `${init?.method ?? "GET"} ${url.pathname}`, body: JSON.parse(typeof init?.body === "string" ? init.body : "null") });
      return Promise.resolve(new Response(JSON.stringify({ id: "ses_a", time: { created: 1, updated: 2, archived: 3 } })));
    });
    expect((await backend.archiveSession("ses_a", true)).time.archived).toBe(3);
    await backend.archiveSession("ses_a", false);
    expect(sent).toEqual([
      { key: "POST /dossier/session/ses_a/archive", body: { archived: true } },
      { key: "POST /dossier/session/ses_a/archive", body: { archived: false } },
    ]);
  });

  it("refuses to import a file that is not JSON before sending anything", async () => {
    const seen: string[] = [];
    const backend = httpBackend("http://127.0.0.1:4096", fetcher({}, seen));
    const file = new File(["not json"], "notes.json", { type: "application/json" });
    const failure = await backend.importFile?.(file).catch((error: unknown) => error);
    expect(failure).toMatchObject({ kind: "invalid", message: expect.stringContaining("notes.json is not JSON") as unknown });
    expect(seen).toEqual([]);
  });
});

describe("downloadName", () => {
  it("prefers the UTF-8 name and falls back to the plain one", () => {
    expect(downloadName(`attachment; filename="ses_a.md"; filename*=UTF-8''Plan%5F%20%E9%95%BF.md`)).toBe("Plan_ 长.md");
    expect(downloadName(`attachment; filename="ses_a.json"`)).toBe("ses_a.json");
    expect(downloadName(`attachment; filename="ses_a.json"; filename*=UTF-8''%E0%A4`)).toBe("ses_a.json");
    expect(downloadName(null)).toBeUndefined();
  });
});

describe("httpBackend fileSymbols", () => {
  it("asks Dossier's symbols route for the file's outline", async () => {
    const seen: string[] = [];
    const outline = [{ name: "main", kind: "function", line: 2, endLine: 4, children: [] }];
    const backend = httpBackend("http://127.0.0.1:4096", fetcher({ "GET /dossier/symbols?path=%2Fhome%2Fada%2Fmain+file.rs": { body: outline } }, seen));
    expect(await backend.fileSymbols?.("/home/ada/main file.rs")).toEqual(outline);
    expect(seen).toEqual(["GET /dossier/symbols?path=%2Fhome%2Fada%2Fmain+file.rs"]);
  });
});
