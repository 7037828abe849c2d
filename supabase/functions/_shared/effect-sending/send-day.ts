/**
 * The one "send the day's Effect" use case, which the `send-effect` function (every 10 s, from the
 * scheduler) and `npm run effect -- send` (the operator, or the local stack's SEND_AT) both run:
 * rows a stopped sender left in `sending` become `unknown`; the edition is prepared for every
 * confirmed subscriber if it is not yet (read from where the host finds it: the site's mail.json
 * over HTTP, or the built site's file); a paused edition resumes; the unknown rows are queued again
 * only when the operator asks; then one sending run. Each host says what it does with the result.
 */
import type { EditionStatus } from "./delivery-store.ts";
import { EditionError, type MailEdition } from "./edition.ts";
import { keysKeptSince, type SendReport, type SendRunOptions, sendEdition } from "./send-run.ts";

/** The list is asked for an Effect before its day. */
export class NotYetDue extends EditionError {
  override name = "NotYetDue";
}

export interface SendDayOptions extends SendRunOptions {
  /** The published edition of `date`; throws `EditionError` when it is not published. */
  loadEdition(date: string): Promise<MailEdition>;
  /** Today in the brand's time zone: the list is never mailed an Effect dated after it. */
  today: string;
  /** `send --retry-unknown`: mails in doubt go out again. */
  retryUnknown?: boolean;
}

export interface SendDayResult {
  /** Rows a stopped sender was sending, now `unknown` (not resent). */
  markedUnknown: number;
  /** Set when this call prepared the edition: for how many confirmed subscribers. */
  preparedFor: number | null;
  resumed: boolean;
  /** With `retryUnknown`: how many were queued again. */
  requeued: number | null;
  run: SendReport;
  status: EditionStatus | null;
}

export async function sendDaysEffect(date: string, options: SendDayOptions): Promise<SendDayResult> {
  const { store } = options;
  if (date > options.today)
    throw new NotYetDue(
      `The Effect of ${date} is dated after today (${options.today} in the brand's time zone): the list gets an Effect on its day, not before. A test mail with --to may go out.`,
    );
  const now = options.now ?? (() => new Date());
  const markedUnknown = await store.markStaleAsUnknown(now(), false, keysKeptSince(options.mailer, now()));
  let preparedFor: number | null = null;
  if (!(await store.edition(date))) {
    // Not published: this throws, and nothing is queued.
    const prepared = await store.prepare(await options.loadEdition(date), now());
    if (prepared.created) preparedFor = prepared.recipients;
  }
  const resumed = await store.resume(date, now());
  const requeued = options.retryUnknown ? await store.requeueUnknown(date, now()) : null;
  const run = await sendEdition(date, options);
  return { markedUnknown, preparedFor, resumed, requeued, run, status: await store.status(date) };
}
