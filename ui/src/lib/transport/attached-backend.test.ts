// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { attachedBackend, desktopBackend, type RelayShell } from "./attached-backend";
import type { RelayedRequest } from "../shell-bindings/RelayedRequest";
import type { RelayedResponse } from "../shell-bindings/RelayedResponse";
import { BackendError, tauriEventNames } from "../transport";

/** A fake shell: answers relayed requests from `answer`, and lets the test emit shell events. */
function fakeShell(answer: (request: RelayedRequest) => RelayedResponse | BackendError) {
  const sent: RelayedRequest[] = [];
  const handlers = new Map<string, (payload: unknown) => void>();
  const shell: RelayShell = {
    relay: (request) => {
      sent.push(request);
      const answered = answer(request);
      return answered instanceof BackendError ? Promise.reject(answered) : Promise.resolve(answered);
    },
    exportSession: (sessionId, format) => {
      sent.push({ method: "EXPORT", path: `${sessionId}.${format}` });
      return Promise.resolve({ outcome: "saved", path: `/home/ana/${sessionId}.${format === "json" ? "json" : "md"}` });
    },
    listen: (name, handler) => {
      handlers.set(name, handler);
      return Promise.resolve(() => {
        handlers.delete(name);
      });
    },
  };
  const emit = (name: string, payload: unknown) => {
    handlers.get(name)?.(payload);
  };
  return { shell, sent, emit, handlers };
}

const session = { id: "ses_1", title: "From the desk" };

