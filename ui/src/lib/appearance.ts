// Theme and language. Both follow the system unless the person picks one in Settings; the pick is
// remembered in this install's web storage (the window's own webview data, or the browser's for
// the server's origin), so two installs can differ. The theme lands on <html data-theme>, which the
// stylesheet keys its dark colours on: one switch for both the system's scheme and a forced one,
// and it follows the system live while the choice is "system".
import { createSignal } from "solid-js";
import type { Locale } from "./i18n";
import { pickLocale } from "./i18n";

export type ThemeChoice = "system" | "light" | "dark";
export type LanguageChoice = "system" | Locale;
export type Theme = "light" | "dark";

export interface AppearanceChoice {
  theme: ThemeChoice;
  language: LanguageChoice;
}

export const themeChoices: readonly ThemeChoice[] = ["system", "light", "dark"];
export const languageChoices: readonly LanguageChoice[] = ["system", "en", "zh-CN"];

/** Where the choice is remembered. */
export const appearanceKey = "dossier.appearance";

const followSystem: AppearanceChoice = { theme: "system", language: "system" };

/** The stored choice; anything unreadable or unknown counts as "follow the system". */
export function readChoice(storage: Pick<Storage, "getItem">): AppearanceChoice {
  let stored: unknown;
  try {
    stored = JSON.parse(storage.getItem(appearanceKey) ?? "null");
  } catch {
    return followSystem;
  }
  if (typeof stored !== "object" || stored === null) return followSystem;
  const { theme, language } = stored as Record<string, unknown>;
  return {
    theme: themeChoices.find((choice) => choice === theme) ?? "system",
    language: languageChoices.find((choice) => choice === language) ?? "system",
  };
}

/**
 * The locale for a language choice. "system" takes the first of the person's preferred languages
 * (`navigator.languages`, most wanted first) that Dossier has, so "fr, zh-CN" reads Chinese rather
 * than falling to English at the first unknown tag.
 */
export function localeFor(choice: LanguageChoice, systemLanguages: readonly string[]): Locale {
  if (choice !== "system") return choice;
  for (const tag of systemLanguages) {
    const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
    if (primary === "en" || primary === "zh") return pickLocale(tag);
  }
  return "en";
}

export function themeFor(choice: ThemeChoice, systemDark: boolean): Theme {
  if (choice !== "system") return choice;
  return systemDark ? "dark" : "light";
}

/** The part of a `MediaQueryList` the appearance uses. */
export interface SchemeQuery {
  readonly matches: boolean;
  addEventListener(type: "change", listener: (event: { matches: boolean }) => void): void;
}

/** What the appearance needs from its surroundings (the browser's globals; a test's stand-ins). */
export interface AppearanceSystem {
  storage: Pick<Storage, "getItem" | "setItem">;
  languages: () => readonly string[];
  /** The `(prefers-color-scheme: dark)` query; it reports changes while the app runs. */
  darkQuery: SchemeQuery;
}

export interface Appearance {
  choice: () => AppearanceChoice;
  theme: () => Theme;
  locale: () => Locale;
  choose: (change: Partial<AppearanceChoice>) => void;
}

export function createAppearance(system: AppearanceSystem): Appearance {
  const [choice, setChoice] = createSignal(readChoice(system.storage));
  const [systemDark, setSystemDark] = createSignal(system.darkQuery.matches);
  system.darkQuery.addEventListener("change", (event) => setSystemDark(event.matches));
  const [systemLanguages, setSystemLanguages] = createSignal(system.languages());
  // The system's languages can change while the app runs (the browser fires `languagechange`).
  if (typeof window !== "undefined") window.addEventListener("languagechange", () => setSystemLanguages(system.languages()));
  return {
    choice,
    theme: () => themeFor(choice().theme, systemDark()),
    locale: () => localeFor(choice().language, systemLanguages()),
    choose: (change) => {
      const next = setChoice((current) => ({ ...current, ...change }));
      system.storage.setItem(appearanceKey, JSON.stringify(next));
    },
  };
}

let shared: Appearance | undefined;

/** The app's one appearance, made from the browser's globals the first time it is asked for. */
export function appAppearance(): Appearance {
  shared ??= createAppearance({
    storage: localStorage,
    languages: () => (navigator.languages.length > 0 ? navigator.languages : [navigator.language]),
    // Every browser and webview has matchMedia; the unit tests' DOM does not (read as light).
    darkQuery: typeof window.matchMedia === "function" ? window.matchMedia("(prefers-color-scheme: dark)") : { matches: false, addEventListener: () => undefined },
  });
  return shared;
}

/** Puts the theme and language on the document (the stylesheet reads `data-theme`). */
export function applyAppearance(root: HTMLElement, theme: Theme, locale: Locale): void {
  root.dataset.theme = theme;
  root.lang = locale;
}
