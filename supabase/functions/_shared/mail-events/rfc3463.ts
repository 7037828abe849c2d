/**
 * What a failed recipient's status code means for the list, as RFC 3463 defines the codes
 * (class.subject.detail; class 4 persistent transient, 5 permanent). Only a permanent failure of
 * the recipient's own address or mailbox suppresses at once; what is wrong with the sender, or
 * with the mail we sent, never counts against the reader. The rules, the first that matches:
 *
 * | code                      | RFC 3463 says                                          | kind, and what the list does          |
 * | ------------------------- | ------------------------------------------------------ | ------------------------------------- |
 * | X.7.x                     | security or policy: the sender's reputation, SPF,      | `sender_refusal`: counted, never      |
 * |                           | DKIM, DMARC, a missing PTR, a blocklist, spam          | suppresses; `effect status` warns     |
 * | X.6.x                     | the content or its conversion (our mail, not the       | about the sending domain              |
 * |                           | reader's mailbox)                                      |                                       |
 * | X.1.7, X.1.8              | the sender's address or domain                         |                                       |
 * | 5.1.x (X.1.1 no mailbox,  | the recipient's address is permanently bad             | `bounce`: suppressed at once          |
 * | X.1.2 no domain, X.1.10   |                                                        |                                       |
 * | null MX, ...)             |                                                        |                                       |
 * | 5.2.1                     | the mailbox is disabled                                | `bounce`: suppressed at once          |
 * | 4.x.x                     | persistent transient, whatever the subject             | `soft_bounce`: counted per day, three |
 * | X.2.x but 5.2.1           | X.2.2 full, X.2.3 too big for it, X.2.0 undefined      | days in a row suppress                |
 * | X.3.x, X.4.x              | the receiving system, the network, routing, timeouts   |                                       |
 * | X.5.x                     | the SMTP conversation (protocol, too many recipients): |                                       |
 * |                           | a fault of the exchange, not of the address            |                                       |
 * | X.0.x, X.2.0, X.3.0,      | undefined, or either permanent or transient: the code  | the words decide (below); a           |
 * | X.4.0, X.4.1, X.4.4,      | does not say whose fault it is                         | `soft_bounce` when they say nothing   |
 * | X.5.0, no code at all     |                                                        |                                       |
 *
 * Which code: the recipient's `Status`, unless it does not decide: missing, X.0.0 ("other
 * undefined status"), another undefined detail (X.2.0, X.3.0, X.4.0, X.5.0), X.4.4 ("unable to
 * route", which RFC 3463 says is "useful for both permanent and persistent transient errors") or
 * X.4.1, which Exchange Online writes for an address its directory does not have ("Recipient
 * address rejected: Access denied", https://learn.microsoft.com/exchange/mail-flow-best-practices/non-delivery-reports-in-exchange-online/fix-error-code-550-5-4-1-in-exchange-online).
 * Then the enhanced code in its `Diagnostic-Code` (`smtp; 550 5.1.1 <ann@...>: user unknown`) is
 * taken instead when it does decide and is of the same class, the one right after the receiving
 * server's reply code first (SES writes its own `5.1.0 - Unknown address error` before the
 * server's `550-'5.2.2 ... Mailbox Full'`). When no code decides, the words do
 * (`failure-text.ts`: the diagnostic's text, what follows the status, else the report's own text):
 * temporary words keep it a `soft_bounce`, words about the sender make it a `sender_refusal`, and
 * words that say the address or its domain is gone make a permanent failure (class 5, or a bare
 * `550`) a `bounce`; never a class 4 one, which stays a `soft_bounce` however it is worded. Words
 * that say none of these leave the code's own reading, a `soft_bounce` for an undefined one.
 */
import { filtersSayUserUnknown, readFailureText, USER_UNKNOWN } from "./failure-text.ts";

/** What a failure means for the reader (`MailEventKind` for bounces). */
export type FailureKind = "bounce" | "soft_bounce" | "sender_refusal";

export interface Classified {
  kind: FailureKind;
  /** The code the kind was read from (`5.1.1`, or `550` with no enhanced code), `""` for none. */
  code: string;
  /** When the words decided: what they said (`no such user`, `mailbox full`). */
  said?: string;
}

