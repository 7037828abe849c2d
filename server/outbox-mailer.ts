/**
 * The local stack's transport when no `SMTP_URL` is set: each mail becomes an `.eml` file in
 * `$DATA_DIR/outbox/` (any mail program opens it) and its preview line (the confirmation link)
 * is printed, so a signup can be finished without a mail server. Node only (it writes files):
 * the Deno entries never import it.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import nodemailer from "nodemailer";
import { maskEmail } from "../supabase/functions/_shared/subscriptions/email-address.ts";
import type { Logger } from "../supabase/functions/_shared/logger.ts";
import type { Mailer } from "../supabase/functions/_shared/mail/mailer.ts";
import { nodemailerFields } from "../supabase/functions/_shared/mail/smtp.ts";

export function createOutboxMailer(outboxDir: string, log: Logger): Mailer {
  mkdirSync(outboxDir, { recursive: true });
  // nodemailer builds the same MIME message it would send over SMTP.
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    description: `outbox ${outboxDir}`,
    async send(message) {
      const info = await composer.sendMail(nodemailerFields(message));
      // Time first, so the folder lists mails in the order they were written.
      const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID().slice(0, 8)}.eml`;
      const file = path.join(outboxDir, name);
      // Written under a temporary name and renamed, so a reader never sees half a mail.
      writeFileSync(`${file}.tmp`, info.message as Buffer);
      renameSync(`${file}.tmp`, file);
      log.info(
        `mail to ${maskEmail(message.to)} written to ${file}${message.preview ? `; ${message.preview}` : ""}`,
      );
    },
  };
}
