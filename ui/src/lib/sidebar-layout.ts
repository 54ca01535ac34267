// Whether the sidebar is shown. A person hides or shows it (the toggle, Ctrl/Cmd+B) and that
// choice is remembered; a window narrower than `narrowWindowWidth` hides it on its own, because
// beside a 260-px sidebar the conversation would be a column of a few words. In such a window
// the toggle still opens it, over the conversation, until a session is chosen or it is closed.

/** Below this window width (CSS pixels) the sidebar hides itself. */
export const narrowWindowWidth = 700;

/** The media query that matches a window narrower than `narrowWindowWidth`. */
export const narrowWindowQuery = `(max-width: ${String(narrowWindowWidth - 0.02)}px)`;

export interface SidebarLayoutInput {
  /** The window is narrower than `narrowWindowWidth`. */
  narrow: boolean;
  /** The person's remembered choice for a wide window. */
  collapsedByChoice: boolean;
  /** In a narrow window, the person opened it with the toggle (not remembered). */
  openedWhileNarrow: boolean;
}

export type SidebarLayout = "beside" | "hidden" | "over";

/** Beside the conversation, hidden, or over it (opened in a narrow window). */
export function sidebarLayout(input: SidebarLayoutInput): SidebarLayout {
  if (input.narrow) return input.openedWhileNarrow ? "over" : "hidden";
  return input.collapsedByChoice ? "hidden" : "beside";
}
