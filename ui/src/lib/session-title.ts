// What the sidebar, the header and the palette call a session. Titles are shown as plain text:
// a model sometimes writes its title as Markdown ("## Summary of your file"), and the marks mean
// nothing in a one-line label. The core strips them when it generates a title
// (src-tauri/core/src/wire/plain_title.rs); this covers titles stored before it did, and ones a
// person typed. The core gives new sessions OpenCode's placeholder title
// ("New session - 2026-11-30T03:15:19.420Z", which tells title generation it is still a
// placeholder); people see a short "New session · 03:15" (today) or "New session · 30 Nov"
// in their own language instead.
import type { Locale, Translate } from "./i18n";

// The Markdown → plain text part is its own file, beside this one, so that the HTTP backend can
// name a download with it without reaching back into lib/ (the rooms rule, architecture.test.ts).
export { plainExcerptPieces, plainFileName, plainTitle } from "./session-title/plain-text";
import { plainTitle } from "./session-title/plain-text";

const placeholder = /^(New|Child) session - (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)$/;

/** Whether a title is still the core's placeholder for a new session (nothing named it yet). */
export function isPlaceholderTitle(title: string): boolean {
  return placeholder.test(title);
}

/**
 * A fork's title as the core makes it (`reshaping/fork.rs`: "Trip (fork #2)"), split so the row
 * can show the source's title and the number apart; undefined for a title that is not a fork's.
 */
export function forkOf(title: string): { source: string; number: number } | undefined {
  const match = /^(.*\S) \(fork #(\d+)\)$/s.exec(title);
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  return { source: match[1], number: Number(match[2]) };
}

export function displayTitle(title: string, t: Translate, locale: Locale, now: Date = new Date()): string {
  const match = placeholder.exec(title);
  if (match?.[2] === undefined) return plainTitle(title);
  const when = new Date(match[2]);
  if (Number.isNaN(when.getTime())) return title;
  const sameDay = when.toDateString() === now.toDateString();
  const formatted = new Intl.DateTimeFormat(locale, sameDay ? { timeStyle: "short" } : { month: "short", day: "numeric" }).format(when);
  return `${match[1] === "Child" ? t("sessions.childSession") : t("sessions.newSession")} · ${formatted}`;
}
