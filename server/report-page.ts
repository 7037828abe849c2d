/**
 * `npm run report`'s page: one self-contained HTML file the owner opens from disk or mails on.
 * Everything is inline (the brand's colours and type, its display face as a data URL, the charts
 * as SVG); no script, and nothing loaded from anywhere. Each chart is followed by a table of the
 * numbers it draws, which a screen reader reads, and each chart is drawn twice, for a phone and
 * for a wide screen, the other hidden by the width of the window.
 */
import {
  CHART_COLORS,
  FLOWS,
  type GrowthDay,
  horizontalBarsSvg,
  lastDays,
  lineChartSvg,
  mostReadersLost,
  OTHER_SOURCE,
  type OwnerReport,
  type Period,
  splitBarChartSvg,
  UNSUBSCRIBE_WINDOW_DAYS,
} from "../supabase/functions/_shared/hosts.ts";
import { dayLabel } from "../supabase/functions/_shared/contract/calendar-day.ts";
import { escapeHtml as e } from "../supabase/functions/_shared/contract/escape-html.ts";

export interface PageContext {
  brandName: string;
  /** The newsletter's name, which begins every Effect's subject ("Effect of the Day: ..."). */
  newsletterName: string;
  /** Where the numbers were read, for the header ("PGlite .data/pglite"). */
  where: string;
  /** The brand's display face (WOFF2), inlined for the headings; the fallback is Impact. */
  displayFont?: Buffer;
}

/** The phone's drawing and the wide screen's. */
const NARROW = { width: 360, height: 220 };
const WIDE = { width: 880, height: 280 };
/** Above this many days the flows are drawn per week. */
const DAILY_BARS_UP_TO = 62;
const LOSERS_SHOWN = 5;

const FLOW_NAMES: Record<(typeof FLOWS)[number], string> = {
  joined: "Joined",
  unsubscribed: "Unsubscribed",
  bounced: "Bounced",
  complained: "Complained",
};

const number = (value: number) => value.toLocaleString("en-US");
const signed = (value: number) => (value > 0 ? `+${number(value)}` : value < 0 ? `−${number(-value)}` : "0");
const percent = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)} %` : "–");

const SHORT_DAY = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", month: "short", day: "numeric" });
const MONTH = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", month: "short" });
const shortDay = (day: string) => SHORT_DAY.format(new Date(`${day}T00:00:00Z`));
/** An axis label: the month (the year in January) over long ranges, the day over short ones. */
const axisLabel = (day: string, long: boolean) =>
  !long
    ? shortDay(day)
    : day.slice(5, 7) === "01"
      ? day.slice(0, 4)
      : MONTH.format(new Date(`${day}T00:00:00Z`));

/** Both drawings of one chart; the page's CSS shows the one that fits. */
const drawings = (draw: (size: { width: number; height: number }) => string) =>
  `<div class="chart narrow">${draw(NARROW)}</div><div class="chart wide">${draw(WIDE)}</div>`;

/**
 * A table with its caption (also its region's name and, as a slug, its id: captions are unique),
 * in a region that scrolls sideways on its own when it is wider than the screen. Cells are
 * escaped here; a number is right-aligned, the first cell of a row is its header.
 */
function table(caption: string, head: string[], rows: (string | number)[][]) {
  const id = caption
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  const cell = (value: string | number, index: number) => {
    if (index === 0) return `<th scope="row">${e(String(value))}</th>`;
    return typeof value === "number"
      ? `<td class="n">${number(value)}</td>`
      : `<td class="n">${e(value)}</td>`;
  };
  return `<div class="scroll" role="region" aria-labelledby="${id}" tabindex="0"><table>
