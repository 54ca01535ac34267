// Coalesces high-rate items (streaming deltas) into one flush per animation frame: every item
// is delivered, in order, but the UI updates at most once a frame.

export function frameBatch<T>(flush: (items: T[]) => void, schedule: (callback: () => void) => void = nextFrame): (item: T) => void {
  let queue: T[] = [];
  let scheduled = false;
  return (item) => {
    queue.push(item);
    if (scheduled) return;
    scheduled = true;
    schedule(() => {
      scheduled = false;
      const items = queue;
      queue = [];
      flush(items);
    });
  };
}

function nextFrame(callback: () => void): void {
  // A hidden window gets no animation frames; a timer keeps events flowing there too.
  if (typeof requestAnimationFrame === "function" && document.visibilityState === "visible") requestAnimationFrame(callback);
  else setTimeout(callback, 16);
}
