// A ledger opened read-only (a newer Dossier's database, opened from the start-up page): why, for
// the banner, and a context so a component can leave out what would write. Buttons that write
// carry `data-writes` and disappear under `.app--read-only` (components/StartUpProblem.css); this context is for
// the few writes that are not a button (a double click that renames, a shortcut).
import { createContext, useContext } from "solid-js";
import type { ReadOnlyLedger } from "./bindings/ReadOnlyLedger";
import type { Translate } from "./i18n";

export const ReadOnlyContext = createContext<ReadOnlyLedger | undefined>(undefined);

/** Whether the ledger is read-only, inside the app. */
export function useReadOnly(): () => boolean {
  const readOnly = useContext(ReadOnlyContext);
  return () => readOnly !== undefined;
}

/** "Read-only: this ledger was last written by Dossier 3.1.0 — install Dossier 3.1.0 or later to change it." */
export function readOnlyBanner(t: Translate, readOnly: ReadOnlyLedger): string {
  const maker = readOnly.madeBy === null ? t("startUp.newerMaker") : t("startUp.maker", { version: readOnly.madeBy });
  return t("app.readOnlyBanner", { maker });
}
