/**
 * The owner's report: the list's daily series (`growth.ts`) and each Effect's outcome
 * (`effect-outcomes.ts`) over one range of the brand's days, read in one transaction so the two
 * agree. What `npm run report` prints with `--json` and draws as a page, and what the weekly mail
 * takes its week from. Only reads.
 */
import { dayIn } from "../contract/calendar-day.ts";
import type { SqlExecutor } from "../db/sql-executor.ts";
import { type EffectOutcome, readEffectOutcomes } from "./effect-outcomes.ts";
import { type GrowthSeries, readGrowth, reportRange } from "./growth.ts";

export interface OwnerReport {
  /** When it was read (ISO). */
  generatedAt: string;
  series: GrowthSeries;
  /** Every Effect dated in the range, oldest first. */
  effects: EffectOutcome[];
}

export interface ReportOptions {
  /** YYYY-MM-DD; by default the last 365 days to today in `timeZone`. */
  from?: string;
  to?: string;
  /** The brand's time zone (content/brand.yaml): the days' bounds. */
  timeZone: string;
  /** How many sources to show by name (the rest are `other`). */
  topSources?: number;
  now?: Date;
}

/** Reads the report; a bad range is a `ReportRangeError` before anything is read. */
export async function readOwnerReport(db: SqlExecutor, options: ReportOptions): Promise<OwnerReport> {
  const now = options.now ?? new Date();
  const range = reportRange({ from: options.from, to: options.to }, dayIn(options.timeZone, now));
  return db.transaction(async (tx) => {
    // One snapshot for both reads (PostgreSQL's default isolation would let each see its own).
    await tx.query("set transaction isolation level repeatable read, read only");
    const series = await readGrowth(tx, {
      ...range,
      timeZone: options.timeZone,
      topSources: options.topSources,
    });
    const effects = await readEffectOutcomes(tx, range);
    return { generatedAt: now.toISOString(), series, effects };
  });
}
