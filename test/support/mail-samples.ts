/**
 * The four mails a subscriber can get, rendered by the code that sends them, from the real
 * content/: the confirmation and the reminder (the core's `confirmationMail`), the Effect of the
 * Day and the welcome (the build's `mailEdition`, then the sender's `effectMail`), each with real
 * token lengths. For the client checks (Chromium, caniemail) and `npm run screenshots`.
 */
import path from "node:path";
import { readFileSync } from "node:fs";
import { readBrand, readMailCopy, readSenderIdentity } from "../../src/content/read-brand.ts";
import type { EffectPages } from "../../src/content/schema.ts";
import { readYaml } from "../../src/content/yaml.ts";
import { loadEffects } from "../../src/effects/effects.ts";
import { mailEdition } from "../../src/effects/mail.ts";
import { parseConfig } from "../../supabase/functions/_shared/config.ts";
import { effectMail } from "../../supabase/functions/_shared/effect-sending/edition.ts";
import { confirmationMail } from "../../supabase/functions/_shared/mail/confirmation-mail.ts";
import { mailSettings } from "../../supabase/functions/_shared/mail/list-headers.ts";
import type { MailMessage } from "../../supabase/functions/_shared/mail/mailer.ts";

export const MAIL_KINDS = ["confirmation", "reminder", "welcome", "effect"] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

const CONTENT = path.resolve(__dirname, "../../content");
/** A token as long as the real ones (32 random bytes, base64url). */
const token = (letter: string) => letter.repeat(43);

/** Each of the four mails as it leaves the sender. */
export function sampleMails(contentDir = CONTENT): Record<MailKind, MailMessage> {
  const brand = readBrand(contentDir);
  const settings = mailSettings(
    parseConfig({ SITE_URL: brand.siteUrl, FUNCTIONS_URL: "https://project-ref.supabase.co/functions/v1" }),
    readSenderIdentity(contentDir),
  );
  const texts = readYaml(
    readFileSync(path.join(contentDir, "effect-pages.yaml"), "utf8"),
    "content/effect-pages.yaml",
  ) as EffectPages;
  const { effects } = loadEffects(path.join(contentDir, "effects"));
  // The newest Effect in content/ (the longest-running sample of real copy).
  const [effect] = [...effects].sort((a, b) => b.date.localeCompare(a.date));
  const edition = mailEdition(effect, {
    siteUrl: brand.siteUrl,
    brandName: brand.name,
    texts,
    welcome: readMailCopy(contentDir).welcome,
  });
  const recipient = { to: "reader@example.com", unsubscribeToken: token("u") };
  const confirmation = (reminder: boolean) =>
    confirmationMail(settings, {
      to: recipient.to,
      confirmToken: token("c"),
      unsubscribeToken: token("u"),
      expiresAt: new Date("2026-11-25T19:00:00Z"),
      reminder,
    });
  return {
    confirmation: confirmation(false),
    reminder: confirmation(true),
    welcome: effectMail(settings, edition, recipient, "welcome"),
    effect: effectMail(settings, edition, recipient),
  };
}
