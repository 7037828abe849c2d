/**
 * A message as raw MIME, built by nodemailer exactly as its SMTP transport would send it (both
 * parts, every list header), for the transports that take the whole message (SES's `Content.Raw`)
 * and the local outbox's files. nodemailer's stream transport runs under Deno's npm support too.
 */
import nodemailer from "nodemailer";
import type { MailMessage } from "./mailer.ts";
import { nodemailerFields } from "./smtp.ts";

/** CRLF on the wire (RFC 5322); the outbox writes files with plain newlines. */
const composers = {
  windows: nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" }),
  unix: nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" }),
};

export async function composeMime(
  message: MailMessage,
  newline: "windows" | "unix" = "windows",
): Promise<Uint8Array> {
  const info = await composers[newline].sendMail(nodemailerFields(message));
  return info.message as Uint8Array;
}
