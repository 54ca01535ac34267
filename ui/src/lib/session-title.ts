// What the sidebar calls a session. The core gives new sessions OpenCode's placeholder title
// ("New session - 2026-11-30T03:15:19.420Z", which tells title generation it is still a
// placeholder); people see "New session · 30 Nov 2026, 03:15" in their own language instead.
import type { Locale, Translate } from "./i18n";

const placeholder = /^(New|Child) session - (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)$/;

export function displayTitle(title: string, t: Translate, locale: Locale): string {
  const match = placeholder.exec(title);
  if (match?.[2] === undefined) return title;
  const when = new Date(match[2]);
  if (Number.isNaN(when.getTime())) return title;
  const formatted = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }).format(when);
  return `${match[1] === "Child" ? t("childSession") : t("newSession")} · ${formatted}`;
}
