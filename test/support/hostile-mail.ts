/**
 * Mail anyone can send the bounce address, shaped to cost a reader the most: each under the dsn
 * route's 256 KB, each aimed at one way a hand-written MIME reader goes quadratic or throws. Used
 * by the tests (returned-mail.ts's caps, the routes' answers) and by `npm run bench:hostile-mail`.
 */

const CRLF = "\r\n";

/** A delivery status notification around `statusPart` (the `message/delivery-status` body). */
function report(
  statusPart: string,
  options: { outer?: string; type?: string; boundary?: string } = {},
): string {
  const boundary = options.boundary ?? "B";
  return [
    "From: MAILER-DAEMON@relay.example.net",
    "To: bounces@mail.thepurposeeffect.example",
    "Subject: Undelivered Mail Returned to Sender",
    ...(options.outer ? [options.outer] : []),
    `Content-Type: multipart/report; report-type=delivery-status; boundary="${boundary}"`,
    "",
    "--B",
    `Content-Type: ${options.type ?? "message/delivery-status"}`,
    "",
    statusPart,
    "--B--",
    "",
  ].join(CRLF);
}

/** Lines of `line` up to about `bytes`. */
const lines = (line: string, bytes: number) =>
  Array.from({ length: Math.floor(bytes / (line.length + 2)) }, () => line).join(CRLF);

/** The hostile shapes, by name: each about `bytes` long (128 KB by default). */
export function hostileMails(bytes = 128 * 1024): Record<string, string> {
  const recipient = "Final-Recipient: rfc822; ann@example.com\r\nAction: failed\r\nStatus: 5.0.0\r\n";
  return {
    // ~26,000 header lines in the report part: one field name over and over.
    "header lines": report(
      `Reporting-MTA: dns; relay.example.net${CRLF}${CRLF}${recipient}${lines("X-A: b", bytes)}`,
    ),
    // As many recipient blocks as fit.
    "recipient blocks": report(lines(`${recipient}`, bytes)),
    // One long folded field.
    "folded field": report(`${recipient}Diagnostic-Code: smtp; 550${CRLF}${lines(" unknown user", bytes)}`),
    // Lines of `--x` a boundary guesser would try, the declared boundary never used.
    "boundary candidates": report(
      Array.from({ length: Math.floor(bytes / 12) }, (_, index) => `--c${index.toString(36)}`).join(CRLF),
      { boundary: "never-used" },
    ),
    // A multipart in a multipart in a multipart...
    nesting: Array.from(
      { length: Math.floor(bytes / 80) },
      (_, index) => `Content-Type: multipart/mixed; boundary="n${index}"${CRLF}${CRLF}--n${index}`,
    ).join(CRLF),
    // Thousands of empty parts.
    parts: report(lines("--B", bytes)),
    // A header line without a colon, as long as the mail.
    "long line": `X-Start: a${CRLF}${"a".repeat(bytes)}${CRLF}${CRLF}body`,
    // Characters a backtracking pattern for comments, quotes and addresses would retry from.
    "open parentheses": report(`Final-Recipient: rfc822; ${"(".repeat(bytes)}${CRLF}Action: failed${CRLF}`),
    "escaped quotes": `To: ${'"\\'.repeat(bytes / 2)}${CRLF}Content-Type: text/plain${CRLF}${CRLF}x`,
    "local part run": `To: ${"a".repeat(bytes)}${CRLF}Delivered-To: ${"b.".repeat(bytes / 4)}${CRLF}${CRLF}x`,
    "parameters run": `Content-Type: multipart/report; ${";".repeat(bytes / 2)}boundary=x${CRLF}${CRLF}x`,
    "encoded words": report(`${recipient}Diagnostic-Code: ${"=?utf-8?B?".repeat(bytes / 10)}`),
    // A code point past Unicode in RFC 6533's address escapes, and in an ARF report.
    "code point past Unicode": report(
      "Final-Recipient: utf-8; a\\x{110000}@b.example\r\nOriginal-Recipient: utf-8; \\x{D800}@b.example\r\nAction: failed\r\nStatus: 5.1.1\r\n",
      { type: "message/global-delivery-status" },
    ),
    "Original-Rcpt-To past Unicode": [
      "From: fbl@isp.example",
      'Content-Type: multipart/report; report-type=feedback-report; boundary="F"',
      "",
      "--F",
      "Content-Type: message/feedback-report",
      "",
      "Feedback-Type: abuse",
      "Original-Rcpt-To: utf-8; a\\x{110000}@b.example",
      "--F--",
      "",
    ].join(CRLF),
  };
}