<caption id="${id}"><span>${e(caption)}</span></caption>
<thead><tr>${head.map((label, index) => `<th scope="col"${index > 0 ? ' class="n"' : ""}>${e(label)}</th>`).join("")}</tr></thead>
<tbody>${rows.map((row) => `<tr>${row.map(cell).join("")}</tr>`).join("\n")}</tbody>
</table></div>`;
}

/** The flows summed over consecutive days: by week over long ranges (the last week ends on the last day). */
function periods(days: GrowthDay[]): { label: string; first: string; flows: Record<string, number> }[] {
  const size = days.length > DAILY_BARS_UP_TO ? 7 : 1;
  const groups: GrowthDay[][] = [];
  for (let end = days.length; end > 0; end -= size) groups.unshift(days.slice(Math.max(0, end - size), end));
  return groups.map((group) => {
    const first = group[0].day;
    const last = group[group.length - 1].day;
    const flows = Object.fromEntries(
      FLOWS.map((flow) => [flow, group.reduce((sum, day) => sum + day[flow], 0)]),
    );
    return {
      label: first === last ? dayLabel(first) : `${shortDay(first)} – ${dayLabel(last)}`,
      first,
      flows,
    };
  });
}

function headline(label: string, value: string, note: string): string {
  return `<div class="stat"><dt>${e(label)}</dt><dd class="value">${e(value)}</dd><dd class="note">${e(note)}</dd></div>`;
}

const periodNote = (period: Period) =>
  `${number(period.joined)} joined, ${number(period.unsubscribed + period.bounced + period.complained)} left`;

/** The page, as one string of HTML. */
export function reportPage(report: OwnerReport, context: PageContext): string {
  const { series, effects } = report;
  const long = series.days.length > DAILY_BARS_UP_TO;
  const week = lastDays(series, 7);
  const month = lastDays(series, 30);
  const range = `${dayLabel(series.from)} – ${dayLabel(series.to)}`;
  const flowsOf = periods(series.days);
  const perWeek = long ? "per week" : "per day";
  const left = FLOWS.filter((flow) => flow !== "joined");
  const losers = mostReadersLost(effects, LOSERS_SHOWN);
  // "Nov 12: Showing up", not "Nov 12: Effect of the Day: Showing up".
  const prefix = `${context.newsletterName}: `;
  const effectName = (date: string, subject: string) =>
    `${shortDay(date)}: ${subject.startsWith(prefix) ? subject.slice(prefix.length) : subject}`;

  const sections = [
    `<section aria-labelledby="numbers"><h2 id="numbers" class="sr-only">The numbers at a glance</h2><dl class="stats">
${headline("Readers on the list", number(series.totals.listSize), `at the end of ${dayLabel(series.to)}`)}
${headline("Last 7 days", signed(week.net), periodNote(week))}
${headline("Last 30 days", signed(month.net), periodNote(month))}
${headline("Unsubscribed", number(series.totals.unsubscribed), "by a mail's link, in the range")}
${headline("Bounced", number(series.totals.bounced), "mail refused for good, in the range")}
${headline("Complained", number(series.totals.complained), "reported a mail as spam, in the range")}
</dl></section>`,

    `<section aria-labelledby="size"><h2 id="size">The list's size</h2>
<p>Readers on the list at the end of each day: ${signed(series.totals.listSize - series.startSize)} since ${e(dayLabel(series.from))} (${number(series.startSize)} then).</p>
${drawings((size) =>
  lineChartSvg({
    title: `The list's size each day, ${range}`,
    name: "Readers on the list",
    values: series.days.map((day) => day.listSize),
    axisLabels: series.days.map((day) => axisLabel(day.day, long)),
    size,
  }),
)}
<details><summary>The list's size, day by day</summary>
${table(
  "Readers who joined and left each day, and the list's size at its end",
  ["Day", ...FLOWS.map((flow) => FLOW_NAMES[flow]), "On the list"],
  [...series.days]
    .reverse()
    .map((day) => [dayLabel(day.day), ...FLOWS.map((flow) => day[flow]), day.listSize]),
)}
</details></section>`,

    `<section aria-labelledby="flows"><h2 id="flows">Joined and left, ${perWeek}</h2>
<p>Readers who joined above the line; below it, those who left, by how they left.</p>
${drawings((size) =>
  splitBarChartSvg({
    title: `Readers who joined and left ${perWeek}, ${range}`,
    up: [
      { name: "Joined", color: CHART_COLORS.joined, values: flowsOf.map((period) => period.flows.joined) },
    ],
    down: left.map((flow) => ({
      name: FLOW_NAMES[flow],
      color: CHART_COLORS[flow],
      values: flowsOf.map((period) => period.flows[flow]),
    })),
    axisLabels: flowsOf.map((period) => axisLabel(period.first, long)),
    size,
  }),
)}
<details><summary>Joined and left, ${perWeek}, as a table</summary>
${table(
  `Readers who joined and left ${perWeek}`,
  [long ? "Week" : "Day", ...FLOWS.map((flow) => FLOW_NAMES[flow]), "Change"],
  [...flowsOf]
    .reverse()
    .map((period) => [
      period.label,
      ...FLOWS.map((flow) => period.flows[flow]),
      signed(period.flows.joined - left.reduce((sum, flow) => sum + period.flows[flow], 0)),
    ]),
)}
</details></section>`,

    `<section aria-labelledby="sources"><h2 id="sources">Where readers came from</h2>
