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
} as const;

export type IconName = keyof typeof paths;

export const Icon: Component<{ name: IconName }> = (props) => (
  <svg class="icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
    <path d={paths[props.name]} fill="none" stroke="currentColor" stroke-width="1.3" stroke-linejoin="round" stroke-linecap="round" />
  </svg>
);
