// A search excerpt: plain pieces as text, matched pieces in <mark>. Everything is inserted as
// text nodes, never as HTML, so whatever a message said (tags included) shows as written.
import { type Component, For, Show } from "solid-js";
import type { ExcerptPiece } from "../lib/bindings/ExcerptPiece";
import type { Translate } from "../lib/i18n";

export const ExcerptText: Component<{ pieces: readonly ExcerptPiece[] }> = (props) => (
  <For each={props.pieces}>
    {(piece) => (
      <Show when={piece.highlighted} fallback={piece.text}>
        <mark class="excerpt-mark">{piece.text}</mark>
      </Show>
    )}
  </For>
);

/** Where an excerpt was found, in the reader's language. */
export function fieldLabel(t: Translate, field: string): string {
  switch (field) {
    case "title":
      return t("palette.searchFieldTitle");
    case "reasoning":
      return t("palette.searchFieldReasoning");
    case "file":
      return t("palette.searchFieldFile");
    default:
      return t("palette.searchFieldText");
  }
}
