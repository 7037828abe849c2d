/**
 * The list's growth, day by day in the brand's calendar day, with no missing days: readers who
 * joined (confirmed), left by the unsubscribe link, were suppressed by a bounce or left by a
 * complaint, and the list's size at the end of each day, in total and by source (`sources.ts`).
 * It only reads, in one statement whose answer has at most (days + 1) x sources x 4 rows: the
 * rows are grouped into days by PostgreSQL, against the days' bounds made here
 * (`contract/calendar-day.ts`), so a year costs the same on Supabase as on PGlite.
 *
 * What the rows can tell: `subscribers` keeps each reader's latest times only (the latest
 * confirmation, the latest unsubscribe, the latest suppression), so each reader has one stay on
 * the list: from `confirmed_at` until they left after it, by whichever came first of
 * `unsubscribed_at` (a complaint when `unsubscribe_reason` says so) and `undeliverable_at` (a
 * bounce). A reader who left and came back counts once, from their latest confirmation: their
 * earlier stay and leaving are not in the series (`cameBack` says how many such readers there
 * are). A reader forgotten (`subscribers forget`) is no longer in any day. The same rule applied
 * to `npm run subscribers -- export`'s columns gives the same numbers: the list's size on the
 * last day is the export's confirmed, not suppressed rows.
 */
import { isCalendarDay, startOfDay } from "../contract/calendar-day.ts";
import type { SqlQueryable } from "../db/sql-executor.ts";
import { DEFAULT_TOP_SOURCES, groupSources, SOURCE_SQL } from "./sources.ts";

/** What happened to the list in a period. */
export interface FlowCounts {
  /** Readers who confirmed (their latest confirmation). */
  joined: number;
  /** Readers who left by an unsubscribe link or a mail app's one-click header. */
  unsubscribed: number;
  /** Readers suppressed because their mail was refused for good (bounces, SMTP 5xx, three soft bounces). */
  bounced: number;
  /** Readers who left by reporting a mail as spam. */
  complained: number;
}

export interface DayCounts extends FlowCounts {
  /** Readers on the list at the end of the day: confirmed, not left since. */
  listSize: number;
}

export interface GrowthDay extends DayCounts {
  /** YYYY-MM-DD in the brand's time zone. */
  day: string;
  /** The same, by source: every source of `GrowthSeries.sources`, zeros included. */
  bySource: Record<string, DayCounts>;
}

export interface GrowthSeries {
  from: string;
  to: string;
  timeZone: string;
  /** The sources shown by name, most readers joined first, then `other` when the rest are grouped. */
  sources: string[];
  /** The list's size at the start of `from`. */
  startSize: number;
  /** One entry per day from `from` to `to`, in order. */
  days: GrowthDay[];
  /** The whole range: flows summed, `listSize` at its end; and by source. */
  totals: DayCounts & { bySource: Record<string, DayCounts> };
  /** Readers whose latest confirmation came after they had left: their earlier stay is not counted. */
  cameBack: number;
}

export const FLOWS = ["joined", "unsubscribed", "bounced", "complained"] as const;
export type Flow = (typeof FLOWS)[number];

export class ReportRangeError extends Error {}

const DAY_MS = 86_400_000;

/** `day` moved by `count` days (YYYY-MM-DD). */
export const addDays = (day: string, count: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + count * DAY_MS).toISOString().slice(0, 10);

/** Days from `from` to `to`, both counted. */
export const daysIn = (from: string, to: string): number =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;

/** The default range: this many days, ending today. */
export const DEFAULT_RANGE_DAYS = 365;
/** The longest range a report covers (ten years of days). */
export const MAX_RANGE_DAYS = 3_660;

/**
 * The report's days: `from` and `to` (YYYY-MM-DD) as given, by default the last 365 days to today
 * (`today` in the brand's time zone). A day that is not real, a `to` after today or before `from`,
 * or a range beyond ten years is a `ReportRangeError` naming it.
 */
export function reportRange(
  given: { from?: string; to?: string },
  today: string,
): { from: string; to: string } {
  for (const [name, value] of Object.entries(given))
    if (value !== undefined && !isCalendarDay(value))
      throw new ReportRangeError(`--${name} must be a day written YYYY-MM-DD (got "${value}").`);
  const to = given.to ?? today;
  if (to > today) throw new ReportRangeError(`--to ${to} is after today (${today}).`);
  const from = given.from ?? addDays(to, 1 - DEFAULT_RANGE_DAYS);
  if (from > to) throw new ReportRangeError(`--from ${from} is after --to ${to}.`);
  if (daysIn(from, to) > MAX_RANGE_DAYS)
    throw new ReportRangeError(`The range is longer than ${MAX_RANGE_DAYS} days; choose a shorter one.`);
  return { from, to };
}

const zeroDay = (): DayCounts => ({ joined: 0, unsubscribed: 0, bounced: 0, complained: 0, listSize: 0 });

/**
 * Each reader's stay: its source, when it joined, when and how it left (null while on the list).
 * Grouped by day bucket: `width_bucket` over the days' starts, 0 before `from`, days + 1 after `to`.
 */
