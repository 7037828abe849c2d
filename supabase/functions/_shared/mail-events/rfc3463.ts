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
 * | X.0.x, no finer code      | undefined                                              |                                       |
 *
 * Which code: the recipient's `Status`. When it is missing, or says only X.0.0 (undefined), the
 * enhanced code in its `Diagnostic-Code` (`smtp; 550 5.1.1 <ann@...>: user unknown`) is taken
 * instead, the one right after the receiving server's reply code first (SES writes its own
 * `5.1.0 - Unknown address error` before the server's `550-'5.2.2 ... Mailbox Full'`). With no
 * enhanced code anywhere, the SMTP reply code alone (`550`) says only the class, not whose fault
 * it is, so it is a `soft_bounce`: a dead address keeps failing and is suppressed after three days
 * in a row, while a refusal that was about us does not cost the reader their place at once.
 */

/** What a failure means for the reader (`MailEventKind` for bounces). */
export type FailureKind = "bounce" | "soft_bounce" | "sender_refusal";

export interface Classified {
  kind: FailureKind;
  /** The code the kind was read from (`5.1.1`, or `550` with no enhanced code), `""` for none. */
  code: string;
}

const ENHANCED = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/;
/** `550 5.2.2`, `550-'5.2.2`: the receiving server's own reply, its enhanced code after it. */
const REPLY_THEN_ENHANCED = /\b([245])\d\d[ -]['"]?(\1\.\d{1,3}\.\d{1,3})\b/;

/** The kind for one enhanced code (`5.2.2`). */
export function kindOf(code: string): FailureKind {
  const [klass, subject, detail] = code.split(".").map(Number);
  if (subject === 7 || subject === 6 || (subject === 1 && (detail === 7 || detail === 8)))
    return "sender_refusal";
  if (klass === 5 && (subject === 1 || (subject === 2 && detail === 1))) return "bounce";
  return "soft_bounce";
}

/** A failed recipient's kind, from its Status and Diagnostic-Code fields. */
export function classifyFailure(status: string | undefined, diagnosticCode: string | undefined): Classified {
  const given = status ? ENHANCED.exec(status)?.[0] : undefined;
  const diagnostic = diagnosticCode
    ? (REPLY_THEN_ENHANCED.exec(diagnosticCode)?.[2] ?? ENHANCED.exec(diagnosticCode)?.[0])
    : undefined;
  const undefinedSubject = !given || /^\d\.0\.\d+$/.test(given);
  const code =
    undefinedSubject && diagnostic && diagnostic[0] === (given ?? diagnostic)[0] ? diagnostic : given;
  if (code) return { kind: kindOf(code), code };
  const reply = /(?:^|;|\s)([45]\d\d)(?:[\s-]|$)/.exec(diagnosticCode ?? "")?.[1];
  return { kind: "soft_bounce", code: reply ?? "" };
}

/**
 * A provider's bounce (SES's and Resend's `Permanent`, `Transient`, `Undetermined`) read with the
 * codes it carries: a code says whose fault it is, as in a returned mail, so a "Permanent" 5.2.2
 * is counted as temporary and a 5.7.x is the sender's; without a code the provider's word stands.
 * A transient one is never made permanent by its code.
 */
export function classifyProviderBounce(
  permanent: boolean,
  status: string | undefined,
  diagnostic: string | undefined,
): FailureKind {
  const { kind, code } = classifyFailure(status, diagnostic);
  if (!code.includes(".")) return permanent ? "bounce" : "soft_bounce";
  if (kind === "sender_refusal" || !permanent) return kind === "bounce" ? "soft_bounce" : kind;
  return kind;
}