const ENHANCED = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/;
/** `550 5.2.2`, `550-'5.2.2`: the receiving server's own reply, its enhanced code after it. */
const REPLY_THEN_ENHANCED = /\b([245])\d\d[ -]['"]?(\1\.\d{1,3}\.\d{1,3})\b/;
/** A bare SMTP reply code: `smtp; 550 Unknown user`, `550-5.1.1`. */
const REPLY = /(?:^|[;\s])([45]\d\d)(?=[\s-]|$)/;

/** The kind for one enhanced code (`5.2.2`). */
export function kindOf(code: string): FailureKind {
  const [klass, subject, detail] = code.split(".").map(Number);
  if (subject === 7 || subject === 6 || (subject === 1 && (detail === 7 || detail === 8)))
    return "sender_refusal";
  if (klass === 5 && (subject === 1 || (subject === 2 && detail === 1))) return "bounce";
  return "soft_bounce";
}

/**
 * A code that does not say whose fault it is: X.0.x, an undefined detail (X.1.0 "something about
 * the address", the sender's or the recipient's; X.2.0 to X.5.0), X.4.1, X.4.4.
 */
export function undecided(code: string): boolean {
  const [, subject, detail] = code.split(".").map(Number);
  if (subject === 0) return true;
  if (detail === 0) return subject >= 1 && subject <= 5;
  return subject === 4 && (detail === 1 || detail === 4);
}

/** The words of a failure: its diagnostic, what follows its status, and the report's own text. */
export interface FailureWords {
  statusText?: string;
  /** The report's human-readable text, read only when the recipient's own fields say nothing. */
  text?: string;
  /** The report's text shows the refusal came after DATA (a transcript, Postfix's "in reply to"). */
  afterData?: boolean;
  /** The failed address, for the few domains whose "user unknown" may be a filter's. */
  recipient?: string;
  /** The report was written by a mail filter in front of the mailbox (its `X-Mailer` says so). */
  byAFilter?: boolean;
}

/**
 * A Diagnostic-Code is `diagnostic-type ; text` (RFC 3464, 2.3.6: `smtp; 550 ...`, `X-Notes; ...`).
 * One with neither a type nor a reply code (`The email account that you tried to reach does not
 * exist.`) is the reporting MTA's own gloss, not a receiving server's answer: under a code that does
 * not decide, its words are not read as the server's verdict (sisimai reads such a report as
 * `filtered`). An enhanced code in it (`550 5.1.1 ...`, SendGrid's) is still read.
 */
const TYPED = /^\s*[a-z][a-z0-9-]*\s*;/i;
const gloss = (diagnosticCode: string | undefined) =>
  diagnosticCode !== undefined && !TYPED.test(diagnosticCode) && !/\b[245]\d\d\b/.test(diagnosticCode);

/**
 * A refusal after the DATA command, or one that names no address (`550 : User unknown`): the server
 * took the recipient and then refused the mail, as Japanese carriers' filters answer "User
 * unknown" (sisimai's `filtered`). Its bare "user unknown" is not taken as the address being gone;
 * more specific words ("This user doesn't have a yahoo.com account", Yahoo's after DATA) are.
 */
const AFTER_DATA = /in reply to (?:end of )?data|after (?:end of )?data|(?:^|[;\s])[45]\d\d :/i;

/** A failed recipient's kind, from its Status and Diagnostic-Code fields and, where they do not decide, its words. */
export function classifyFailure(
  status: string | undefined,
  diagnosticCode: string | undefined,
  words: FailureWords = {},
): Classified {
  const given = status ? ENHANCED.exec(status)?.[0] : undefined;
  const diagnostic = diagnosticCode
    ? (REPLY_THEN_ENHANCED.exec(diagnosticCode)?.[2] ?? ENHANCED.exec(diagnosticCode)?.[0])
    : undefined;
  const code =
    (!given || undecided(given)) &&
    diagnostic &&
    !undecided(diagnostic) &&
    diagnostic[0] === (given ?? diagnostic)[0]
      ? diagnostic
      : given;
  const wording = () =>
    readFailureText(
      [gloss(diagnosticCode) ? "" : diagnosticCode, words.statusText].filter(Boolean).join(" "),
    ) ?? readFailureText(words.text);
  // Where the receiving server's own code says the refusal was about us (X.7.x) or temporary
  // (X.2.2 full) and the reporting MTA's Status says the address is bad (sendmail writes 5.1.1 for
  // any 550 at RCPT), the reading that costs the reader least stands: the server's.
  if (
    given &&
    diagnostic &&
    diagnostic[0] === given[0] &&
    !undecided(given) &&
    !undecided(diagnostic) &&
    kindOf(given) === "bounce" &&
    kindOf(diagnostic) !== "bounce"
  )
    return { kind: kindOf(diagnostic), code: diagnostic };
  if (code && !undecided(code)) {
    // X.2.1, "mailbox disabled", may be temporary (RFC 3463): Gmail writes it for a mailbox that
    // receives mail too fast. Its words may say so.
    if (code.split(".")[1] === "2" && code.split(".")[2] === "1") {
      const reading = wording();
      if (reading?.verdict === "temporary") return { kind: "soft_bounce", code, said: reading.said };
    }
    return { kind: kindOf(code), code };
  }

  const reply = REPLY.exec(diagnosticCode ?? "")?.[1];
  const shown = code ?? diagnostic ?? reply ?? "";
  // The class: the code's, else the reply's; a failed recipient with neither failed for good (RFC 3464).
  const permanent = (code ?? diagnostic ?? reply ?? "5")[0] === "5";
  const reading = wording();
  if (!reading) return { kind: code ? kindOf(code) : "soft_bounce", code: shown };
  if (reading.verdict === "sender") return { kind: "sender_refusal", code: shown, said: reading.said };
  // The bare words after DATA, or at a carrier whose filters say them, or any such words in a
  // report a mail filter wrote (sisimai's `filtered`): perhaps a filter's refusal.
  if (
    (reading.said === USER_UNKNOWN &&
      (words.afterData || AFTER_DATA.test(diagnosticCode ?? "") || filtersSayUserUnknown(words.recipient))) ||
    (words.byAFilter && reading.verdict === "recipient")
  )
    return { kind: "soft_bounce", code: shown, said: `${reading.said}, perhaps a filter` };
  return {
    kind: reading.verdict === "recipient" && permanent ? "bounce" : "soft_bounce",
    code: shown,
    said: reading.said,
  };
}

/** SES's (and Resend's) bounce types: `Permanent`, `Transient`, `Undetermined`. */
export interface ProviderBounce {
  type: string | undefined;
  subType: string | undefined;
  status: string | undefined;
  diagnostic: string | undefined;
}

/** Transient subtypes about our own mail (https://docs.aws.amazon.com/ses/latest/dg/notification-contents.html). */
const ABOUT_OUR_MAIL = new Set(["ContentRejected", "AttachmentRejected"]);
/** Transient subtypes that are the recipient's mailbox's, for now. */
const FOR_NOW = new Set(["MailboxFull", "MessageTooLarge"]);

/**
 * A provider's bounce, as the provider means it. `Permanent` is its verdict that the address will
 * not take mail again (SES: "you should remove the recipient's email address from your mailing
 * list"; its subtypes `General`, `NoEmail`, `Suppressed`, `OnAccountSuppressionList`): it
 * suppresses, whatever code it carries. `Transient` is never made permanent by its codes or words:
 * it is a `soft_bounce`, or a `sender_refusal` when it is about our mail (`ContentRejected`,
 * `AttachmentRejected`) or its codes or words say it was about us. `Undetermined` (or a type the
 * provider did not name) is read as a returned mail would be, by its codes and words.
 */
export function classifyProviderBounce(bounce: ProviderBounce): Classified {
  const read = classifyFailure(bounce.status, bounce.diagnostic);
  if (bounce.type === "Permanent") return { kind: "bounce", code: read.code, said: "Permanent" };
  if (bounce.type === "Transient") {
    if (bounce.subType && ABOUT_OUR_MAIL.has(bounce.subType))
      return { kind: "sender_refusal", code: read.code, said: bounce.subType };
    if (bounce.subType && FOR_NOW.has(bounce.subType))
      return { kind: "soft_bounce", code: read.code, said: bounce.subType };
    return read.kind === "bounce" ? { ...read, kind: "soft_bounce" } : read;
  }
  return read;
}
