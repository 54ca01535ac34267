import { createRoot } from "solid-js";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLiveSearch } from "./live-search";
import { BackendError } from "./transport";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A search whose answers the test releases one by one. */
function controlled() {
  const asked: { text: string; answer: (value: string[]) => void; fail: (error: unknown) => void }[] = [];
  const run = (text: string) =>
    new Promise<string[]>((answer, fail) => {
      asked.push({ text, answer, fail });
    });
  return { asked, run };
}

describe("createLiveSearch", () => {
  it("asks once typing pauses, with the trimmed text", async () => {
    const { asked, run } = controlled();
    const search = createRoot(() => createLiveSearch(run, 150));
    search.setQuery("q");
    search.setQuery("qu");
    search.setQuery(" quokka ");
    await vi.advanceTimersByTimeAsync(149);
    expect(asked).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(asked.map((question) => question.text)).toEqual(["quokka"]);
    expect(search.state()).toEqual({ status: "loading" });
    asked[0]?.answer(["ses_a"]);
    await vi.runAllTimersAsync();
    expect(search.state()).toEqual({ status: "done", results: ["ses_a"] });
  });

  it("never shows a slower answer to an older query over the newer one", async () => {
    const { asked, run } = controlled();
    const search = createRoot(() => createLiveSearch(run, 100));
    search.setQuery("tax");
    await vi.advanceTimersByTimeAsync(100);
    search.setQuery("taxes");
    await vi.advanceTimersByTimeAsync(100);
    asked[1]?.answer(["new"]);
    await vi.runAllTimersAsync();
    asked[0]?.answer(["old"]);
    await vi.runAllTimersAsync();
    expect(search.state()).toEqual({ status: "done", results: ["new"] });
  });

  it("reports a failure as an error state with the backend's message", async () => {
    const { asked, run } = controlled();
    const search = createRoot(() => createLiveSearch(run, 0));
    search.setQuery("x");
    await vi.advanceTimersByTimeAsync(0);
    asked[0]?.fail(new BackendError({ kind: "internal", message: "database is locked" }));
    await vi.runAllTimersAsync();
    expect(search.state()).toEqual({ status: "error", message: "database is locked" });
  });

  it("goes back to idle when the field is emptied, dropping what was on its way", async () => {
    const { asked, run } = controlled();
    const search = createRoot(() => createLiveSearch(run, 50));
    search.setQuery("walrus");
    await vi.advanceTimersByTimeAsync(50);
    search.setQuery("   ");
    expect(search.state()).toEqual({ status: "idle" });
    asked[0]?.answer(["late"]);
    await vi.runAllTimersAsync();
    expect(search.state()).toEqual({ status: "idle" });
    expect(asked).toHaveLength(1);
  });

  it("refresh asks again at once; dispose cancels a pending search", async () => {
    const { asked, run } = controlled();
    const search = createRoot(() => createLiveSearch(run, 500));
    search.setQuery("walrus");
    search.refresh();
    await vi.advanceTimersByTimeAsync(0);
    expect(asked).toHaveLength(1);
    search.setQuery("walruses");
    search.dispose();
    await vi.runAllTimersAsync();
    expect(asked).toHaveLength(1);
  });
});
