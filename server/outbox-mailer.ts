/**
 * The local stack's transport when no `SMTP_URL` is set: each mail (a confirmation, an Effect)
 * becomes an `.eml` file in `$DATA_DIR/outbox/` (any mail program opens it) and its preview line
 * (the confirmation link) is printed; a subscriber's mail starts with its envelope sender as
 * `Return-Path:`, as the recipient's server would write it. So a signup and a send can be tried end to end without a
 * mail server. Node only (it writes files): the Deno entries never import it.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  composeMime as composeWireMime,
  type Logger,
  type Mailer,
  type MailMessage,
  maskEmail,
} from "../supabase/functions/_shared/hosts.ts";

/** The message as nodemailer would send it over SMTP (MIME, both parts, the list headers), with plain newlines. */
export const composeMime = (message: MailMessage): Promise<Uint8Array> => composeWireMime(message, "unix");

/** Written under a temporary name and renamed, so a reader never sees half a file. */
export function writeWhole(file: string, content: Uint8Array | string): void {
  writeFileSync(`${file}.tmp`, content);
  renameSync(`${file}.tmp`, file);
}

/** `log`: a line per mail (the confirmation link); none for the Effect's thousands. */
export function createOutboxMailer(outboxDir: string, log?: Logger): Mailer {
  mkdirSync(outboxDir, { recursive: true });
  return {
    description: `outbox ${outboxDir}`,
    async send(message) {
      // Time first, so the folder lists mails in the order they were written.
      const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${message.reference ?? randomUUID().slice(0, 8)}.eml`;
      const file = path.join(outboxDir, name);
      const mime = await composeMime(message);
      // The envelope sender as the recipient's server records it: the first line of the mail it delivers.
      writeWhole(
        file,
        message.envelopeFrom
          ? Buffer.concat([Buffer.from(`Return-Path: <${message.envelopeFrom}>\n`), mime])
          : mime,
      );
      log?.info(
        `mail to ${maskEmail(message.to)} written to ${file}${message.preview ? `; ${message.preview}` : ""}`,
      );
    },
  };
}
