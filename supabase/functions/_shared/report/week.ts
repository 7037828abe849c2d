/**
 * The owner's week: which week a weekly report tells (the last full one, Monday to Sunday in the
 * brand's calendar, `contract/calendar-day.ts`), and its numbers taken from the owner's report
 * (`report.ts`): the week against the week before, its new readers by source, the Effect of the
 * week that lost the most readers, and the days the chart draws. Pure: it reads nothing.
 */
import { dayAndTimeIn } from "../contract/calendar-day.ts";
import { type EffectOutcome, mostReadersLost } from "./effect-outcomes.ts";
import { addDays, type GrowthDay, type GrowthSeries, lastDays, type Period } from "./growth.ts";
import type { OwnerReport } from "./report.ts";

/** A week of the brand's calendar: Monday to Sunday, YYYY-MM-DD. */
export interface ReportWeek {
  from: string;
  to: string;
}

/** How many weeks the chart draws the list's size over: the report reads that many, to the week's end. */
export const CHART_WEEKS = 8;
/** How many sources the mail names, most new readers first. */
export const TOP_SOURCES = 5;

/** The Monday (YYYY-MM-DD) of the week `day` is in. */
export function mondayOf(day: string): string {
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
  return addDays(day, -((weekday + 6) % 7));
}

/** The last full week before the one `today` is in. */
export function lastFullWeek(today: string): ReportWeek {
  const monday = mondayOf(today);
  return { from: addDays(monday, -7), to: addDays(monday, -1) };
}

/**
 * The week whose report is due at `now` in `timeZone`, or null: from Monday at `sendAt` (HH:MM),
 * the week before this Monday's is due, and stays due until the next Monday.
 */
export function dueWeek(now: Date, timeZone: string, sendAt: string): ReportWeek | null {
  const { day, time } = dayAndTimeIn(timeZone, now);
  if (day === mondayOf(day) && time < sendAt) return null;
  return lastFullWeek(day);
}

/** The days the report is read for: the chart's weeks, ending with `week`. */
export const reportDays = (week: ReportWeek): ReportWeek => ({
  from: addDays(week.from, -7 * (CHART_WEEKS - 1)),
  to: week.to,
});

export interface WeekNumbers {
  week: ReportWeek;
  thisWeek: Period;
  weekBefore: Period;
  /** This week's new readers by source, most first: at most `TOP_SOURCES`, none with 0. */
  sources: { source: string; joined: number }[];
  /** The Effect dated in the week that lost the most readers; null when none lost one. */
  mostLost: EffectOutcome | null;
  /** Every day the chart draws (`CHART_WEEKS` weeks), oldest first. */
  days: GrowthDay[];
}

/** The series as it stood `count` days before its end: `lastDays` of it is the week before. */
function seriesUntil(series: GrowthSeries, count: number): GrowthSeries {
  const days = series.days.slice(0, -count);
  const last = days.at(-1);
  if (!last) return { ...series, days: [], totals: { ...series.totals, listSize: series.startSize } };
  return { ...series, days, to: last.day, totals: { ...series.totals, listSize: last.listSize } };
}

/** The week's numbers from a report read over `reportDays(week)`. */
export function weekNumbers(report: OwnerReport, week: ReportWeek): WeekNumbers {
  const { series } = report;
  if (series.to !== week.to || series.days.length < 14)
    throw new Error(
      `The report runs ${series.from} to ${series.to}: it must end ${week.to} and hold two weeks`,
    );
  const thisWeek = lastDays(series, 7);
  const weekBefore = lastDays(seriesUntil(series, 7), 7);
  const joinedBy = new Map<string, number>();
  for (const day of series.days.slice(-7))
    for (const [source, counts] of Object.entries(day.bySource))
      joinedBy.set(source, (joinedBy.get(source) ?? 0) + counts.joined);
  const sources = [...joinedBy]
    .filter(([, joined]) => joined > 0)
    .sort(([a, one], [b, two]) => two - one || a.localeCompare(b))
    .slice(0, TOP_SOURCES)
    .map(([source, joined]) => ({ source, joined }));
  const ofWeek = report.effects.filter((effect) => effect.date >= week.from && effect.date <= week.to);
  const [mostLost = null] = mostReadersLost(ofWeek, 1);
  return { week, thisWeek, weekBefore, sources, mostLost, days: series.days };
}
