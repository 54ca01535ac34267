// The language context: the lookup function and locale every component takes its text from, so
// text is not passed down as a prop. The app provides it once (main.tsx); a component rendered
// without a provider, as in most unit tests, reads English.
import { createContext, useContext } from "solid-js";
import { type Locale, PC_KEYS, type ShortcutKeys, type Translate, translator } from "./i18n";

/** What a component needs to speak the reader's language. */
export interface Language {
  /** Looks a `namespace.name` key up in the current locale. */
  t: Translate;
  /** The current locale, for dates and numbers. */
  locale: () => Locale;
}

/** A language following `locale` (a signal, or one fixed locale), writing shortcuts with `keys`. */
export function language(locale: Locale | (() => Locale), keys: ShortcutKeys = PC_KEYS): Language {
  const current = typeof locale === "function" ? locale : () => locale;
  return { t: (key, values) => translator(current(), keys)(key, values), locale: current };
}

export const LanguageContext = createContext<Language>(language("en"));

/** The language of the surrounding provider (English where there is none). */
export function useLanguage(): Language {
  return useContext(LanguageContext);
}
