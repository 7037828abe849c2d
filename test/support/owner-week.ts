/**
 * A small list whose last full week (and the week before) the owner's weekly report must tell
 * exactly, for its tests: readers who joined from known sources, left by a link, bounced and
 * complained on known days, and two Effects of the week, one of which lost two readers by its own
 * link. Written straight into the tables, at noon in the brand's time zone on each day, relative
 * to `now`: the week is the one before the week `now` is in.
 */
import { randomUUID } from "node:crypto";
import { dayIn, startOfDay } from "../../supabase/functions/_shared/contract/calendar-day.ts";
import type { SqlQueryable } from "../../supabase/functions/_shared/db/sql-executor.ts";
import { addDays } from "../../supabase/functions/_shared/report/growth.ts";
import { lastFullWeek, type ReportWeek } from "../../supabase/functions/_shared/report/week.ts";

export interface SeededWeek {
  week: ReportWeek;
  /** The Effect that lost the most readers: its day and title. */
  effect: { date: string; title: string };
}

/**
 * How far to set a test's clock back (ms: zero, or minus `spanMs`) so that the next `spanMs` stay
 * in one reporting week in `timeZone`: a test that starts late on the brand's Sunday would
 * otherwise see the next week's report fall due halfway through (the week ends at midnight there,
 * early on Monday in UTC).
 */
export function clearOfWeekEnd(timeZone: string, spanMs: number, now = new Date()): number {
  const weekOf = (at: Date) => lastFullWeek(dayIn(timeZone, at)).from;
  return weekOf(now) === weekOf(new Date(now.getTime() + spanMs)) ? 0 : -spanMs;
}

/** What the report must say of the seeded week, against the week before. */
export const SEEDED_NUMBERS = {
  thisWeek: { listSize: 13, joined: 5, unsubscribed: 2, bounced: 1, complained: 1, left: 4, change: "+1" },
  weekBefore: { listSize: 12, joined: 3, unsubscribed: 1, bounced: 0, complained: 0 },
  sources: [
    ["podcast", 3],
    ["youtube.com", 2],
  ],
  effect: { mailed: 9, lost: 2, unsubscribed: 2, bounced: 0, complained: 0 },
} as const;

const EFFECT_TITLE = "Keep going when no one is watching";

export async function seedOwnerWeek(db: SqlQueryable, now: Date, timeZone: string): Promise<SeededWeek> {
  const week = lastFullWeek(dayIn(timeZone, now));
  const before = addDays(week.from, -7);
  const at = (day: string, hour = 12) => new Date(startOfDay(day, timeZone).getTime() + hour * 3_600_000);
  const effectDay = addDays(week.from, 1);
  const quietEffectDay = addDays(week.from, 4);

  const insert = (fields: Record<string, unknown>) => {
    const columns = Object.keys(fields);
    return db.query<{ id: string }>(
      `insert into subscribers (${columns.join(", ")}) values (${columns.map((_, index) => `$${index + 1}`).join(", ")}) returning id`,
      Object.values(fields),
    );
  };
  const reader = (
    email: string,
    confirmed: Date,
    source: Record<string, string>,
    rest: Record<string, unknown> = {},
  ) =>
    insert({
      id: randomUUID(),
      email,
      status: "confirmed",
      signed_up_at: new Date(confirmed.getTime() - 600_000),
      confirmed_at: confirmed,
      consent_at: confirmed,
      ...source,
      ...rest,
    });

  // Ten readers from long before, on the landing page's card.
  const early: string[] = [];
  for (let index = 0; index < 10; index++)
    early.push(
      (await reader(`early${index}@example.com`, at(addDays(before, -20)), { signup_form: "inline" }))[0].id,
    );
  // The week before: three joined, one of the early readers left by a link.
  for (let index = 0; index < 3; index++)
    await reader(`swap${index}@example.com`, at(addDays(before, 1)), {
      signup_form: "dialog",
      utm_source: "newsletter-swap",
    });
  const leave = (id: string, fields: Record<string, unknown>) => {
    const columns = Object.keys(fields);
    return db.query(
      `update subscribers set ${columns.map((column, index) => `${column} = $${index + 2}`).join(", ")} where id = $1`,
      [id, ...Object.values(fields)],
    );
  };
  await leave(early[0], {
    status: "unsubscribed",
    unsubscribed_at: at(addDays(before, 2)),
    unsubscribe_reason: "link",
  });

  // This week: five joined (three from the podcast, two from YouTube), four left.
  for (let index = 0; index < 3; index++)
    await reader(`podcast${index}@example.com`, at(addDays(week.from, 1)), {
      signup_form: "effect",
      utm_source: "podcast",
    });
  for (let index = 0; index < 2; index++)
    await reader(`youtube${index}@example.com`, at(addDays(week.from, 2)), {
      signup_form: "inline",
      referrer_host: "www.youtube.com",
    });

  // Two Effects this week, mailed at 14:00 to the early readers still on the list.
  for (const [day, title, recipients] of [
    [effectDay, EFFECT_TITLE, early.slice(1)],
    [quietEffectDay, "A quiet one", early.slice(6)],
  ] as const) {
    await db.query(
      `insert into effect_editions (edition_date, subject, html, text, url, prepared_at) values ($1::date, $2, '<p>.</p>', '.', $3, $4)`,
      [day, `Effect of the Day: ${title}`, `https://thepurposeeffect.example/effects/${day}/`, at(day, 13)],
    );
    for (const id of recipients)
      await db.query(
        `insert into effect_deliveries (edition_date, subscriber_id, recipient, status, attempts, sent_at) values ($1::date, $2, 'x@example.com', 'sent', 1, $3)`,
        [day, id, at(day, 14)],
      );
  }
  // Two left by the first Effect's own link, one bounced, one complained.
  for (const id of early.slice(1, 3))
    await leave(id, {
      status: "unsubscribed",
      unsubscribed_at: at(addDays(week.from, 3)),
      unsubscribe_reason: "link",
      unsubscribe_edition_date: effectDay,
    });
  await leave(early[3], {
    undeliverable_at: at(addDays(week.from, 4)),
    undeliverable_reason: "550 5.1.1 user unknown",
  });
  await leave(early[4], {
    status: "unsubscribed",
    unsubscribed_at: at(addDays(week.from, 5)),
    unsubscribe_reason: "complaint",
    complained_at: at(addDays(week.from, 5)),
  });
  return { week, effect: { date: effectDay, title: EFFECT_TITLE } };
}
