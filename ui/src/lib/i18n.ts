// The choice between the locales and the lookup of a string in one of them. The tables live one
// file per locale in i18n/ (English is the source of truth for which keys exist); components take
// their lookup from the language context (i18n/language.ts) rather than as a prop.
import { en, type Messages } from "./i18n/en";
import { zhCN } from "./i18n/zh-CN";

export type { Messages } from "./i18n/en";

/** The locales we ship a table for. */
export type Locale = "en" | "zh-CN";

/** A key of the string tables, written `namespace.name` (`composer.sendButton`). */
export type MessageKey = { [Namespace in keyof Messages]: `${Namespace}.${keyof Messages[Namespace] & string}` }[keyof Messages];

/** All tables by locale. */
export const messages: Readonly<Record<Locale, Messages>> = { en, "zh-CN": zhCN };

/** A table's strings by their full `namespace.name` key, which is how they are looked up. */
export function flatTable(table: Messages): Readonly<Record<MessageKey, string>> {
  const flat: Record<string, string> = {};
  for (const [namespace, names] of Object.entries(table) as [string, Record<string, string>][]) {
    for (const [name, text] of Object.entries(names)) flat[`${namespace}.${name}`] = text;
  }
  return flat as Record<MessageKey, string>;
}

const flatTables: Readonly<Record<Locale, Readonly<Record<MessageKey, string>>>> = { en: flatTable(en), "zh-CN": flatTable(zhCN) };

/**
 * Picks the locale for a BCP 47 language tag such as `navigator.language`.
 *
 * Any Chinese tag (`zh`, `zh-CN`, `zh-Hans-SG`, and also `zh-TW`) gets the Simplified Chinese
 * table, because it is the only Chinese one we have and reads better than English for most
 * Chinese readers. Everything else, including a missing tag, falls back to English.
 */
export function pickLocale(languageTag: string | undefined): Locale {
  const primary = languageTag?.trim().toLowerCase().split(/[-_]/)[0];
  return primary === "zh" ? "zh-CN" : "en";
}

/** A lookup function bound to one locale. */
export type Translate = (key: MessageKey, values?: Readonly<Record<string, string | number>>) => string;

/** Replaces `{name}` placeholders. */
export function fill(template: string, values: Readonly<Record<string, string | number>> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = values[name];
    return value === undefined ? whole : String(value);
  });
}

/** How keyboard shortcuts are written: `{mod}K` reads "Ctrl+K" on Windows and Linux, "⌘K" on a Mac. */
export interface ShortcutKeys {
  mod: string;
  shift: string;
}

export const PC_KEYS: ShortcutKeys = { mod: "Ctrl+", shift: "Shift+" };
export const APPLE_KEYS: ShortcutKeys = { mod: "⌘", shift: "⇧" };

/** The shortcut spelling for a browser's user agent (`navigator.userAgent`). */
export function shortcutKeys(userAgent: string | undefined): ShortcutKeys {
  return /Mac|iPhone|iPad/.test(userAgent ?? "") ? APPLE_KEYS : PC_KEYS;
}

/** Returns the lookup function for `locale`, writing shortcuts with `keys`. */
export function translator(locale: Locale, keys: ShortcutKeys = PC_KEYS): Translate {
  const table = flatTables[locale];
  return (key, values) => fill(table[key], { mod: keys.mod, shift: keys.shift, ...values });
}

/** "512 bytes", "3.4 KB", "1.2 MB", "2.5 GB" in the reader's language. */
export function humanSize(t: Translate, bytes: number): string {
  if (bytes < 1024) return t("common.bytes", { count: bytes });
  if (bytes < 1024 * 1024) return t("common.kilobytes", { count: (bytes / 1024).toFixed(1) });
  if (bytes < 1024 * 1024 * 1024) return t("common.megabytes", { count: (bytes / (1024 * 1024)).toFixed(1) });
  return t("common.gigabytes", { count: (bytes / (1024 * 1024 * 1024)).toFixed(1) });
}
