/**
 * A stand-in for every row of `mail/transports.ts`, keyed by its variable, so a transport without
 * one does not compile: a real SMTP server on loopback for `SMTP_URL`, and for the HTTP APIs the
 * stand-ins that keep Resend's and SES's documented rules. `server/__tests__/transports.test.ts`
 * sends through each.
 */
import type { ParsedMail } from "mailparser";
import type { TransportVariable } from "../../supabase/functions/_shared/mail/transports.ts";
import { startResendStandIn } from "./resend-stand-in.ts";
import { startSesStandIn } from "./ses-stand-in.ts";
import { createSmtpCapture } from "./smtp-capture.ts";

export interface TransportStandIn {
  /** The variables that point `createMailer` at it (its own and those it needs). */
  env: Record<string, string>;
  /** How many mails went to `address`. */
  received(address: string): number;
  /** A header of the first mail to `address`, as the receiving side read it. */
  header(address: string, name: string): string | undefined;
  close(): Promise<void>;
}

/** A header of a received mail as sent, unfolded. */
function headerOf(mail: ParsedMail | undefined, name: string): string | undefined {
  const line = mail?.headerLines.find((header) => header.key === name.toLowerCase())?.line;
  return line
    ?.slice(line.indexOf(":") + 1)
    .replace(/\r?\n[ \t]+/g, " ")
    .trim();
}

export const TRANSPORT_STAND_INS: Record<TransportVariable, () => Promise<TransportStandIn>> = {
  async SMTP_URL() {
    const smtp = await createSmtpCapture();
    const to = (address: string) => smtp.mails.filter((mail) => mail.envelope.to.includes(address));
    return {
      env: { SMTP_URL: smtp.url },
      received: (address) => to(address).length,
      header: (address, name) => headerOf(to(address)[0], name),
      close: () => smtp.stop(),
    };
  },
  async RESEND_API_KEY() {
    const resend = await startResendStandIn();
    return {
      env: { RESEND_API_KEY: resend.apiKey, RESEND_API_URL: resend.url },
      received: (address) => resend.received(address),
      header: (address, name) => resend.mails.find((mail) => mail.to.includes(address))?.headers[name],
      close: () => resend.close(),
    };
  },
  async SES_REGION() {
    const ses = await startSesStandIn();
    return {
      env: ses.env,
      received: (address) => ses.received(address),
      header: (address, name) => headerOf(ses.mails.find((mail) => mail.to.includes(address))?.parsed, name),
      close: () => ses.close(),
    };
  },
};
