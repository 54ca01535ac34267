// Selecting several sessions in the sidebar: a click with Ctrl/Cmd (or the row's checkbox)
// toggles one, a click with Shift adds everything between the last toggled row and this one.
// Pure functions over the ids in the order the sidebar shows them.

export interface Selection {
  ids: ReadonlySet<string>;
  /** The row a Shift-click extends from. */
  anchor: string | undefined;
}

export const noSelection: Selection = { ids: new Set(), anchor: undefined };

export function toggle(selection: Selection, id: string): Selection {
  const ids = new Set(selection.ids);
  if (ids.has(id)) ids.delete(id);
  else ids.add(id);
  return { ids, anchor: id };
}

/** Adds the rows from the anchor to `id` (inclusive); without an anchor, just `id`. */
export function extend(selection: Selection, order: readonly string[], id: string): Selection {
  const to = order.indexOf(id);
  const from = selection.anchor === undefined ? -1 : order.indexOf(selection.anchor);
  if (to < 0) return selection;
  if (from < 0) return toggle(selection, id);
  const ids = new Set(selection.ids);
  for (const between of order.slice(Math.min(from, to), Math.max(from, to) + 1)) ids.add(between);
  return { ids, anchor: selection.anchor };
}

/** Keeps only rows still shown, so an action never reaches a session the filter hides. */
export function prune(selection: Selection, order: readonly string[]): Selection {
  const shown = new Set(order);
  const ids = new Set([...selection.ids].filter((id) => shown.has(id)));
  if (ids.size === selection.ids.size && (selection.anchor === undefined || shown.has(selection.anchor))) return selection;
  return { ids, anchor: selection.anchor !== undefined && shown.has(selection.anchor) ? selection.anchor : undefined };
}

/** The selected ids in the order they are shown. */
export function selectedInOrder(selection: Selection, order: readonly string[]): string[] {
  return order.filter((id) => selection.ids.has(id));
}