describe("the attached backend", () => {
  it("sends the HTTP backend's requests through the shell's relay, paging with the server's cursor", async () => {
    const { shell, sent } = fakeShell(() => ({ status: 200, body: JSON.stringify([session]), headers: [["x-next-cursor", "c2"]] }));
    const backend = attachedBackend("https://dossier.example.com", shell);
    expect(backend.transport).toBe("attached");
    expect(backend.server).toBe("https://dossier.example.com");
    const page = await backend.listSessions({ limit: 1, search: "desk" });
    expect(page).toEqual({ sessions: [session], nextCursor: "c2" });
    expect(sent).toEqual([{ method: "GET", path: "/session?roots=true&limit=1&search=desk" }]);
    // Attached, chips are data: URLs and the relay reads none of the server's files.
    expect(backend.fileSymbols).toBeUndefined();
  });

  it("sends a prompt's body as JSON text, its dropped file already a data: URL", async () => {
    const { shell, sent } = fakeShell(() => ({ status: 200, body: JSON.stringify({ info: { id: "msg_1" }, parts: [] }), headers: [] }));
    const backend = attachedBackend("https://dossier.example.com", shell);
    await backend.sendPrompt("ses_1", { parts: [{ type: "file", mime: "text/plain", filename: "notes.txt", url: "data:text/plain;base64,aGk=" }] });
    expect(sent[0]?.method).toBe("POST");
    expect(sent[0]?.path).toBe("/session/ses_1/message");
    expect(JSON.parse(sent[0]?.body ?? "")).toEqual({ parts: [{ type: "file", mime: "text/plain", filename: "notes.txt", url: "data:text/plain;base64,aGk=" }] });
  });

  it("reads the server's typed errors, the shell's refusals and an empty 204", async () => {
    let next: RelayedResponse | BackendError = { status: 409, body: JSON.stringify({ kind: "busy", message: "The session is replying" }), headers: [] };
    const { shell } = fakeShell(() => next);
    const backend = attachedBackend("https://dossier.example.com", shell);
    await expect(backend.deleteSession("ses_1")).rejects.toMatchObject({ kind: "busy", message: "The session is replying" });
    next = new BackendError({ kind: "unavailable", message: "Could not reach the Dossier server at https://dossier.example.com: connection refused" });
    await expect(backend.listAgents()).rejects.toMatchObject({ kind: "unavailable" });
    next = { status: 204, body: "", headers: [] };
    await expect(backend.deleteSession("ses_1")).resolves.toBeUndefined();
  });

  it("takes events, resyncs and the stream's state from the shell, not an EventSource", () => {
    const { shell, emit, handlers } = fakeShell(() => new BackendError({ kind: "internal", message: "unused" }));
    const backend = attachedBackend("https://dossier.example.com", shell);
    const seen: string[] = [];
    const stop = backend.subscribe({
      onEvent: (event) => seen.push(event.type),
      onResync: () => seen.push("resync"),
      onConnection: (state) => seen.push(state),
    });
    return Promise.resolve().then(() => {
      emit(tauriEventNames.serverConnection, { state: "reconnecting" });
      emit(tauriEventNames.resync, { missed: 0 });
      emit(tauriEventNames.serverConnection, { state: "connected" });
      emit(tauriEventNames.core, { id: "evt_1", type: "session.updated", properties: {} });
      expect(seen).toEqual(["reconnecting", "resync", "connected", "session.updated"]);
      stop();
      expect(handlers.size).toBe(0);
    });
  });

  it("passes on the shell's refusal of a token the server no longer accepts, and its notice", async () => {
    // As `invoke` rejects: the shell's `{kind, message}`, not a BackendError.
    const refusal = { kind: "unauthorized", message: "https://dossier.example.com no longer accepts this computer's access token (it may have been revoked)." };
    const shell: RelayShell = {
      ...fakeShell(() => new BackendError({ kind: "internal", message: "unused" })).shell,
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what Tauri's invoke rejects with
      relay: () => Promise.reject(refusal),
    };
    const backend = attachedBackend("https://dossier.example.com", shell);
    await expect(backend.listAgents()).rejects.toMatchObject(refusal);
    await expect(backend.sendPrompt("ses_1", { parts: [] })).rejects.toMatchObject({ kind: "unauthorized" });
    const { shell: listening, emit } = fakeShell(() => new BackendError({ kind: "internal", message: "unused" }));
    const seen: string[] = [];
    attachedBackend("https://dossier.example.com", listening).subscribe({ onEvent: () => undefined, onResync: () => undefined, onConnection: (state) => seen.push(state) });
    await Promise.resolve();
    emit(tauriEventNames.serverConnection, { state: "refused" });
    expect(seen).toEqual(["refused"]);
  });

  it("exports through the shell's save dialog, not a download the window cannot save", async () => {
    const { shell, sent } = fakeShell(() => new BackendError({ kind: "internal", message: "unused" }));
    const backend = attachedBackend("https://dossier.example.com", shell);
    await expect(backend.exportSession("ses_1", "markdown")).resolves.toEqual({ outcome: "saved", path: "/home/ana/ses_1.md" });
    expect(sent).toEqual([{ method: "EXPORT", path: "ses_1.markdown" }]);
  });

  it("offers no MCP settings and no local provider settings while attached", async () => {
    const { shell } = fakeShell(() => new BackendError({ kind: "internal", message: "unused" }));
    const backend = attachedBackend("https://dossier.example.com", shell);
    expect(backend.mcp).toBeUndefined();
    await expect(backend.readSettings()).rejects.toMatchObject({ kind: "unavailable" });
  });
});

describe("the desktop window's backend", () => {
  it("is the attached one when the shell says a server is in use, the local one otherwise", async () => {
    const attached = await desktopBackend(() => Promise.resolve({ ledger: "server", url: "https://dossier.example.com", tokenRemembered: true }));
    expect(attached.transport).toBe("attached");
    expect(attached.server).toBe("https://dossier.example.com");
    const local = await desktopBackend(() => Promise.resolve({ ledger: "local", lastServer: "https://dossier.example.com" }));
    expect(local.transport).toBe("tauri");
    expect(local.server).toBeUndefined();
    // The start-up page refuses the question: the window is local.
    const refused = await desktopBackend(() => Promise.reject(new BackendError({ kind: "unavailable", message: "not open yet" })));
    expect(refused.transport).toBe("tauri");
  });
});
