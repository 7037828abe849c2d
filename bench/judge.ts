/**
 * `npm run bench`'s targets, and each measure judged against them: whether it is met and, if not,
 * by how much it is missed. The pages against their own twins (issue 9) and the landing page
 * against its text ceiling (issue 29), the first tap, the first visit's JavaScript, the dialog,
 * and the verdicts of the benchmarks with their own scripts. Every CPU-bound one at the calibrated
 * multiplier (bench/cpu.ts), which each verdict names: the same phone on every machine (issue 41).
 */
import { kb } from "../test/support/first-visit";
import { yearVerdicts } from "./build-year";
import type { CpuThrottling } from "./cpu";
import { TARGET_MEDIAN_MS, type DialogLatency } from "./dialog-latency";
import type { TapResult } from "./first-tap";
import { bytesExact, ms, over, ratio } from "./format";
import { CATEGORIES, RUNS, type Run } from "./lighthouse";
import { LONG_TASK_RUNS, longTaskVerdict, TARGET_LONG_TASK_EXTRA_MS } from "./long-tasks";
import type { OtherMeasures, ScriptResults } from "./measure-others";
import type { PageKey, PageMeasures } from "./measure-pages";
import { hostileMailVerdicts } from "./hostile-mail";
import { importVerdicts } from "./import";
import { sendEffectCpuVerdicts } from "./send-effect-cpu";
import { supabaseSendVerdicts } from "./send-effect-supabase";
import type { FirstVisitJs } from "./size";

/** Issue 9's targets, against each page's own twin without scripts (medians). */
const TARGET_LCP_RATIO = 1.15;
const TARGET_TBT_EXTRA_MS = 30;
/** Issue 29: the landing page's LCP against the ceiling page's (the same words as plain text). */
const TARGET_CEILING_LCP_RATIO = 1.3;
/** First-visit JavaScript must not grow past what it was when the twin came (issue 9). */
export const TARGET_FIRST_VISIT_BYTES = 76_800;

export interface Verdict {
  target: string;
  met: boolean;
  detail: string;
}

/** A page's LCP and TBT against its own twin's: what the scripts may add to what the HTML costs. */
function twinBudgets(name: string, page: Run, twin: Run, cpu: CpuThrottling): Verdict[] {
  const lcpLimit = twin.lcpMs * TARGET_LCP_RATIO;
  const tbtLimit = twin.tbtMs + TARGET_TBT_EXTRA_MS;
  return [
    {
      target: `${name}: LCP at most ${TARGET_LCP_RATIO}x its twin's`,
      met: page.lcpMs <= lcpLimit,
      detail:
        `${ratio(page.lcpMs, twin.lcpMs)} (${ms(page.lcpMs)} vs limit ${ms(lcpLimit)})` +
        over(page.lcpMs, lcpLimit, ms),
    },
    {
      target: `${name}: TBT at most its twin's + ${TARGET_TBT_EXTRA_MS} ms (CPU ${cpu.multiplier}x, the means of ${RUNS} runs)`,
      met: page.tbtMs <= tbtLimit,
      detail:
        `${ms(page.tbtMs)} vs limit ${ms(tbtLimit)} (the twin ${ms(twin.tbtMs)})` +
        over(page.tbtMs, tbtLimit, ms),
    },
  ];
}

const tapVerdicts = (taps: TapResult[], cpu: CpuThrottling): Verdict[] =>
  taps.map((tap) => ({
    target: `Dialog within ${tap.targetMs} ms of a tap ${tap.afterLoadMs / 1000} s after load (phone, CPU ${cpu.rate}x, median of ${tap.latenciesMs.length})`,
    met: tap.medianMs <= tap.targetMs,
    detail: `${ms(tap.medianMs)}, max ${ms(tap.maxMs)}` + over(tap.medianMs, tap.targetMs, ms),
  }));

/** The landing page's targets, the first visit's and the dialog's. */
function targets(
  landing: Run,
  twin: Run,
  firstVisit: FirstVisitJs,
  dialog: DialogLatency | null,
  cpu: CpuThrottling,
): Verdict[] {
  return [
    ...CATEGORIES.map((category) => ({
      target: `Lighthouse ${category} 100`,
      met: landing[category] === 100,
      detail:
        (landing[category] === 100 ? "100" : `${landing[category]} (${100 - landing[category]} short)`) +
        (category === "performance" ? `; the twin ${twin.performance}` : ""),
    })),
    { target: "CLS 0", met: landing.cls === 0, detail: landing.cls.toFixed(3) },
    ...twinBudgets("Landing page", landing, twin, cpu),
    {
      target: `First-visit JavaScript at most ${kb(TARGET_FIRST_VISIT_BYTES)} gzipped (${bytesExact(TARGET_FIRST_VISIT_BYTES)})`,
      met: firstVisit.totalGzipBytes <= TARGET_FIRST_VISIT_BYTES,
      detail:
        `${kb(firstVisit.totalGzipBytes)} (${bytesExact(firstVisit.totalGzipBytes)})` +
        over(firstVisit.totalGzipBytes, TARGET_FIRST_VISIT_BYTES, bytesExact),
    },
    ...(dialog
      ? [
          {
            target: `Dialog opens within ${TARGET_MEDIAN_MS} ms of a click (median, CPU ${dialog.cpuSlowdown}x slower)`,
            met: dialog.medianMs <= TARGET_MEDIAN_MS,
            detail:
              `${ms(dialog.medianMs)}, max ${ms(dialog.maxMs)}` + over(dialog.medianMs, TARGET_MEDIAN_MS, ms),
          },
        ]
      : []),
  ];
}

