/**
 * A list with a year and more of history, for `npm run report`'s tests: readers who signed up from
 * many sources (campaigns, referring sites, forms, an import, none), confirmed or never did, left
 * by a link or a complaint, bounced, came back, or signed up again; and an Effect every few weeks,
 * mailed to whoever was on the list then, with the bounces, complaints and unsubscribes that
 * followed it. Written straight into the tables, with the times a year of real traffic would
 * have left (the write paths only ever write "now"). Deterministic for a given seed and today;
 * `effects` says what each Effect should show, worked out here from the same story.
 */
import { randomUUID } from "node:crypto";
import { startOfDay } from "../../supabase/functions/_shared/contract/calendar-day.ts";
import type { SqlQueryable } from "../../supabase/functions/_shared/db/sql-executor.ts";
import type { EffectOutcome } from "../../supabase/functions/_shared/report/effect-outcomes.ts";
import { seededRandom } from "./seeded-random.ts";

const DAY_MS = 86_400_000;

/** What each seeded Effect should show in the report. */
export type SeededEffect = EffectOutcome;

export interface SeededList {
  readers: number;
  effects: SeededEffect[];
}

type Source = Partial<
  Record<
    | "signup_form"
    | "signup_page"
    | "referrer_host"
    | "utm_source"
    | "utm_medium"
    | "utm_campaign"
    | "consent_source",
    string
  >
>;

/** Where readers come from, and how often (the weights). */
const SOURCES: [number, Source][] = [
  [
    14,
    { signup_form: "effect", referrer_host: "www.youtube.com", utm_source: "podcast", utm_medium: "audio" },
  ],
  [10, { signup_form: "dialog", utm_source: "YouTube", utm_campaign: "ep1" }],
  [8, { signup_form: "inline", referrer_host: "www.youtube.com" }],
  [7, { signup_form: "dialog", referrer_host: "instagram.com" }],
  [6, { signup_form: "inline", referrer_host: "l.instagram.com" }],
  [5, { signup_form: "archive", referrer_host: "news.ycombinator.com" }],
  [9, { signup_form: "dialog" }],
  [6, { signup_form: "inline" }],
  [3, { signup_form: "effect" }],
  [8, {}],
  [8, { consent_source: "import:mailchimp" }],
  [3, { signup_form: "dialog", utm_source: "newsletter-swap" }],
  // The long tail: one-off campaigns.
  ...Array.from({ length: 9 }, (_, index): [number, Source] => [
    1,
    { signup_form: "effect", utm_source: `guest-${index + 1}` },
  ]),
];

function pick<T>(next: () => number, weighted: [number, T][]): T {
  const total = weighted.reduce((sum, [weight]) => sum + weight, 0);
  let at = next() * total;
  for (const [weight, value] of weighted) {
    at -= weight;
    if (at < 0) return value;
  }
  return weighted[weighted.length - 1][1];
}

const BOUNCED = "Bounced (resend): 550 5.1.1 user unknown";

/** What the Effects are called. */
const TITLES = [
  "Small & steady",
  "Show up before you feel ready",
  "The long game of fatherhood",
  "Say no to the good, yes to the best",
  "Build the habit, not the hype",
  "What your kids see you do",
  "Purpose over pressure",
];

interface Reader {
  id: string;
  email: string;
  status: "pending" | "confirmed" | "unsubscribed";
  signed_up_at: Date;
  confirmed_at: Date | null;
  unsubscribed_at: Date | null;
  unsubscribe_reason: "link" | "complaint" | null;
  complained_at: Date | null;
  undeliverable_at: Date | null;
  undeliverable_reason: string | null;
  unsubscribe_edition_date: string | null;
  pending_consent_source: string | null;
  consent_at: Date | null;
  source: Source;
  /** How they left their current stay on the list, when they did. */
  left: { at: Date; how: "link" | "complaint" | "bounce" } | null;
}

const between = (next: () => number, from: Date, to: Date) =>
  new Date(from.getTime() + Math.floor(next() * Math.max(0, to.getTime() - from.getTime())));

/**
 * `count` readers over the last `days` days before `now`, and an Effect every `effectEvery` days
 * (dated in `timeZone`, sent at 14:00 there) with what it lost.
 */