${
  series.sources.length === 0
    ? "<p>No reader has confirmed yet.</p>"
    : `<p>Readers who joined in the range, by source (how a source is named is explained at the end).</p>
${drawings((size) =>
  horizontalBarsSvg({
    title: `Readers who joined by source, ${range}`,
    rows: series.sources.map((source) => ({ label: source, value: series.totals.bySource[source].joined })),
    color: CHART_COLORS.joined,
    size,
  }),
)}
${table(
  "Top sources: readers who joined and left in the range, and on the list at its end",
  ["Source", ...FLOWS.map((flow) => FLOW_NAMES[flow]), "On the list"],
  series.sources.map((source) => {
    const counts = series.totals.bySource[source];
    return [source, ...FLOWS.map((flow) => counts[flow]), counts.listSize];
  }),
)}`
}</section>`,

    `<section aria-labelledby="losers"><h2 id="losers">Effects that lost the most readers</h2>
${
  losers.length === 0
    ? "<p>No Effect in the range lost a reader.</p>"
    : `<p>Readers each Effect lost: its bounces and complaints, and those who left by its own link within ${UNSUBSCRIBE_WINDOW_DAYS} days.</p>
${drawings((size) =>
  horizontalBarsSvg({
    title: `The ${losers.length} Effects that lost the most readers, ${range}`,
    rows: losers.map((effect) => ({ label: effectName(effect.date, effect.subject), value: effect.lost })),
    color: CHART_COLORS.complained,
    size,
  }),
)}
${table(
  "The Effects that lost the most readers",
  ["Effect", "Mailed", "Lost", "Share"],
  losers.map((effect) => [
    effectName(effect.date, effect.subject),
    effect.mailed,
    effect.lost,
    percent(effect.lost, effect.mailed),
  ]),
)}`
}</section>`,

    `<section aria-labelledby="effects"><h2 id="effects">Every Effect</h2>
${
  effects.length === 0
    ? "<p>No Effect was sent in the range.</p>"
    : `<details${effects.length <= 31 ? " open" : ""}><summary>${number(effects.length)} Effects, newest first</summary>
${table(
  "Each Effect: readers mailed, and those it lost",
  ["Effect", "Mailed", "Bounced", "Complained", `Unsubscribed (${UNSUBSCRIBE_WINDOW_DAYS} days)`, "Lost"],
  [...effects]
    .reverse()
    .map((effect) => [
      effectName(effect.date, effect.subject),
      effect.mailed,
      effect.bounced,
      effect.complained,
      effect.unsubscribed,
      effect.lost,
    ]),
)}
</details>`
}</section>`,

    `<section aria-labelledby="how"><h2 id="how">How these are counted</h2>
<ul>
<li>A day is a day in ${e(series.timeZone)}, the brand's time zone. A reader <strong>joins</strong> when they confirm, and is <strong>on the list</strong> until they leave: by a mail's unsubscribe link or one-click button (<strong>unsubscribed</strong>), by reporting a mail as spam (<strong>complained</strong>), or when their mail is refused for good (<strong>bounced</strong>).</li>
<li>A reader's <strong>source</strong> is the first of: the provider of an import (<code>import:mailchimp</code>); the <code>utm_source</code> of the address their visit began at; the site that linked to it (its host, without <code>www.</code>); the form they used (<code>form:dialog</code>, <code>form:inline</code>, <code>form:effect</code>, <code>form:archive</code>); else <code>unknown</code>. Beyond the largest few, sources are summed as <code>${OTHER_SOURCE}</code>.</li>
<li>Only each reader's latest times are kept: a reader who left and came back counts once, from their latest confirmation (${number(series.cameBack)} readers did), and a reader who was forgotten is in no day. So these numbers are the ones <code>npm run subscribers -- export</code> gives: the list's size on the last day is its confirmed rows that are not suppressed.</li>
<li>An Effect's <strong>mailed</strong> are its mails sent (the welcome mails that carried it included); <strong>lost</strong> are its recipients who bounced or complained about it, and those who left by its own link within ${UNSUBSCRIBE_WINDOW_DAYS} days of their mail, each counted once.</li>
</ul></section>`,
  ];

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>${e(`${context.brandName}: growth report, ${range}`)}</title>
<style>${styles(context.displayFont)}</style>
</head>
<body>
<header><div class="wrap">
<p class="eyebrow">${e(context.brandName)} · ${e(context.newsletterName)}</p>
<h1>Growth report</h1>
<p class="range">${e(range)}</p>
<p class="meta">Read ${e(report.generatedAt.slice(0, 16).replace("T", " "))} UTC from ${e(context.where)}</p>
</div></header>
<main class="wrap">
${sections.join("\n")}
</main>
</body>
</html>
`;
}

