/**
 * The owner's weekly report as a mail, in the brand's card (contract/mail-template.ts) with the
 * words editors own (content/newsletter.yaml `mails.ownerReport`, carried by `MailSettings`): the
 * week's numbers against the week before (the list's size, new confirmed readers, unsubscribes,
 * bounces, complaints), the chart as an inline PNG (`weekly-chart.ts`), the sources of the week's
 * new readers and the Effect that lost the most readers, with a plain-text part of the same.
 * It goes to OWNER_EMAIL only: no list headers, no unsubscribe link (unsetting OWNER_EMAIL stops it).
 */
import { dayLabel } from "../contract/calendar-day.ts";
import { fillPlaceholders, type MailBlock, renderMail } from "../contract/mail-template.ts";
import { type MailSettings, privacyLink } from "../mail/list-headers.ts";
import type { MailMessage } from "../mail/mailer.ts";
import type { FlowCounts, Period } from "./growth.ts";
import { CHART_SIZE, type ChartLabels, type DrawnChart } from "./weekly-chart.ts";
import type { ReportWeek, WeekNumbers } from "./week.ts";

/** The chart's `cid:` in the HTML part. */
export const CHART_CONTENT_ID = "weekly-chart";

const number = (value: number) => value.toLocaleString("en-US");
/** A change with its sign: "+12", "−3" (a minus sign), "0". */
export const signed = (value: number) =>
  value > 0 ? `+${number(value)}` : value < 0 ? `−${number(-value)}` : "0";

// Made when first used, as calendar-day.ts's dayLabel: every command loads this module.
let range: Intl.DateTimeFormat | undefined;
/** "November 16 – 22, 2026", "November 30 – December 6, 2026". */
export const weekLabel = (week: ReportWeek): string =>
  (range ??= new Intl.DateTimeFormat("en-US", { timeZone: "UTC", dateStyle: "long" }))
    .formatRange(new Date(`${week.from}T00:00:00Z`), new Date(`${week.to}T00:00:00Z`))
    .replace(/[\u2009\u202f]/g, " ");

const left = (period: FlowCounts) => period.unsubscribed + period.bounced + period.complained;

/** The words of the chart, for `weeklyChartSvg`. */
export function chartLabels(settings: Pick<MailSettings, "mails">): ChartLabels {
  const copy = settings.mails.ownerReport;
  return {
    title: copy.chartAlt,
    listSize: copy.listSizeLabel,
    joined: copy.joinedLabel,
    unsubscribed: copy.unsubscribedLabel,
    bounced: copy.bouncedLabel,
    complained: copy.complainedLabel,
  };
}

export interface WeeklyMailInput {
  to: string;
  numbers: WeekNumbers;
  /** The chart drawn for this mail. */
  chart: DrawnChart;
}

export function weeklyReportMail(settings: MailSettings, input: WeeklyMailInput): MailMessage {
  const { numbers } = input;
  const { thisWeek, weekBefore, mostLost } = numbers;
  const copy = settings.mails.ownerReport;
  const prefix = `${settings.newsletterName}: `;
  const values: Record<string, string> = {
    newsletter: settings.newsletterName,
    brand: settings.brandName,
    week: weekLabel(numbers.week),
    list_size: number(thisWeek.sizeAfter),
    change: signed(thisWeek.net),
    joined: number(thisWeek.joined),
    left: number(left(thisWeek)),
    ...(mostLost
      ? {
          effect_title: mostLost.subject.startsWith(prefix)
            ? mostLost.subject.slice(prefix.length)
            : mostLost.subject,
          effect_day: dayLabel(mostLost.date),
          mailed: number(mostLost.mailed),
          lost: number(mostLost.lost),
          bounced: number(mostLost.bounced),
          complained: number(mostLost.complained),
          unsubscribed: number(mostLost.unsubscribed),
        }
      : {}),
  };
  const fill = (text: string) => fillPlaceholders(text, values);
  const compared = (label: string, pick: (period: Period) => number) => {
    const [now, before] = [pick(thisWeek), pick(weekBefore)];
    return [label, number(now), number(before), signed(now - before)];
  };
  const subject = fill(copy.subject);
  const blocks: MailBlock[] = [
    { kind: "paragraph", text: fill(copy.intro) },
    {
      kind: "table",
      head: ["", copy.thisWeekLabel, copy.weekBeforeLabel, copy.changeLabel],
      rows: [
        compared(copy.listSizeLabel, (period) => period.sizeAfter),
        compared(copy.joinedLabel, (period) => period.joined),
        compared(copy.unsubscribedLabel, (period) => period.unsubscribed),
        compared(copy.bouncedLabel, (period) => period.bounced),
        compared(copy.complainedLabel, (period) => period.complained),
      ],
    },
    { kind: "subheading", text: fill(copy.chartHeading) },
    { kind: "image", contentId: CHART_CONTENT_ID, alt: fill(copy.chartAlt), ...CHART_SIZE },
    { kind: "subheading", text: fill(copy.sourcesHeading) },
    numbers.sources.length > 0
      ? {
          kind: "table",
          head: [copy.sourceLabel, copy.readersLabel],
          rows: numbers.sources.map(({ source, joined }) => [source, number(joined)]),
        }
      : { kind: "paragraph", text: fill(copy.noSourcesText) },
    { kind: "subheading", text: fill(copy.lostHeading) },
    { kind: "paragraph", text: fill(mostLost ? copy.lostText : copy.noLossText) },
    { kind: "paragraph", text: fill(copy.moreText), small: true },
  ];
  const { html, text } = renderMail({
    subject,
    preheader: fill(copy.preheader),
    brandName: settings.brandName,
    eyebrow: fill(copy.eyebrow),
    heading: fill(copy.heading),
    blocks,
    footer: {
      text: fill(copy.reasonText),
      linkLabel: fill(copy.siteLabel),
      linkUrl: `${settings.siteUrl}/`,
      ...privacyLink(settings, values),
    },
  });
  const reference = `owner-report-${numbers.week.from}`;
  return {
    from: settings.mailFrom,
    to: input.to,
    subject,
    text,
    html,
    headers: {},
    inlineImages: [
      {
        contentId: CHART_CONTENT_ID,
        filename: `${reference}.png`,
        contentType: "image/png",
        content: input.chart.png,
      },
    ],
    preview: `weekly report for ${values.week}`,
    reference,
  };
}