const STAYS = `with stays as (
    select ${SOURCE_SQL} as source, confirmed_at,
      case when unsubscribed_at >= confirmed_at then unsubscribed_at end as unsubscribed_at,
      case when undeliverable_at >= confirmed_at then undeliverable_at end as bounced_at,
      unsubscribe_reason
    from subscribers where confirmed_at is not null
  ), leaving as (
    select source, confirmed_at,
      case when unsubscribed_at is not null and (bounced_at is null or unsubscribed_at <= bounced_at)
        then unsubscribed_at else bounced_at end as left_at,
      case when unsubscribed_at is not null and (bounced_at is null or unsubscribed_at <= bounced_at)
        then case when unsubscribe_reason = 'complaint' then 'complained' else 'unsubscribed' end
        else 'bounced' end as how
    from stays
  )
  select source, 'joined' as flow, width_bucket(confirmed_at, $1::timestamptz[]) as bucket, count(*)::int as n
  from leaving group by 1, 2, 3
  union all
  select source, how, width_bucket(left_at, $1::timestamptz[]), count(*)::int
  from leaving where left_at is not null group by 1, 2, 3`;

/**
 * The series over `from`..`to` (YYYY-MM-DD, checked by `reportRange`) in `timeZone`, the largest
 * `topSources` sources by name and the rest as `other`.
 */
export async function readGrowth(
  db: SqlQueryable,
  options: { from: string; to: string; timeZone: string; topSources?: number },
): Promise<GrowthSeries> {
  const { from, to, timeZone } = options;
  const count = daysIn(from, to);
  const dayList = Array.from({ length: count }, (_, index) => addDays(from, index));
  const bounds = [...dayList, addDays(to, 1)].map((day) => startOfDay(day, timeZone).toISOString());
  const rows = await db.query<{ source: string; flow: Flow; bucket: number; n: number }>(STAYS, [bounds]);
  const [{ came_back: cameBack }] = await db.query<{ came_back: number }>(
    `select count(*)::int as came_back from subscribers where unsubscribed_at < confirmed_at`,
  );

  // Sources by readers joined in the range, then by readers on the list at its end.
  const joinedInRange = new Map<string, number>();
  const sizeAtEnd = new Map<string, number>();
  const activeInRange = new Set<string>();
  for (const row of rows) {
    const bucket = Number(row.bucket);
    if (bucket > count) continue;
    const n = Number(row.n);
    if (bucket >= 1) activeInRange.add(row.source);
    if (row.flow === "joined" && bucket >= 1)
      joinedInRange.set(row.source, (joinedInRange.get(row.source) ?? 0) + n);
    sizeAtEnd.set(row.source, (sizeAtEnd.get(row.source) ?? 0) + (row.flow === "joined" ? n : -n));
  }
  // A source whose readers all came and went before the range has nothing to show in it.
  const ranked = [...sizeAtEnd.keys()]
    .filter((source) => activeInRange.has(source) || sizeAtEnd.get(source) !== 0)
    .sort(
      (a, b) =>
        (joinedInRange.get(b) ?? 0) - (joinedInRange.get(a) ?? 0) ||
        (sizeAtEnd.get(b) ?? 0) - (sizeAtEnd.get(a) ?? 0) ||
        a.localeCompare(b),
    );
  const { shown, groupOf } = groupSources(ranked, options.topSources ?? DEFAULT_TOP_SOURCES);

  // Flows per day (index 0: before the range) and source, then the running size.
  const flows = Array.from({ length: count + 1 }, () => new Map(shown.map((source) => [source, zeroDay()])));
  for (const row of rows) {
    const bucket = Number(row.bucket);
    if (bucket > count) continue;
    // Not shown at all: a source of readers who joined and left before the range (they net to 0).
    const counts = flows[bucket].get(groupOf(row.source));
    if (counts) counts[row.flow] += Number(row.n);
  }
  const size = new Map(shown.map((source) => [source, 0]));
  const step = (day: Map<string, DayCounts>) => {
    for (const [source, counts] of day) {
      const next =
        (size.get(source) ?? 0) + counts.joined - counts.unsubscribed - counts.bounced - counts.complained;
      size.set(source, next);
      counts.listSize = next;
    }
  };
  step(flows[0]);
  const startSize = sum([...size.values()]);
  const totals = { ...zeroDay(), bySource: Object.fromEntries(shown.map((source) => [source, zeroDay()])) };
  const days: GrowthDay[] = dayList.map((day, index) => {
    const bySourceMap = flows[index + 1];
    step(bySourceMap);
    const bySource = Object.fromEntries(bySourceMap);
    const all = zeroDay();
    for (const [source, counts] of bySourceMap) {
      for (const key of [...FLOWS, "listSize"] as const) all[key] += counts[key];
      for (const flow of FLOWS) totals.bySource[source][flow] += counts[flow];
      totals.bySource[source].listSize = counts.listSize;
    }
    for (const flow of FLOWS) totals[flow] += all[flow];
    totals.listSize = all.listSize;
    return { day, ...all, bySource };
  });
  return { from, to, timeZone, sources: shown, startSize, days, totals, cameBack: Number(cameBack) };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** The last `count` days of a series (all of it when shorter): its flows, and the size before and after. */
export interface Period extends FlowCounts {
  from: string;
  to: string;
  sizeBefore: number;
  sizeAfter: number;
  /** Joined minus left: the change of the list's size. */
  net: number;
}

export function lastDays(series: GrowthSeries, count: number): Period {
  const days = series.days.slice(-count);
  const before = series.days.length > days.length ? series.days[series.days.length - days.length - 1] : null;
  const sizeBefore = before ? before.listSize : series.startSize;
  const sizeAfter = series.totals.listSize;
  const flows = Object.fromEntries(
    FLOWS.map((flow) => [flow, sum(days.map((day) => day[flow]))]),
  ) as unknown as FlowCounts;
  return { from: days[0].day, to: series.to, ...flows, sizeBefore, sizeAfter, net: sizeAfter - sizeBefore };
}
