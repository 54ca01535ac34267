import { afterEach, describe, expect, it } from "vitest";
import { detectTransport, toBackendError } from "./transport";

describe("detectTransport", () => {
  afterEach(() => {
    Reflect.deleteProperty(window, "__TAURI_INTERNALS__");
  });

  it("says http for a plain browser scope", () => {
    expect(detectTransport({})).toBe("http");
  });

  it("says tauri when Tauri's internals are injected", () => {
    expect(detectTransport({ __TAURI_INTERNALS__: { invoke: () => undefined } })).toBe("tauri");
  });

  it("does not mistake an empty marker for Tauri", () => {
    expect(detectTransport({ __TAURI_INTERNALS__: undefined })).toBe("http");
    expect(detectTransport({ __TAURI_INTERNALS__: null })).toBe("http");
  });

  it("reads the real window by default", () => {
    expect(detectTransport()).toBe("http");
    Reflect.set(window, "__TAURI_INTERNALS__", {});
    expect(detectTransport()).toBe("tauri");
  });
});

describe("toBackendError", () => {
  it("keeps the server's own kinds, which the core's ErrorKind does not have", () => {
    for (const kind of ["misdirected", "forbidden_origin", "unsupported_media_type", "not_found"]) {
      expect(toBackendError({ kind, message: "refused" })).toMatchObject({ kind, message: "refused" });
    }
  });

  it("reads a kind it does not know as internal, and anything else as a network failure", () => {
    expect(toBackendError({ kind: "teapot", message: "short and stout" }).kind).toBe("internal");
    expect(toBackendError(new Error("connection refused")).kind).toBe("network");
  });
});