export async function seedReportList(
  db: SqlQueryable,
  options: {
    now: Date;
    timeZone: string;
    count?: number;
    days?: number;
    effectEvery?: number;
    seed?: number;
  },
): Promise<SeededList> {
  const { now, timeZone } = options;
  const next = seededRandom(options.seed ?? 42);
  const days = options.days ?? 420;
  const start = new Date(now.getTime() - days * DAY_MS);
  const latest = new Date(now.getTime() - 10 * 60_000);
  const readers: Reader[] = [];
  for (let index = 0; index < (options.count ?? 400); index++) {
    const source = pick(next, SOURCES);
    const signedUp = between(next, start, latest);
    const reader: Reader = {
      id: randomUUID(),
      email: `seeded${index}@example.com`,
      status: "confirmed",
      signed_up_at: signedUp,
      confirmed_at: between(
        next,
        signedUp,
        new Date(Math.min(latest.getTime(), signedUp.getTime() + 3 * 3_600_000)),
      ),
      unsubscribed_at: null,
      unsubscribe_reason: null,
      complained_at: null,
      undeliverable_at: null,
      undeliverable_reason: null,
      unsubscribe_edition_date: null,
      pending_consent_source: null,
      consent_at: null,
      source,
      left: null,
    };
    const confirmed = reader.confirmed_at as Date;
    const fate = next();
    const leave = (how: "link" | "complaint", at = between(next, confirmed, latest)) => {
      Object.assign(reader, { status: "unsubscribed", unsubscribed_at: at, unsubscribe_reason: how });
      if (how === "complaint") reader.complained_at = at;
      reader.left = { at, how };
      return at;
    };
    const bounce = (at: Date) =>
      Object.assign(reader, { undeliverable_at: at, undeliverable_reason: BOUNCED });
    if (fate < 0.08) {
      // Never confirmed (still within the week a pending signup is kept, or from before the purge).
      Object.assign(reader, { status: "pending", confirmed_at: null });
    } else if (fate < 0.22) leave("link");
    else if (fate < 0.26) leave("complaint");
    else if (fate < 0.32) {
      const at = between(next, confirmed, latest);
      bounce(at);
      reader.left = { at, how: "bounce" };
    } else if (fate < 0.35) {
      // Left, then came back: their earlier confirmation is lost; they are on the list now.
      const gone = leave("link");
      Object.assign(reader, { status: "confirmed", confirmed_at: between(next, gone, latest), left: null });
    } else if (fate < 0.37) {
      // Left, and signed up again: waiting for the new confirmation, not on the list.
      const gone = leave("link");
      Object.assign(reader, { status: "pending", signed_up_at: between(next, gone, latest) });
      reader.pending_consent_source = "https://thepurposeeffect.example/";
    } else if (fate < 0.38) {
      // Left by the link, and a mail sent before it bounced afterwards: they left by the link.
      bounce(between(next, leave("link"), latest));
    }
    reader.consent_at = reader.confirmed_at;
    readers.push(reader);
  }

  // An Effect every few weeks, mailed at 14:00 in the brand's time zone to whoever was on the list.
  const effects: (SeededEffect & { sentAt: Date; recipients: Reader[] })[] = [];
  const every = options.effectEvery ?? 21;
  for (let offset = days - 5; offset >= 1; offset -= every) {
    const date = new Date(now.getTime() - offset * DAY_MS).toISOString().slice(0, 10);
    const sentAt = new Date(startOfDay(date, timeZone).getTime() + 14 * 3_600_000);
    if (sentAt >= latest) continue;
    const recipients = readers.filter(
      (reader) =>
        reader.confirmed_at !== null &&
        reader.confirmed_at <= sentAt &&
        (reader.left === null || reader.left.at > sentAt),
    );
    const subject = `Effect of the Day: ${TITLES[effects.length % TITLES.length]}`;
    effects.push({
      date,
      subject,
      sentAt,
      recipients,
      mailed: recipients.length,
      bounced: 0,
      complained: 0,
      unsubscribed: 0,
      lost: 0,
    });
  }

  // What followed each Effect: the reader's last Effect before they left is the one they left by.
  const failed = new Set<string>();
  const events: {
    kind: "bounce" | "complaint";
    subscriber_id: string | null;
    edition_date: string;
    occurred_at: Date;
  }[] = [];
  for (const reader of readers) {
    if (!reader.left) continue;
    const left = reader.left;
    const last = [...effects]
      .reverse()
      .find((effect) => effect.sentAt < left.at && effect.recipients.includes(reader));
    if (!last) continue;
    const within = left.at.getTime() < last.sentAt.getTime() + 7 * DAY_MS;
    if (left.how === "link") {
      reader.unsubscribe_edition_date = last.date;
      if (within) last.unsubscribed++;
    } else if (left.how === "complaint") {
      events.push({
        kind: "complaint",
        subscriber_id: reader.id,
        edition_date: last.date,
        occurred_at: left.at,
      });
      last.complained++;
    } else if (within && next() < 0.5) {
      // Refused at the send itself (an SMTP 5xx): the delivery failed, nothing was mailed.
      reader.undeliverable_at = last.sentAt;
      reader.left = { at: last.sentAt, how: "bounce" };
      failed.add(`${last.date}/${reader.id}`);
      last.mailed--;
      last.bounced++;
    } else {
      events.push({
        kind: "bounce",
        subscriber_id: reader.id,
        edition_date: last.date,
        occurred_at: left.at,
      });
      last.bounced++;
    }
    if (left.how !== "link" || within) last.lost++;
  }
  // A complaint from a reader since forgotten: still counted for its Effect.
  const forgotten = effects[Math.floor(effects.length / 2)];
  events.push({
    kind: "complaint",
    subscriber_id: null,
    edition_date: forgotten.date,
    occurred_at: forgotten.sentAt,
  });
  forgotten.complained++;
  forgotten.lost++;

  const iso = (date: Date | null) => date?.toISOString() ?? null;
  await db.query(
    `insert into subscribers (id, email, status, signed_up_at, confirmed_at, unsubscribed_at, unsubscribe_reason,
       complained_at, undeliverable_at, undeliverable_reason, unsubscribe_edition_date, consent_source, consent_at,
       pending_consent_source, signup_form, signup_page, referrer_host, utm_source, utm_medium, utm_campaign)
     select id, email, status, signed_up_at, confirmed_at, unsubscribed_at, unsubscribe_reason,
       complained_at, undeliverable_at, undeliverable_reason, unsubscribe_edition_date, consent_source, consent_at,
       pending_consent_source, signup_form, signup_page, referrer_host, utm_source, utm_medium, utm_campaign
     from json_populate_recordset(null::subscribers, $1::json)`,
    [
      JSON.stringify(
        readers.map(({ source, left: _left, ...reader }) => ({
          ...reader,
          consent_source:
            source.consent_source ?? (reader.confirmed_at ? "https://thepurposeeffect.example/" : null),
          signup_form: source.signup_form ?? null,
          signup_page: source.signup_form ? "/" : null,
          referrer_host: source.referrer_host ?? null,
          utm_source: source.utm_source ?? null,
          utm_medium: source.utm_medium ?? null,
          utm_campaign: source.utm_campaign ?? null,
          signed_up_at: iso(reader.signed_up_at),
          confirmed_at: iso(reader.confirmed_at),
          unsubscribed_at: iso(reader.unsubscribed_at),
          complained_at: iso(reader.complained_at),
          undeliverable_at: iso(reader.undeliverable_at),
          consent_at: iso(reader.consent_at),
        })),
      ),
    ],
  );
  await db.query(
    `insert into effect_editions (edition_date, subject, html, text, url, prepared_at)
     select edition_date, subject, '<p>Effect</p>', 'Effect', 'https://thepurposeeffect.example/', prepared_at
     from json_to_recordset($1::json) as e(edition_date date, subject text, prepared_at timestamptz)`,
    [
      JSON.stringify(
        effects.map((effect) => ({
          edition_date: effect.date,
          subject: effect.subject,
          prepared_at: effect.sentAt,
        })),
      ),
    ],
  );
  await db.query(
    `insert into effect_deliveries (edition_date, subscriber_id, recipient, status, sent_at, last_error)
     select edition_date, subscriber_id, recipient, status, sent_at, last_error
     from json_to_recordset($1::json)
       as d(edition_date date, subscriber_id uuid, recipient text, status text, sent_at timestamptz, last_error text)`,
    [
      JSON.stringify(
        effects.flatMap((effect) =>
          effect.recipients.map((reader) => {
            const refused = failed.has(`${effect.date}/${reader.id}`);
            return {
              edition_date: effect.date,
              subscriber_id: reader.id,
              recipient: reader.email,
              status: refused ? "failed" : "sent",
              sent_at: refused ? null : effect.sentAt,
              last_error: refused ? "550 5.1.1 user unknown" : null,
            };
          }),
        ),
      ),
    ],
  );
  await db.query(
    `insert into mail_events (source, event_id, kind, subscriber_id, edition_date, occurred_at)
     select 'resend', event_id, kind, subscriber_id, edition_date, occurred_at
     from json_to_recordset($1::json)
       as m(event_id text, kind text, subscriber_id uuid, edition_date date, occurred_at timestamptz)`,
    [JSON.stringify(events.map((event, index) => ({ event_id: `seeded-${index}`, ...event })))],
  );
  return {
    readers: readers.length,
    effects: effects.map(({ sentAt: _sentAt, recipients: _recipients, ...effect }) => effect),
  };
}
