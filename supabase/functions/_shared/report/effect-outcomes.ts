/**
 * What each Effect of the Day did to the list: how many readers it was mailed to, and how many of
 * them it lost, by a bounce, a complaint, or its own unsubscribe link within seven days of their
 * mail. Only reads.
 *
 * - mailed: its deliveries sent (the day's send and the welcome mails that carried it);
 * - bounced: its recipients whose mail was refused for good, at the send (an SMTP 5xx) or later
 *   (a bounce event the provider reported for that edition);
 * - complained: recipients who reported it as spam (complaint events for that edition);
 * - unsubscribed: readers who left by that Effect's own link (`subscribers.unsubscribe_edition_date`,
 *   migration 20261128400000) within seven days of their mail of it. Like every leaving time, only
 *   the latest is kept: a reader who left by it, came back and left again by another Effect counts
 *   for the other one;
 * - lost: the readers in any of these, each once.
 *
 * Readers since forgotten stay counted, without them: their events each once (by the event), their
 * deliveries that ended each once (by the delivery; a forgotten reader's refusal at the send and a
 * later bounce of the same mail, which no provider sends for one refused, would count twice).
 */
import type { SqlQueryable } from "../db/sql-executor.ts";

export interface EffectOutcome {
  /** The edition's day, YYYY-MM-DD. */
  date: string;
  subject: string;
  mailed: number;
  bounced: number;
  complained: number;
  /** Left by this Effect's own link within seven days of their mail. */
  unsubscribed: number;
  /** Readers lost by any of the three, each once. */
  lost: number;
}

/** The days after a reader's mail in which its link's unsubscribe counts against the Effect. */
export const UNSUBSCRIBE_WINDOW_DAYS = 7;

const OUTCOMES = `with lost as (
    select edition_date, 'bounced' as how, coalesce(subscriber_id::text, source || ':' || event_id) as who
    from mail_events where kind = 'bounce' and edition_date between $1::date and $2::date
    union
    select edition_date, 'bounced', coalesce(subscriber_id::text, 'delivery:' || id::text)
    from effect_deliveries where status = 'failed' and edition_date between $1::date and $2::date
    union
    select edition_date, 'complained', coalesce(subscriber_id::text, source || ':' || event_id)
    from mail_events where kind = 'complaint' and edition_date between $1::date and $2::date
    union
    select d.edition_date, 'unsubscribed', s.id::text
    from subscribers s
    join effect_deliveries d on d.subscriber_id = s.id and d.edition_date = s.unsubscribe_edition_date
    join effect_editions e on e.edition_date = d.edition_date
    where s.unsubscribe_reason = 'link' and d.edition_date between $1::date and $2::date
      and s.unsubscribed_at < coalesce(d.sent_at, e.prepared_at) + make_interval(days => $3::int)
  ), counts as (
    select edition_date,
      count(distinct who) filter (where how = 'bounced')::int as bounced,
      count(distinct who) filter (where how = 'complained')::int as complained,
      count(distinct who) filter (where how = 'unsubscribed')::int as unsubscribed,
      count(distinct who)::int as lost
    from lost group by 1
  ), mailed as (
    select edition_date, count(*) filter (where status = 'sent')::int as mailed
    from effect_deliveries where edition_date between $1::date and $2::date group by 1
  )
  select to_char(e.edition_date, 'YYYY-MM-DD') as date, e.subject, coalesce(m.mailed, 0) as mailed,
    coalesce(c.bounced, 0) as bounced, coalesce(c.complained, 0) as complained,
    coalesce(c.unsubscribed, 0) as unsubscribed, coalesce(c.lost, 0) as lost
  from effect_editions e
  left join mailed m on m.edition_date = e.edition_date
  left join counts c on c.edition_date = e.edition_date
  where e.edition_date between $1::date and $2::date
  order by e.edition_date`;

/** Every edition dated `from`..`to` (YYYY-MM-DD), oldest first. */
export async function readEffectOutcomes(
  db: SqlQueryable,
  range: { from: string; to: string },
): Promise<EffectOutcome[]> {
  const rows = await db.query<Record<keyof EffectOutcome, unknown>>(OUTCOMES, [
    range.from,
    range.to,
    UNSUBSCRIBE_WINDOW_DAYS,
  ]);
  return rows.map((row) => ({
    date: String(row.date),
    subject: String(row.subject),
    mailed: Number(row.mailed),
    bounced: Number(row.bounced),
    complained: Number(row.complained),
    unsubscribed: Number(row.unsubscribed),
    lost: Number(row.lost),
  }));
}

/** The Effects that lost readers, most first (then the larger share of those mailed, then the newer). */
export function mostReadersLost(outcomes: EffectOutcome[], count: number): EffectOutcome[] {
  const share = (outcome: EffectOutcome) => (outcome.mailed > 0 ? outcome.lost / outcome.mailed : 0);
  return outcomes
    .filter((outcome) => outcome.lost > 0)
    .sort((a, b) => b.lost - a.lost || share(b) - share(a) || b.date.localeCompare(a.date))
    .slice(0, count);
}
