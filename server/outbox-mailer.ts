/**
 * The local stack's mail transport when no `SMTP_URL` is set: each mail becomes an `.eml` file in
 * `$DATA_DIR/outbox/` (any mail program opens it) and its confirmation link is printed, so a
 * signup can be finished without a mail server.
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import nodemailer from "nodemailer";
import { nodemailerMessage } from "../supabase/functions/_shared/drivers/smtp-mailer.ts";
import { maskEmail } from "../supabase/functions/_shared/email-address.ts";
import type { Logger } from "../supabase/functions/_shared/logger.ts";
import type { Mailer } from "../supabase/functions/_shared/mail-sender.ts";

export function createOutboxMailer(outboxDir: string, log: Logger): Mailer {
  mkdirSync(outboxDir, { recursive: true });
  // nodemailer builds the same MIME message it would send over SMTP.
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    description: `outbox ${outboxDir}`,
    async send(message, context) {
      const info = await composer.sendMail(nodemailerMessage(message));
      const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${context.jobId}.eml`;
      const file = path.join(outboxDir, name);
      // Written under a temporary name and renamed, so a reader never sees half a mail.
      writeFileSync(`${file}.tmp`, info.message as Buffer);
      renameSync(`${file}.tmp`, file);
      log.info(`mail to ${maskEmail(message.to)} written to ${file}; confirm: ${context.links.confirm}`);
    },
  };
}
