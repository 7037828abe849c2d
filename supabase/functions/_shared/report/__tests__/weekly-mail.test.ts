/**
 * The owner's weekly report mail as the owner reads it: the week's numbers against the week before,
 * the sources of its new readers and the Effect that lost the most, in HTML and plain text, with
 * the chart drawn at send time as a PNG of the expected size, carried inline (`cid:`) by SMTP's
 * MIME and by Resend's API alike. And the week it tells: due from Monday at SEND_AT in the brand's
 * time zone, the Monday to Sunday before.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { simpleParser } from "mailparser";
import { createPgliteExecutor } from "../../../../../server/pglite-executor.ts";
import { contentIdentity } from "../../../../../test/support/effect-fixtures.ts";
import { SEEDED_NUMBERS, seedOwnerWeek, type SeededWeek } from "../../../../../test/support/owner-week.ts";
import { pngSize } from "../../../../../test/support/png.ts";
import { startResendStandIn } from "../../../../../test/support/resend-stand-in.ts";
import { preparedDataDir } from "../../../../../test/support/test-stack.ts";
import { parseConfig } from "../../config.ts";
import { dayLabel } from "../../contract/calendar-day.ts";
import type { SqlExecutor } from "../../db/sql-executor.ts";
import { mailSettings } from "../../mail/list-headers.ts";
import type { MailMessage } from "../../mail/mailer.ts";
import { composeMime } from "../../mail/mime.ts";
import { createResendMailer } from "../../mail/resend.ts";
import { readOwnerReport } from "../report.ts";
import { dueWeek, reportDays, weekNumbers, type WeekNumbers } from "../week.ts";
import { CHART_SCALE, CHART_SIZE, type DrawnChart, drawPng, weeklyChartSvg } from "../weekly-chart.ts";
import { CHART_CONTENT_ID, chartLabels, weekLabel, weeklyReportMail } from "../weekly-mail.ts";

const identity = contentIdentity();
const settings = mailSettings(parseConfig({ SITE_URL: "https://thepurposeeffect.example" }), identity);
const OWNER = "owner@thepurposeeffect.example";

describe("the week a weekly report tells", () => {
  const zone = identity.timeZone;
  const at = (iso: string) => new Date(iso);

  it("is due from Monday at SEND_AT in the brand's time zone, and is the Monday to Sunday before", () => {
    // Monday 2026-11-30, 07:59 and 08:00 in New York (UTC-5).
    expect(dueWeek(at("2026-11-30T12:59:00Z"), zone, "08:00")).toBeNull();
    expect(dueWeek(at("2026-11-30T13:00:00Z"), zone, "08:00")).toEqual({
      from: "2026-11-23",
      to: "2026-11-29",
    });
    // Still due later in the week (a week whose Monday passed without a send), never the next one early.
    expect(dueWeek(at("2026-12-06T23:00:00Z"), zone, "08:00")).toEqual({
      from: "2026-11-23",
      to: "2026-11-29",
    });
    // Sunday night in New York is already Monday in UTC: the brand's calendar decides.
    expect(dueWeek(at("2026-11-30T04:30:00Z"), zone, "00:00")).toEqual({
      from: "2026-11-16",
      to: "2026-11-22",
    });
  });

  it("reads in words, across a month's end and a year's", () => {
    expect(weekLabel({ from: "2026-11-16", to: "2026-11-22" })).toBe("November 16 – 22, 2026");
    expect(weekLabel({ from: "2026-11-30", to: "2026-12-06" })).toBe("November 30 – December 6, 2026");
    expect(weekLabel({ from: "2026-12-28", to: "2027-01-03" })).toBe("December 28, 2026 – January 3, 2027");
  });
});

describe("the weekly report mail", () => {
  let dataDir: string;
  let db: SqlExecutor;
  let seeded: SeededWeek;
  let numbers: WeekNumbers;
  let chart: DrawnChart;
  let mail: MailMessage;

  beforeAll(async () => {
    dataDir = await preparedDataDir();
    db = await createPgliteExecutor(path.join(dataDir, "pglite"));
    const now = new Date();
    seeded = await seedOwnerWeek(db, now, identity.timeZone);
    const report = await readOwnerReport(db, {
      ...reportDays(seeded.week),
      timeZone: identity.timeZone,
      now,
    });
    numbers = weekNumbers(report, seeded.week);
    chart = await drawPng(weeklyChartSvg(numbers, chartLabels(settings)));
    // Printed for the record: the drawing's time on Node, resvg's WebAssembly loaded the first time.
    console.log(
      `weekly chart on Node: resvg loaded in ${Math.round(chart.loadMs)} ms, drawn in ${Math.round(chart.drawMs)} ms (${chart.png.length} bytes)`,
    );
    mail = weeklyReportMail(settings, { to: OWNER, numbers, chart });
  });
  afterAll(async () => {
    await db?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("counts the week against the week before, the sources of its new readers and the Effect that lost the most", () => {
    const { thisWeek, weekBefore } = SEEDED_NUMBERS;
    expect(numbers.thisWeek).toMatchObject({
      sizeAfter: thisWeek.listSize,
      joined: thisWeek.joined,
      unsubscribed: thisWeek.unsubscribed,
      bounced: thisWeek.bounced,
      complained: thisWeek.complained,
      net: 1,
    });
    expect(numbers.weekBefore).toMatchObject({
      sizeAfter: weekBefore.listSize,
      joined: weekBefore.joined,
      unsubscribed: weekBefore.unsubscribed,
    });
    expect(numbers.sources.map(({ source, joined }) => [source, joined])).toEqual(SEEDED_NUMBERS.sources);
    expect(numbers.mostLost).toMatchObject({ date: seeded.effect.date, ...SEEDED_NUMBERS.effect });
    expect(numbers.days).toHaveLength(56);
  });

  it("draws the chart as a PNG the size the mail shows it at", async () => {
    expect(CHART_SIZE).toEqual({ width: 544, height: 408 });
    expect(await pngSize(Buffer.from(chart.png))).toEqual({
      format: "png",
      width: CHART_SIZE.width * CHART_SCALE,
      height: CHART_SIZE.height * CHART_SCALE,
    });
    expect(mail.inlineImages).toEqual([
      expect.objectContaining({ contentId: CHART_CONTENT_ID, contentType: "image/png", content: chart.png }),
    ]);
  });

  it("says the week's numbers in words and in a table, in the plain-text part as in the HTML", () => {
    const week = weekLabel(seeded.week);
    expect(mail.to).toBe(OWNER);
    expect(mail.subject).toBe(`Effect of the Day weekly report: +1 readers, ${week}`);
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain(`In the week of ${week}, 5 readers confirmed their subscription`);
      expect(part).toContain("and 4 left. 13 readers are on the list now.");
    }
    // The table, as aligned columns: this week, the week before, the change.
    expect(mail.text).toMatch(/^Readers on the list\s+13\s+12\s+\+1$/m);
    expect(mail.text).toMatch(/^New confirmed readers\s+5\s+3\s+\+2$/m);
    expect(mail.text).toMatch(/^Unsubscribes\s+2\s+1\s+\+1$/m);
    expect(mail.text).toMatch(/^Bounces\s+1\s+0\s+\+1$/m);
    expect(mail.text).toMatch(/^Complaints\s+1\s+0\s+\+1$/m);
    expect(mail.text).toMatch(/^podcast\s+3$/m);
    expect(mail.text).toMatch(/^youtube\.com\s+2$/m);
    expect(mail.text).toContain(
      `"${seeded.effect.title}" (${dayLabel(seeded.effect.date)}) was mailed to 9 readers and lost 2: 0 bounced, 0 complained and 2 left by its unsubscribe link.`,
    );
    expect(mail.html).toContain(
      `<img src="cid:${CHART_CONTENT_ID}" width="544" height="408" alt="Chart: the readers`,
    );
    // The owner's mail is no list mail: nothing to unsubscribe from but OWNER_EMAIL itself.
    expect(mail.headers).toEqual({});
    expect(mail.text).toContain("To stop it, unset OWNER_EMAIL.");
  });

  it("travels over SMTP (and SES, and the outbox) as MIME with the chart as an inline part", async () => {
    const mime = Buffer.from(await composeMime(mail));
    expect(mime.toString("latin1")).toMatch(/Content-Type: multipart\/related/);
    const parsed = await simpleParser(mime);
    expect(parsed.attachments).toHaveLength(1);
    const [picture] = parsed.attachments;
    expect(picture).toMatchObject({
      contentType: "image/png",
      contentId: `<${CHART_CONTENT_ID}>`,
      related: true,
    });
    expect(picture.content.equals(Buffer.from(chart.png))).toBe(true);
    expect(parsed.text).toContain("13 readers are on the list now");
  });

  it("travels over Resend as an attachment with its content_id, and never in a batch", async () => {
    const resend = await startResendStandIn();
    try {
      const mailer = createResendMailer({ apiKey: resend.apiKey, apiUrl: resend.url, requestsPerSecond: 0 });
      await mailer.send(mail);
      expect(resend.mails).toHaveLength(1);
      const [attachment] = resend.mails[0].attachments;
      expect(attachment).toMatchObject({ content_id: CHART_CONTENT_ID, content_type: "image/png" });
      expect(attachment.content.equals(Buffer.from(chart.png))).toBe(true);
      await expect(mailer.sendBatch?.([mail], "batch-key")).rejects.toThrow(
        /batch endpoint takes no attachments/,
      );
    } finally {
      await resend.close();
    }
  });
});
