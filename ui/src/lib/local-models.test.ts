import { describe, expect, it } from "vitest";
import { flatTable, fill, messages, type Translate } from "./i18n";
import { downloadActions, isModelFile, percent, progressLine, timeLeft } from "./local-models";
import type { ModelDownloadProgress } from "./bindings/ModelDownloadProgress";

const english = flatTable(messages.en);
const t: Translate = (key, values) => fill(english[key], values);
const chinese = flatTable(messages["zh-CN"]);
const tZh: Translate = (key, values) => fill(chinese[key], values);

const MB = 1024 * 1024;

function progress(patch: Partial<ModelDownloadProgress>): ModelDownloadProgress {
  return { modelId: "qwen", status: "downloading", receivedBytes: 300 * MB, totalBytes: 1000 * MB, ...patch };
}

describe("the download's progress line", () => {
  it("says bytes, speed and time left while bytes arrive", () => {
    expect(progressLine(t, progress({ bytesPerSecond: 5 * MB, secondsLeft: 140 }))).toBe("300.0 MB of 1000.0 MB · 5.0 MB/s · 2 min 20 s left");
    expect(progressLine(tZh, progress({ bytesPerSecond: 5 * MB, secondsLeft: 140 }))).toBe("300.0 MB / 1000.0 MB · 5.0 MB/秒 · 剩余 2 分 20 秒");
  });

  it("says it waits for the server, with no speed, when nothing arrives", () => {
    const line = progressLine(t, progress({ status: "waiting_for_server" }));
    expect(line).toBe("300.0 MB of 1000.0 MB · Waiting for the server…");
    expect(line).not.toContain("/s");
    // A stale speed on a waiting download is never shown.
    expect(progressLine(t, progress({ status: "waiting_for_server", bytesPerSecond: 5 * MB }))).not.toContain("/s");
  });

  it("names the other states", () => {
    expect(progressLine(t, progress({ status: "paused" }))).toContain("Paused");
    expect(progressLine(t, progress({ status: "verifying", receivedBytes: 1000 * MB }))).toContain("Checking the file");
  });

  it("times and percentages read as people read them", () => {
    expect(timeLeft(t, 45)).toBe("45 s");
    expect(timeLeft(t, 3 * 3600 + 120)).toBe("3 h 2 min");
    expect(percent(progress({}))).toBe(30);
    expect(percent(progress({ totalBytes: 0 }))).toBe(0);
  });
});

describe("download buttons and dropped models", () => {
  it("offers pause while moving, resume when paused or stopped, nothing once verifying", () => {
    expect(downloadActions("downloading")).toEqual(["pause", "cancel"]);
    expect(downloadActions("waiting_for_server")).toEqual(["pause", "cancel"]);
    expect(downloadActions("paused")).toEqual(["resume", "cancel"]);
    expect(downloadActions("failed")).toEqual(["resume", "cancel"]);
    expect(downloadActions("verifying")).toEqual([]);
  });

  it("takes a .gguf file as a model, whatever its case", () => {
    expect(isModelFile("qwen2.5-0.5b-instruct-q4_k_m.gguf")).toBe(true);
    expect(isModelFile("MODEL.GGUF")).toBe(true);
    expect(isModelFile("notes.gguf.txt")).toBe(false);
  });
});
