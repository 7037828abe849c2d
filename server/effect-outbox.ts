/**
 * The Effect's transport without `SMTP_URL`: each mail becomes an `.eml` file in
 * `$DATA_DIR/outbox/`, as the confirmation mail does (supabase/functions/_shared/mail/transports/outbox.ts), so a send can be
 * tried end to end without a mail server.
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import nodemailer from "nodemailer";
import { nodemailerFields } from "../supabase/functions/_shared/mail/smtp.ts";
import type { MailMessage } from "../supabase/functions/_shared/mail/mailer.ts";
import type { EffectTransport } from "../supabase/functions/_shared/effect-sending/send-run.ts";

const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });

/** The message as nodemailer would send it over SMTP (MIME, both parts, the list headers). */
export async function composeMime(message: MailMessage): Promise<Buffer> {
  const info = await composer.sendMail(nodemailerFields(message));
  return info.message as Buffer;
}

/** Written under a temporary name and renamed, so a reader never sees half a file. */
export function writeWhole(file: string, content: Buffer | string): void {
  writeFileSync(`${file}.tmp`, content);
  renameSync(`${file}.tmp`, file);
}

export function createEffectOutbox(outboxDir: string): EffectTransport {
  mkdirSync(outboxDir, { recursive: true });
  return {
    description: `outbox ${outboxDir}`,
    async send(message, deliveryId) {
      const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-effect-${deliveryId}.eml`;
      writeWhole(path.join(outboxDir, name), await composeMime(message));
    },
  };
}
