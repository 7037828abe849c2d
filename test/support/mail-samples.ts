/**
 * The four mails a subscriber can get, rendered by the code that sends them, from the real
 * content/: the confirmation and the reminder (the core's `confirmationMail`), the Effect of the
 * Day and the welcome (the build's `mailEdition`, then the sender's `effectMail`), each with real
 * token lengths; and the owner's weekly report (`weeklyReportMail`, its chart drawn by resvg) of a
 * made-up week. For the client checks (Chromium, caniemail) and `npm run screenshots`.
 */
import path from "node:path";
import { readFileSync } from "node:fs";
import { readBrand, readMailCopy, readSenderIdentity } from "../../src/content/read-brand.ts";
import type { EffectPages } from "../../src/content/schema.ts";
import { readYaml } from "../../src/content/yaml.ts";
import { loadEffects } from "../../src/effects/effects.ts";
import { mailEdition } from "../../src/effects/mail.ts";
import { parseConfig } from "../../supabase/functions/_shared/config.ts";
import { effectMail } from "../../supabase/functions/_shared/effect-sending/edition.ts";
import { confirmationMail } from "../../supabase/functions/_shared/mail/confirmation-mail.ts";
import { mailSettings } from "../../supabase/functions/_shared/mail/list-headers.ts";
import type { MailMessage } from "../../supabase/functions/_shared/mail/mailer.ts";
import {
  addDays,
  type GrowthDay,
  type GrowthSeries,
} from "../../supabase/functions/_shared/report/growth.ts";
import { weekNumbers, type WeekNumbers } from "../../supabase/functions/_shared/report/week.ts";
import { drawPng, weeklyChartSvg } from "../../supabase/functions/_shared/report/weekly-chart.ts";
import { chartLabels, weeklyReportMail } from "../../supabase/functions/_shared/report/weekly-mail.ts";

export const MAIL_KINDS = ["confirmation", "reminder", "welcome", "effect", "weekly-report"] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/** The mails to a subscriber, which carry the list's headers and an unsubscribe link. */
export const SUBSCRIBER_MAIL_KINDS = MAIL_KINDS.filter((kind) => kind !== "weekly-report");

const CONTENT = path.resolve(__dirname, "../../content");
/** A token as long as the real ones (32 random bytes, base64url). */
const token = (letter: string) => letter.repeat(43);

/** A made-up week at the end of eight weeks' growth, from three sources, and an Effect that lost readers. */
export function sampleWeek(to = "2026-11-29"): WeekNumbers {
  const sources = ["podcast", "youtube.com", "form:dialog"];
  const startSize = 1_180;
  let listSize = startSize;
  const days: GrowthDay[] = Array.from({ length: 56 }, (_, index) => {
    const bySource = Object.fromEntries(
      sources.map((source, rank) => {
        const joined = ((index * (rank + 2)) % 5) + 3 - rank;
        const unsubscribed = (index + rank) % 4 === 0 ? 1 : 0;
        const bounced = rank === 0 && index % 9 === 0 ? 1 : 0;
        const complained = rank === 1 && index % 17 === 0 ? 1 : 0;
        return [source, { joined, unsubscribed, bounced, complained, listSize: 0 }];
      }),
    );
    const sum = (key: "joined" | "unsubscribed" | "bounced" | "complained") =>
      Object.values(bySource).reduce((total, counts) => total + counts[key], 0);
    const flows = {
      joined: sum("joined"),
      unsubscribed: sum("unsubscribed"),
      bounced: sum("bounced"),
      complained: sum("complained"),
    };
    listSize += flows.joined - flows.unsubscribed - flows.bounced - flows.complained;
    return { day: addDays(to, index - 55), ...flows, listSize, bySource };
  });
  const series: GrowthSeries = {
    from: days[0].day,
    to,
    timeZone: "America/New_York",
    sources,
    startSize,
    days,
    totals: { joined: 0, unsubscribed: 0, bounced: 0, complained: 0, listSize, bySource: {} },
    cameBack: 0,
  };
  const effect = {
    date: addDays(to, -5),
    subject: "Effect of the Day: Showing up on purpose, for the people who count on you",
    mailed: 1_204,
    bounced: 2,
    complained: 1,
    unsubscribed: 6,
    lost: 9,
  };
  return weekNumbers(
    { generatedAt: new Date().toISOString(), series, effects: [effect] },
    { from: addDays(to, -6), to },
  );
}

/** Each of the mails as it leaves the sender. */
export async function sampleMails(contentDir = CONTENT): Promise<Record<MailKind, MailMessage>> {
  const brand = readBrand(contentDir);
  const settings = mailSettings(
    parseConfig({ SITE_URL: brand.siteUrl, FUNCTIONS_URL: "https://project-ref.supabase.co/functions/v1" }),
    readSenderIdentity(contentDir),
  );
  const texts = readYaml(
    readFileSync(path.join(contentDir, "effect-pages.yaml"), "utf8"),
    "content/effect-pages.yaml",
  ) as EffectPages;
  const { effects } = loadEffects(path.join(contentDir, "effects"));
  // The newest Effect in content/ (the longest-running sample of real copy).
  const [effect] = [...effects].sort((a, b) => b.date.localeCompare(a.date));
  const edition = mailEdition(effect, {
    siteUrl: brand.siteUrl,
    brandName: brand.name,
    texts,
    welcome: readMailCopy(contentDir).welcome,
  });
  const recipient = { to: "reader@example.com", unsubscribeToken: token("u") };
  const confirmation = (reminder: boolean) =>
    confirmationMail(settings, {
      to: recipient.to,
      confirmToken: token("c"),
      unsubscribeToken: token("u"),
      expiresAt: new Date("2026-11-25T19:00:00Z"),
      reminder,
    });
  const week = sampleWeek();
  const chart = await drawPng(weeklyChartSvg(week, chartLabels(settings)));
  return {
    confirmation: confirmation(false),
    reminder: confirmation(true),
    welcome: effectMail(settings, edition, recipient, "welcome"),
    effect: effectMail(settings, edition, recipient),
    "weekly-report": weeklyReportMail(settings, { to: "owner@example.com", numbers: week, chart }),
  };
}
