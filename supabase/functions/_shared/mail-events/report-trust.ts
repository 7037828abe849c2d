/**
 * Which returned mail the `dsn` route believes. Its bearer secret proves only that the inbound
 * route forwarded the mail, not who wrote it, and the bounce address is on every list mail: anyone
 * can send it a report naming anyone. So a report counts only for the one subscriber a proof names:
 *
 * - the token of our envelope sender (`bounces+<token>@…`, `mail/bounce-token.ts`), which only the
 *   mail to that subscriber carried, read from the envelope recipient the inbound route passes as
 *   `?rcpt=`, else from the report's `Delivered-To`, `X-Original-To` or `To`, else from the
 *   returned mail itself, inline or attached: its `Return-Path` (where the reader's provider wrote
 *   our envelope sender) or an ARF report's `Original-Mail-From`;
 * - for a complaint, also the per-mail unsubscribe token in the `List-Unsubscribe` header of the
 *   reported mail (`mail/list-headers.ts`), which only that subscriber's mail carried.
 *
 * Both are read from the one reading of the mail (`returned-mail.ts`, linear and capped), never
 * by a second parse; at most a few addresses per place and a few tokens are tried.
 *
 * A report with neither changes nothing (the route answers 200 "ignored", so the inbound route
 * does not retry it, and logs it); a report with one changes that subscriber only, once, whatever
 * number of recipients it lists. The report's own reading (`dsn.ts`) says what happened (bounce,
 * temporary bounce, complaint); this module says to whom.
 */
import type { SqlExecutor } from "../db/sql-executor.ts";
import { type BounceSettings, claimOfAddress } from "../mail/bounce-token.ts";
import { isWellFormedToken, sha256Hex } from "../subscriptions/tokens.ts";
import type { DsnReading } from "./dsn.ts";
import { addressList, type ReturnedMail } from "./returned-mail.ts";
import type { SourceReading } from "./mail-event.ts";

/** Where a report's proof was found, for the log. */
export type ReportProof =
  | "envelope recipient"
  | "delivered-to"
  | "x-original-to"
  | "to"
  | "return-path"
  | "original-mail-from"
  | "list-unsubscribe";

export interface ReportTrustDeps {
  db: SqlExecutor;
  /** BOUNCE_ADDRESS and its key; null: no bounce can be proved, only a complaint by List-Unsubscribe. */
  bounce: BounceSettings | null;
}

export interface ReportEnvelope {
  /** `?rcpt=`: the envelope recipient the inbound route received the report for. */
  rcpt: string | null;
}

/** Addresses tried per place, and unsubscribe tokens looked up: a report carries one of each. */
const ADDRESSES_PER_PLACE = 8;
const TOKENS_LOOKED_UP = 4;

/** The unsubscribe tokens in a `List-Unsubscribe` value: `<https://…/unsubscribe?token=…>`. */
function unsubscribeTokens(values: readonly string[]): string[] {
  return values.flatMap((value) =>
    [...value.matchAll(/<([^<>]{1,2000})>/g)].flatMap(([, link]) => {
      try {
        const token = new URL(link).searchParams.get("token");
        return isWellFormedToken(token) ? [token] : [];
      } catch {
        return [];
      }
    }),
  );
}

/** The places a VERP token of ours may be, in the order they are believed. */
function verpPlaces(report: ReturnedMail | undefined, rcpt: string | null): [ReportProof, string[]][] {
  return [
    ["envelope recipient", rcpt ? [rcpt] : []],
    ["delivered-to", report?.addressedTo.deliveredTo ?? []],
    ["x-original-to", report?.addressedTo.xOriginalTo ?? []],
    ["to", report?.addressedTo.to ?? []],
    // The returned mail as the reader's server had it: the provider writes our envelope sender
    // as its Return-Path (RFC 5321 4.4), and an ARF report names it as Original-Mail-From.
    ["return-path", report?.original?.returnPath ?? []],
    ["original-mail-from", addressList(report?.feedback?.fields.get("original-mail-from"))],
  ];
}

/**
 * The reading of a report, kept only for the one subscriber it proves (at most one event, for
 * them), or emptied with `ignored` saying why.
 */
export async function trustReport(
  reading: DsnReading,
  envelope: ReportEnvelope,
  deps: ReportTrustDeps,
): Promise<SourceReading & { proof?: ReportProof }> {
  if (reading.events.length === 0) return reading;
  const { report } = reading;
  let subscriberId: string | null = null;
  let proof: ReportProof | undefined;

  if (deps.bounce) {
    search: for (const [place, addresses] of verpPlaces(report, envelope.rcpt))
      for (const address of addresses.slice(0, ADDRESSES_PER_PLACE)) {
        const claim = claimOfAddress(deps.bounce, address);
        if (claim) {
          subscriberId = claim.subscriberId;
          proof = place;
          break search;
        }
      }
  }
  if (!subscriberId && reading.events.some((event) => event.kind === "complaint")) {
    const tokens = unsubscribeTokens(report?.original?.headers.get("list-unsubscribe") ?? []);
    for (const token of tokens.slice(0, TOKENS_LOOKED_UP)) {
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
        ? "The report carries no valid token of BOUNCE_ADDRESS (in ?rcpt=, Delivered-To, X-Original-To, To, or the returned mail's Return-Path) and no List-Unsubscribe token of ours: nothing changed."
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
