// The sidebar's sections: Pinned on top, then by when a session was last active — Today,
// Yesterday, Previous 7 days, then one section per month, newest first. A pure function of the
// sessions and the clock, so the list, its keyboard order and the tests agree on one order.
import type { Session } from "./bindings/Session";
import type { Locale, Translate } from "./i18n";

export type SessionListItem =
  | { kind: "heading"; key: string; label: string }
  | { kind: "session"; session: Session };

const dayMs = 24 * 60 * 60 * 1000;

function startOfDay(when: Date): number {
  return new Date(when.getFullYear(), when.getMonth(), when.getDate()).getTime();
}

/** The section a session belongs to, and its rank (lower comes first). */
export function sectionOf(session: Session, now: Date): { key: string; rank: number; month?: Date } {
  if (session.pinned === true) return { key: "pinned", rank: 0 };
  const updated = session.time.updated;
  const today = startOfDay(now);
  if (updated >= today) return { key: "today", rank: 1 };
  if (updated >= today - dayMs) return { key: "yesterday", rank: 2 };
  if (updated >= today - 7 * dayMs) return { key: "week", rank: 3 };
  const when = new Date(updated);
  // Months rank by how long ago they were: this month's older days first, and so on back.
  const monthsAgo = (now.getFullYear() - when.getFullYear()) * 12 + now.getMonth() - when.getMonth();
  return { key: `month-${String(when.getFullYear())}-${String(when.getMonth() + 1)}`, rank: 4 + monthsAgo, month: when };
}

/** Headings and sessions in the order shown; within a section the given order is kept. */
export function groupSessions(sessions: readonly Session[], now: Date, t: Translate, locale: Locale): SessionListItem[] {
  const sections = new Map<string, { rank: number; label: string; sessions: Session[] }>();
  const monthName = new Intl.DateTimeFormat(locale, { month: "long", year: "numeric" });
  const labels: Record<string, string> = { pinned: t("sessions.groupPinned"), today: t("sessions.groupToday"), yesterday: t("sessions.groupYesterday"), week: t("sessions.groupPreviousWeek") };
  for (const session of sessions) {
    const section = sectionOf(session, now);
    let entry = sections.get(section.key);
    if (entry === undefined) {
      entry = { rank: section.rank, label: labels[section.key] ?? monthName.format(section.month ?? new Date(session.time.updated)), sessions: [] };
      sections.set(section.key, entry);
    }
    entry.sessions.push(session);
  }
  return [...sections.entries()]
    .sort(([, a], [, b]) => a.rank - b.rank)
    .flatMap(([key, section]) => [{ kind: "heading" as const, key, label: section.label }, ...section.sessions.map((session) => ({ kind: "session" as const, session }))]);
}
