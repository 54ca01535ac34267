import { describe, expect, it } from "vitest";
import { createToasts, toastMs } from "./toasts";

describe("createToasts", () => {
  it("shows the newest toast and lets each go after its own time, never a newer one", () => {
    const timers: { run: () => void; ms: number }[] = [];
    const toasts = createToasts((run, ms) => timers.push({ run, ms }));
    toasts.show("Saved to /tmp/a.md");
    expect(toasts.current()?.text).toBe("Saved to /tmp/a.md");
    expect(timers[0]?.ms).toBe(toastMs);
    let undone = 0;
    toasts.show("Archived “Taxes”", () => (undone += 1));
    // The first toast's timer fires: the newer one stays.
    timers[0]?.run();
    expect(toasts.current()?.text).toBe("Archived “Taxes”");
    toasts.current()?.undo?.();
    expect(undone).toBe(1);
    timers[1]?.run();
    expect(toasts.current()).toBeUndefined();
  });

  it("can be dismissed at once", () => {
    const toasts = createToasts(() => undefined);
    toasts.show("Saved");
    toasts.dismiss();
    expect(toasts.current()).toBeUndefined();
  });
});