function styles(font: Buffer | undefined): string {
  const face = font
    ? `@font-face{font-family:"Anton";font-style:normal;font-weight:400;font-display:block;src:url(data:font/woff2;base64,${font.toString("base64")}) format("woff2")}`
    : "";
  const c = CHART_COLORS;
  return `${face}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:${c.cream};color:${c.ink};font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.wrap{max-width:960px;margin:0 auto;padding:0 16px}
header{background:${c.ink};color:${c.cream};padding:28px 0 24px}
.eyebrow{margin:0;color:#fbbf24;font-size:13px;letter-spacing:.08em;text-transform:uppercase}
h1,h2{font-family:Anton,Impact,"Arial Narrow Bold",sans-serif;font-weight:400;letter-spacing:.01em;line-height:1.1}
h1{margin:6px 0 8px;font-size:44px;text-transform:uppercase}
h2{margin:0 0 8px;font-size:28px;text-transform:uppercase}
.range{margin:0;font-size:17px}
.meta{margin:4px 0 0;color:#d6d3d1;font-size:14px;overflow-wrap:anywhere}
main{padding-bottom:48px}
section{margin-top:36px}
p{margin:0 0 12px;max-width:68ch}
.stats{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:12px;margin:28px 0 0;padding:0}
.stat{background:#fff;border:1px solid ${c.grid};border-top:4px solid #f59e0b;border-radius:10px;padding:12px 14px}
.stat dt{font-size:14px;color:${c.muted}}
.stat dd{margin:0}
.stat .value{font-family:Anton,Impact,"Arial Narrow Bold",sans-serif;font-size:34px;line-height:1.2;color:${c.ink}}
.stat .note{font-size:13px;color:${c.muted}}
.chart{background:#fff;border:1px solid ${c.grid};border-radius:10px;padding:8px;margin:8px 0 12px}
.chart svg{display:block;width:100%;height:auto}
.chart.wide{display:none}
details{margin:4px 0 0}
summary{cursor:pointer;color:#92400e;font-weight:600;padding:6px 0}
summary:focus-visible,.scroll:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.scroll{overflow-x:auto;margin:8px 0;border:1px solid ${c.grid};border-radius:10px;background:#fff}
table{border-collapse:collapse;width:100%;font-size:14px;font-variant-numeric:tabular-nums}
caption{text-align:left;padding:10px 12px;font-weight:600;color:${c.ink}}
/* The caption stays within the screen while its table scrolls sideways. */
caption span{display:block;max-width:calc(100vw - 58px)}
th,td{padding:6px 10px;border-top:1px solid ${c.grid};text-align:left;vertical-align:top}
td{white-space:nowrap}
thead th{background:#f3ece1;font-weight:600;vertical-align:bottom;white-space:nowrap}
tbody th{font-weight:400;min-width:11em}
.n{text-align:right}
code{font-size:.9em;background:#f3ece1;border-radius:4px;padding:0 4px}
ul{padding-left:20px;max-width:72ch}
li{margin-bottom:8px}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
@media (max-width:479px){
table{font-size:13px}
th,td{padding:6px 8px}
}
@media (min-width:720px){
.stats{grid-template-columns:repeat(3,minmax(0,1fr))}
.chart.narrow{display:none}
.chart.wide{display:block}
h1{font-size:56px}
}`;
}
