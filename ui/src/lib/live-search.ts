// Search as you type, shared by the search palette and find-in-session: waits until typing
// pauses, asks once, and shows only the answer to what is typed now (a slower answer to an
// older query is dropped, never shown over a newer one).
import { type Accessor, createSignal } from "solid-js";
import { toBackendError } from "./transport";

export type LiveSearchState<T> =
  | { status: "idle" }
  | { status: "loading" }
  | { status: "done"; results: T }
  | { status: "error"; message: string };

export interface LiveSearch<T> {
  query: Accessor<string>;
  state: Accessor<LiveSearchState<T>>;
  /** Sets what is typed; the search runs once typing pauses for `delay` milliseconds. */
  setQuery(text: string): void;
  /** Runs the current query again now (a filter changed). */
  refresh(): void;
  /** Cancels a pending search; call when the view closes. */
  dispose(): void;
}

export const typingPause = 150;

export function createLiveSearch<T>(run: (text: string) => Promise<T>, delay = typingPause): LiveSearch<T> {
  const [query, setQueryText] = createSignal("");
  const [state, setState] = createSignal<LiveSearchState<T>>({ status: "idle" });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;

  const start = () => {
    timer = undefined;
    const text = query().trim();
    const asked = ++generation;
    if (text === "") {
      setState({ status: "idle" });
      return;
    }
    setState({ status: "loading" });
    run(text).then(
      (results) => {
        if (asked === generation) setState({ status: "done", results });
      },
      (error: unknown) => {
        if (asked === generation) setState({ status: "error", message: toBackendError(error).message });
      },
    );
  };

  const schedule = (wait: number) => {
    if (timer !== undefined) clearTimeout(timer);
    // Whatever was on its way is now out of date.
    generation++;
    if (query().trim() === "") {
      timer = undefined;
      setState({ status: "idle" });
      return;
    }
    timer = setTimeout(start, wait);
  };

  return {
    query,
    state,
    setQuery(text) {
      if (text === query()) return;
      setQueryText(text);
      schedule(delay);
    },
    refresh() {
      schedule(0);
    },
    dispose() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      generation++;
    },
  };
}
