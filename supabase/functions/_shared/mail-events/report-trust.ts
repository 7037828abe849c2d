/**
 * Which returned mail the `dsn` route believes. Its bearer secret proves only that the inbound
 * route forwarded the mail, not who wrote it, and the bounce address is on every list mail: anyone
 * can send it a report naming anyone. So a report counts only for the one subscriber a proof names:
 *
 * - the token of our envelope sender (`bounces+<token>@…`, `mail/bounce-token.ts`), which only the
 *   mail to that subscriber carried, read from the envelope recipient the inbound route passes as
 *   `?rcpt=`, else from the report's `Delivered-To`, `X-Original-To` or `To`;
 * - for a complaint, also the per-mail unsubscribe token in the `List-Unsubscribe` header of the
 *   reported mail (`mail/list-headers.ts`), which only that subscriber's mail carried.
 *
 * A report with neither changes nothing (the route answers 200 "ignored", so the inbound route
 * does not retry it, and logs it); a report with one changes that subscriber only, once, whatever
 * number of recipients it lists. The report's own reading (`dsn.ts`) says what happened (bounce,
 * temporary bounce, complaint); this module says to whom.
 */
import { Buffer } from "node:buffer";
import { simpleParser } from "mailparser";
import type { SqlExecutor } from "../db/sql-executor.ts";
import { type BounceSettings, claimOfAddress } from "../mail/bounce-token.ts";
import { isWellFormedToken, sha256Hex } from "../subscriptions/tokens.ts";
import type { SourceReading } from "./mail-event.ts";

/** Where a report's proof was found, for the log. */
export type ReportProof = "envelope recipient" | "delivered-to" | "x-original-to" | "to" | "list-unsubscribe";

export interface ReportTrustDeps {
  db: SqlExecutor;
  /** BOUNCE_ADDRESS and its key; null: no bounce can be proved, only a complaint by List-Unsubscribe. */
  bounce: BounceSettings | null;
}

export interface RawReport {
  /** The raw mail the inbound route posted. */
  body: Uint8Array;
  /** `?rcpt=`: the envelope recipient the inbound route received the report for. */
  rcpt: string | null;
}

const ADDRESS = /[^\s<>,;:"()[\]]+@[^\s<>,;:"()[\]]+/g;

/** The header fields of a mail (or of a headers-only part), by lower-case name, unfolded. */
export function headerFields(text: string): Map<string, string[]> {
  const end = text.search(/\r?\n\r?\n/);
  const head = (end < 0 ? text : text.slice(0, end)).replace(/\r?\n[ \t]+/g, " ");
  const fields = new Map<string, string[]>();
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0 || /\s/.test(line.slice(0, colon))) continue;
    const name = line.slice(0, colon).toLowerCase();
    fields.set(name, [...(fields.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  return fields;
}

/** The unsubscribe tokens in a `List-Unsubscribe` value: `<https://…/unsubscribe?token=…>`. */
function unsubscribeTokens(values: readonly string[]): string[] {
  return values.flatMap((value) =>
    [...value.matchAll(/<([^>]+)>/g)].flatMap(([, link]) => {
      try {
        const token = new URL(link).searchParams.get("token");
        return isWellFormedToken(token) ? [token] : [];
      } catch {
        return [];
      }
    }),
  );
}

/** The `List-Unsubscribe` values of the mail a report returns (its message/rfc822 or headers part). */
async function returnedListUnsubscribe(body: Uint8Array): Promise<string[]> {
  let parsed: Awaited<ReturnType<typeof simpleParser>>;
  try {
    parsed = await simpleParser(Buffer.from(body), {
      keepDeliveryStatus: true,
      skipHtmlToText: true,
      skipTextToHtml: true,
    });
  } catch {
    return [];
  }
  return parsed.attachments
    .filter((part) => ["message/rfc822", "text/rfc822-headers"].includes(part.contentType.toLowerCase()))
    .flatMap((part) => headerFields(part.content.toString("utf8")).get("list-unsubscribe") ?? []);
}

/**
 * The reading of a report, kept only for the one subscriber it proves (at most one event, for
 * them), or emptied with `ignored` saying why.
 */
export async function trustReport(
  reading: SourceReading,
  report: RawReport,
  deps: ReportTrustDeps,
): Promise<SourceReading & { proof?: ReportProof }> {
  if (reading.events.length === 0) return reading;
  let subscriberId: string | null = null;
  let proof: ReportProof | undefined;

  if (deps.bounce) {
    const fields = headerFields(Buffer.from(report.body).toString("latin1"));
    const places: [ReportProof, string[]][] = [
      ["envelope recipient", report.rcpt ? [report.rcpt] : []],
      ["delivered-to", fields.get("delivered-to") ?? []],
      ["x-original-to", fields.get("x-original-to") ?? []],
      ["to", fields.get("to") ?? []],
    ];
    search: for (const [place, values] of places)
      for (const value of values)
        for (const [address] of value.matchAll(ADDRESS)) {
          const claim = claimOfAddress(deps.bounce, address);
          if (claim) {
            subscriberId = claim.subscriberId;
            proof = place;
            break search;
          }
        }
  }
  if (!subscriberId && reading.events.some((event) => event.kind === "complaint")) {
    for (const token of unsubscribeTokens(await returnedListUnsubscribe(report.body))) {
      const [row] = await deps.db.query<{ id: string }>(
        `select id from subscribers where unsubscribe_token_hash = $1
         union all
         select subscriber_id as id from effect_unsubscribe_tokens where token_hash = $1
         limit 1`,
        [await sha256Hex(token)],
      );
      if (row) {
        subscriberId = row.id;
        proof = "list-unsubscribe";
        break;
      }
    }
  }
  if (!subscriberId)
    return {
      events: [],
      outcome: "ignored:unproved",
      ignored: deps.bounce
        ? "The report carries no valid token of BOUNCE_ADDRESS (in ?rcpt=, Delivered-To, X-Original-To or To) and no List-Unsubscribe token of ours: nothing changed."
        : "BOUNCE_ADDRESS is not set, and the report carries no List-Unsubscribe token of ours: nothing changed.",
    };
  const [subscriber] = await deps.db.query<{ email: string }>(`select email from subscribers where id = $1`, [
    subscriberId,
  ]);
  if (!subscriber)
    return {
      events: [],
      outcome: "ignored:unknown_subscriber",
      ignored: "The report's token names a subscriber who is no longer on the list: nothing changed.",
    };
  // One report, one subscriber: the event the report has for them, else its first.
  const event =
    reading.events.find(
      (candidate) => candidate.recipient.toLowerCase() === subscriber.email.toLowerCase(),
    ) ?? reading.events[0];
  return {
    events: [{ ...event, recipient: subscriber.email, subscriberId }],
    outcome: reading.outcome,
    proof,
  };
}