/**
 * An Effect's page and the archive must score like the landing page (the same four scores, no
 * layout shift), keep the same budgets against their own twins, and score 100 for performance.
 */
function pageVerdicts(
  { landing, effect, effectTwin, archive, archiveTwin }: PageMeasures["summary"],
  cpu: CpuThrottling,
): Verdict[] {
  const likeTheLanding = (name: string, page: Run, twin: Run): Verdict[] => [
    ...CATEGORIES.map((category) => ({
      target: `${name} ${category} at least the landing page's (${landing[category]})`,
      met: page[category] >= landing[category],
      detail: String(page[category]),
    })),
    { target: `${name} CLS 0`, met: page.cls === 0, detail: page.cls.toFixed(3) },
    ...twinBudgets(name, page, twin, cpu),
  ];
  return [
    ...(effect && effectTwin ? likeTheLanding("Effect page", effect, effectTwin) : []),
    ...likeTheLanding("Archive", archive, archiveTwin),
    ...[effect ? (["Effect page", effect] as const) : null, ["Archive", archive] as const]
      .filter((entry) => entry !== null)
      .map(([name, page]) => ({
        target: `${name} performance 100`,
        met: page.performance === 100,
        detail: String(page.performance),
      })),
  ];
}

/**
 * Issue 29: what a visitor's first tap could wait behind once the page shows, and how near the
 * landing page's largest paint is to that of its words alone.
 */
function issue29Verdicts(
  { summary: { landing, ceiling }, longTasks }: PageMeasures,
  cpu: CpuThrottling,
): Verdict[] {
  const ceilingLimit = ceiling.lcpMs * TARGET_CEILING_LCP_RATIO;
  return [
    {
      target: `Landing page: LCP at most ${TARGET_CEILING_LCP_RATIO}x the text ceiling's`,
      met: landing.lcpMs <= ceilingLimit,
      detail:
        `${ratio(landing.lcpMs, ceiling.lcpMs)} (${ms(landing.lcpMs)} vs limit ${ms(ceilingLimit)})` +
        over(landing.lcpMs, ceilingLimit, ms),
    },
    ...(longTasks
      ? (
          [
            ["Landing page", "landing", "twin"],
            ["Effect page", "effect", "effectTwin"],
            ["Archive", "archive", "archiveTwin"],
          ] as Array<[string, PageKey, PageKey]>
        )
          .filter(([, key]) => longTasks[key] !== undefined)
          .map(([name, key, twinKey]) => {
            const verdict = longTaskVerdict(
              longTasks[key].medianLongestMs,
              longTasks[twinKey].medianLongestMs,
            );
            return {
              target:
                `${name}: longest task after the first paint (CPU ${cpu.rate}x, median of ` +
                `${LONG_TASK_RUNS}) at most its twin's + ${TARGET_LONG_TASK_EXTRA_MS} ms`,
              met: verdict.met,
              detail: verdict.detail,
            };
          })
      : []),
  ];
}

/** Every target of the run, in the order the results list them. */
export function judge(
  pages: PageMeasures,
  others: OtherMeasures,
  results: ScriptResults,
  cpu: CpuThrottling,
): Verdict[] {
  const { landing, twin } = pages.summary;
  return [
    ...targets(landing, twin, others.firstVisit, others.dialog.result, cpu),
    ...tapVerdicts(pages.taps, cpu),
    ...pageVerdicts(pages.summary, cpu),
    ...issue29Verdicts(pages, cpu),
    ...(results.supabaseResults ? supabaseSendVerdicts(results.supabaseResults) : []),
    ...(results.cpuResults ? sendEffectCpuVerdicts(results.cpuResults) : []),
    ...(results.hostileResults ? hostileMailVerdicts(results.hostileResults) : []),
    ...(results.yearResults ? yearVerdicts(results.yearResults) : []),
    ...(results.importResults ? importVerdicts(results.importResults) : []),
  ];
}
