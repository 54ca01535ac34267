// Transient results ("Saved to …", "Archived “Taxes”"): one toast at a time, newest wins, gone
// by itself after a few seconds. Where the action can be taken back, the toast carries Undo.
import { type Accessor, createSignal } from "solid-js";

export interface Toast {
  serial: number;
  text: string;
  /** Takes the action back; the toast goes when it is pressed. */
  undo?: () => void;
}

export interface Toasts {
  current: Accessor<Toast | undefined>;
  show: (text: string, undo?: () => void) => void;
  dismiss: () => void;
}

/** Long enough to read a path and reach Undo. */
export const toastMs = 7000;

export function createToasts(schedule: (run: () => void, ms: number) => unknown = setTimeout): Toasts {
  const [current, setCurrent] = createSignal<Toast | undefined>();
  let serial = 0;
  /** The toast on screen, by serial: a timer only takes away the toast it was set for. */
  let showing = 0;
  const dismiss = () => {
    showing = 0;
    setCurrent(undefined);
  };
  const show = (text: string, undo?: () => void) => {
    serial += 1;
    const shown = serial;
    showing = shown;
    setCurrent({ serial: shown, text, ...(undo === undefined ? {} : { undo }) });
    schedule(() => {
      if (showing === shown) dismiss();
    }, toastMs);
  };
  return { current, show, dismiss };
}
