/**
 * What a mail event does to the list, in one transaction per event:
 *
 * - the event is recorded under its provider's id first; an id seen before changes nothing;
 * - it is for the subscriber a returned mail's proof names (`subscriberId`, `report-trust.ts`), else
 *   for the address the provider's signed event names;
 * - a permanent bounce suppresses the address at once (`undeliverable_at`, the same mark an SMTP
 *   5xx leaves): no Effect, welcome or reminder goes to it, and its queued mail is abandoned. Only a
 *   new signup confirmed by a click on its link lifts it (subscriber-store.ts, `confirm`);
 * - a complaint unsubscribes the address at once, and its consent record says so
 *   (`unsubscribe_reason = 'complaint'`, `complained_at`); only signing up and confirming again
 *   brings it back;
 * - a temporary bounce is counted by day: on three different days in a row the address is
 *   suppressed as for a permanent bounce;
 * - a refusal about the sender (`sender_refusal`) changes nothing for the reader: it is kept with
 *   the subscriber's id and edition, so `effect status` can warn about the sending domain.
 *
 * The event keeps the subscriber's id (never the address) and the Effect edition last sent to them
 * before the event (within a minute after it too: a report's Date has whole seconds, and clocks differ), so `npm run effect -- status DATE` can say how much of an edition bounced.
 */
import { utcDay } from "../contract/calendar-day.ts";
import type { SqlExecutor, SqlQueryable } from "../db/sql-executor.ts";
import { maskAddresses } from "../logger.ts";
import { abandonQueuedMail, suppressReaders } from "../mail/mail-queue.ts";
import { markUnsubscribed, recordSoftBounceDays } from "../subscriptions/subscriber-rows.ts";
import type { MailEvent } from "./mail-event.ts";

/** Temporary bounces on this many different days in a row suppress an address. */
export const SOFT_BOUNCE_DAYS_TO_SUPPRESS = 3;

export type EventEffect =
  | "duplicate"
  | "unknown_recipient"
  | "suppressed"
  | "already_suppressed"
  | "unsubscribed"
  | "already_unsubscribed"
  | "counted";

const previousDay = (day: string): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

export function createMailEventStore(db: SqlExecutor) {
  return {
    async apply(event: MailEvent, now: Date): Promise<EventEffect> {
      return db.transaction(async (tx) => {
        const recorded = await tx.query(
          `insert into mail_events (source, event_id, kind, detail, occurred_at, received_at)
           values ($1, $2, $3, $4, $5::timestamptz, $6::timestamptz)
           on conflict (source, event_id) do nothing returning event_id`,
          [
            event.source,
            event.id.slice(0, 500),
            event.kind,
            maskAddresses(event.detail).slice(0, 1000),
            event.occurredAt.toISOString(),
            now.toISOString(),
          ],
        );
        if (recorded.length === 0) return "duplicate";

        const [subscriber] = await tx.query<{
          id: string;
          status: string;
          suppressed: boolean;
          soft_bounce_days: number;
          last_soft_bounce_day: unknown;
        }>(
          `select id, status, suppressed, soft_bounce_days, to_char(last_soft_bounce_day, 'YYYY-MM-DD') as last_soft_bounce_day
           from subscribers where ${event.subscriberId ? "id = $1" : "lower(email) = lower($1)"} for update`,
          [event.subscriberId ?? event.recipient],
        );
        if (!subscriber) return "unknown_recipient";
        await tx.query(
          `update mail_events set subscriber_id = $3,
             edition_date = (select edition_date from effect_deliveries
                             where subscriber_id = $3 and status = 'sent'
                               and sent_at <= $4::timestamptz + interval '1 minute'
                             order by sent_at desc limit 1)
           where source = $1 and event_id = $2`,
          [event.source, event.id.slice(0, 500), subscriber.id, event.occurredAt.toISOString()],
        );
        if (event.kind === "sender_refusal") return "counted";
        const reason = `${event.kind === "complaint" ? "Complained" : "Bounced"} (${event.source}): ${event.detail}`;

        if (event.kind === "complaint") {
          await markUnsubscribed(tx, subscriber.id, "complaint", now);
          await abandonQueuedMail(tx, [{ id: subscriber.id, reason }]);
          return subscriber.status === "unsubscribed" ? "already_unsubscribed" : "unsubscribed";
        }
        if (subscriber.suppressed) return "already_suppressed";
        if (event.kind === "bounce") {
          await suppressReaders(tx, [{ id: subscriber.id, reason }], now);
          return "suppressed";
        }
        // A temporary bounce: counted once per day, in a row.
        const day = utcDay(event.occurredAt);
        const last =
          subscriber.last_soft_bounce_day === null ? null : String(subscriber.last_soft_bounce_day);
        if (last !== null && last >= day) return "counted";
        const days = last === previousDay(day) ? Number(subscriber.soft_bounce_days) + 1 : 1;
        await recordSoftBounceDays(tx, subscriber.id, days, day, now);
        if (days < SOFT_BOUNCE_DAYS_TO_SUPPRESS) return "counted";
        const overDays = `${reason} (temporary bounces on ${days} days in a row)`;
        await suppressReaders(tx, [{ id: subscriber.id, reason: overDays }], now);
        return "suppressed";
      });
    },
  };
}

/**
 * A reader forgotten: their events stay counted (an edition's bounces and complaints), but lose
 * what was theirs, the link to the reader and the provider's words. Returns how many.
 */
export async function forgetEventDetails(tx: SqlQueryable, subscriberId: string): Promise<number> {
  const rows = await tx.query(
    `update mail_events set subscriber_id = null, detail = null where subscriber_id = $1 returning event_id`,
    [subscriberId],
  );
  return rows.length;
}

export type MailEventStore = ReturnType<typeof createMailEventStore>;
