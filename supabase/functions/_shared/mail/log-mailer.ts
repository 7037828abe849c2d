/**
 * A transport for a function without `SMTP_URL`: the mail is not sent, its preview line (the
 * confirmation link) is logged, so a development project works before a mail provider is set
 * up. Never for production: on hosted Supabase a missing `SMTP_URL` stops the function instead
 * (`parseFunctionEnvironment`).
 */
import { maskEmail } from "../logger.ts";
import type { Logger } from "../logger.ts";
import type { Mailer } from "./mailer.ts";

export function createLogMailer(log: Logger): Mailer {
  return {
    description: "log (SMTP_URL is not set: mail is not sent)",
    async send(message) {
      log.warn(
        `mail to ${maskEmail(message.to)} not sent (no SMTP_URL)${message.preview ? `; ${message.preview}` : ""}`,
      );
    },
  };
}
