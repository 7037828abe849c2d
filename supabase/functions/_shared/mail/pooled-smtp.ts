/**
 * The Effect's SMTP transport: one nodemailer pool (`pool: true`), so a list of thousands reuses
 * a few connections instead of opening one per mail. The pace is set by the sender's one global
 * rate, not by nodemailer's per-connection limits.
 */
import nodemailer from "nodemailer";
import { parseConnectionUrl } from "nodemailer/lib/shared/index.js";
import type { EffectTransport } from "../effect-sending/send-run.ts";
import { nodemailerFields, SMTP_TIMEOUTS } from "./smtp.ts";

export function createPooledSmtpTransport(smtpUrl: string, maxConnections: number): EffectTransport {
  const url = new URL(smtpUrl);
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") {
    throw new Error(`SMTP_URL must start with smtp:// or smtps:// (got "${url.protocol}//...")`);
  }
  // As in smtp.ts: given a `url`, nodemailer would drop every other option.
  const transport = nodemailer.createTransport({
    ...SMTP_TIMEOUTS,
    pool: true,
    maxConnections,
    maxMessages: Infinity,
    ...parseConnectionUrl(smtpUrl),
  });
  const port = url.port || (url.protocol === "smtps:" ? "465" : "587");
  return {
    description: `SMTP ${url.hostname}:${port}${url.protocol === "smtps:" ? " (TLS)" : ""}, ${maxConnections} connections`,
    async send(message): Promise<void> {
      await transport.sendMail(nodemailerFields(message));
    },
    async close(): Promise<void> {
      transport.close();
    },
  };
}
