// Small inline icons. SVG rather than emoji: a desktop without an emoji font (many Linux
// installs) would otherwise show empty boxes.
import type { Component } from "solid-js";

const paths = {
  file: "M4 1.5h5l3 3v10H4z M9 1.5v3h3",
  folder: "M1.5 3.5h5l1.5 1.5h6.5v8.5h-13z",
  image: "M2 2.5h12v11H2z M2 11l3.5-3.5 3 3 2-2 3.5 3.5 M10.5 6a1 1 0 1 0 0.01 0",
  clip: "M11 5.5 6.2 10.3a1.6 1.6 0 0 1-2.3-2.3L9.3 2.6a2.8 2.8 0 0 1 4 4l-5.6 5.6a4 4 0 0 1-5.7-5.7L6.8 1.7",
  context: "M3 2.5h10v11H3z M5.5 5.5h5 M5.5 8h5 M5.5 10.5h3",
  plus: "M8 3v10 M3 8h10",
  search: "M7 2.5a4.5 4.5 0 1 0 0.01 0 M10.3 10.3 13.5 13.5",
  pin: "M6 2h4 M6.8 2l-.6 4.5L4 9h8L9.8 6.5 9.2 2 M8 9v5",
  settings: "M2.5 4.5h6 M11.5 4.5h2 M2.5 11.5h2 M7.5 11.5h6 M10 3v3 M6 10v3",
  pencil: "M10.5 2.5l3 3-8 8H2.5v-3z M9 4l3 3",
  archive: "M1.5 2.5h13v3h-13z M2.5 5.5v8h11v-8 M6 8.5h4",
  restore: "M3 8a5 5 0 1 0 1.5-3.5 M3 2.5v3h3",
  trash: "M2.5 4h11 M6 4V2.5h4V4 M3.8 4l.7 9.5h7l.7-9.5 M6.5 6.5v4.5 M9.5 6.5v4.5",
  undo: "M5.5 3.5 2.5 6.5l3 3 M2.5 6.5h7a3.5 3.5 0 0 1 0 7h-3",
  redo: "M10.5 3.5l3 3-3 3 M13.5 6.5h-7a3.5 3.5 0 0 0 0 7h3",
  more: "M3.5 8h.01 M8 8h.01 M12.5 8h.01",
  sidebar: "M1.5 2.5h13v11h-13z M5.5 2.5v11",
  import: "M8 1.5v8 M5 6.5l3 3 3-3 M2.5 10.5v3h11v-3",
  check: "M3 8.5l3 3 7-7",
  fork: "M4.5 2.5v5a3 3 0 0 0 3 3h1 M11.5 2.5v3a3 3 0 0 1-3 3 M8.5 10.5v3 M4.5 2.5h.01 M11.5 2.5h.01",
  "new-session": "M13.5 8.5v5h-11v-11h5 M11.5 1.5l3 3-6 6H5.5v-3z",
} as const;

export type IconName = keyof typeof paths;

export const Icon: Component<{ name: IconName; size?: number }> = (props) => (
  <svg class="icon" viewBox="0 0 16 16" width={props.size ?? 14} height={props.size ?? 14} aria-hidden="true">
    {/* The dots of "more" are zero-length strokes: round caps draw them. */}
    <path d={paths[props.name]} fill="none" stroke="currentColor" stroke-width={props.name === "more" ? 2.4 : 1.3} stroke-linejoin="round" stroke-linecap="round" />
  </svg>
);
