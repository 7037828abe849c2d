/**
 * What the Effect sender's tests and the send benchmark start from: a published mail.json of
 * their own (not the site build's), and confirmed subscribers written straight to the database.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readMailCopy, readSenderIdentity } from "../../src/content/read-brand.ts";
import { mailEdition } from "../../src/effects/mail.ts";
import type { MailCopy } from "../../supabase/functions/_shared/contract/mail-template.ts";
import type { MailEdition } from "../../supabase/functions/_shared/effect-sending/edition.ts";
import type { SqlQueryable } from "../../supabase/functions/_shared/db/sql-executor.ts";
import { sha256Hex } from "../../supabase/functions/_shared/subscriptions/tokens.ts";

/**
 * A small edition of `date`, its Effect titled "Small & steady <DATE>"; its welcome variant is the
 * build's own (src/effects/mail.ts) with `mails` (default: content/newsletter.yaml's).
 */
export function fixtureEdition(
  date: string,
  siteUrl = "https://www.thepurposeeffect.example",
  mails: MailCopy = readMailCopy(path.resolve(__dirname, "../../content")),
): MailEdition {
  const url = `${siteUrl}/effects/${date}/`;
  const { welcome } = mailEdition(
    {
      date,
      file: `${date}.yaml`,
      title: `Small & steady <${date}>`,
      summary: "Show up.",
      body: "Show up for the people who count on you.",
    },
    {
      siteUrl,
      brandName: "The Purpose Effect",
      texts: {
        name: "Effect of the Day",
        mail: {
          readOnlineLabel: "Read it online",
          shareText: "Know someone who needs this today? Forward this e-mail, or share {link}.",
          shareLinkLabel: "the Effect's page",
          reasonText: "You subscribed.",
          unsubscribeLabel: "Unsubscribe",
          privacyLabel: "Your data and privacy",
        },
      },
      welcome: mails.welcome,
    },
  );
  return {
    welcome,
    date,
    subject: `Effect of the Day: Small & steady <${date}>`,
    html: `<!DOCTYPE html>\n<html lang="en"><body><h1>Small &amp; steady</h1><p>Show up for the people who count on you.</p><p><a href="${url}">Read it online</a></p><p><a href="{{unsubscribe_url}}">Unsubscribe</a></p></body></html>\n`,
    text: `SMALL & STEADY\n\nShow up for the people who count on you.\n\nRead it online: ${url}\n\n--\nUnsubscribe: {{unsubscribe_url}}\n`,
    url,
  };
}

/**
 * `fixtureEdition` grown to a built Effect's size (about 5 KiB of HTML and half a KiB of text,
 * as content/effects' mail.json files are), in paragraphs like the Effects' own: what the send
 * benchmarks mail, so a mail costs what a real one does.
 */
export function realSizedEdition(date: string, siteUrl: string, kib = 5.5): MailEdition {
  const edition = fixtureEdition(date, siteUrl);
  const paragraph =
    "<p>Show up for the people who count on you, today and tomorrow, in the small things first.</p>\n";
  const missing = kib * 1024 - edition.html.length - edition.text.length;
  const fill = paragraph.repeat(Math.max(0, Math.ceil(missing / paragraph.length)));
  return { ...edition, html: edition.html.replace("</body>", `${fill}</body>`) };
}

/** Writes `publicDir/effects/DATE/mail.json` as the site build publishes it. */
export function publishEdition(publicDir: string, edition: MailEdition): string {
  const dir = path.join(publicDir, "effects", edition.date);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "mail.json");
  writeFileSync(file, JSON.stringify(edition));
  return file;
}

/** Writes `publicDir/newsletter/latest.json`, naming the edition the welcome mail carries. */
export function publishLatest(publicDir: string, date: string): void {
  mkdirSync(path.join(publicDir, "newsletter"), { recursive: true });
  writeFileSync(path.join(publicDir, "newsletter", "latest.json"), JSON.stringify({ date }));
}

export const readerAddress = (index: number) => `reader${index}@example.com`;

/**
 * `count` confirmed subscribers, reader1@example.com onwards. The confirmation mail's
 * unsubscribe token of reader N is `unsubscribe-token-N` (its hash is stored), for tests that
 * unsubscribe someone in the middle of a send.
 */
export async function seedConfirmed(db: SqlQueryable, count: number, from = 1): Promise<void> {
  await db.query(
    `insert into subscribers (email, status, confirmed_at, consent_at, unsubscribe_token_hash)
     select 'reader' || i || '@example.com', 'confirmed', now(), now(), encode(sha256(('unsubscribe-token-' || i)::bytea), 'hex')
     from generate_series($1::int, $2::int) as i`,
    [from, from + count - 1],
  );
}

export const readerUnsubscribeHash = (index: number) => sha256Hex(`unsubscribe-token-${index}`);

/** The names and time zone the repository's content gives the sender (what the local stack reads). */
export const contentIdentity = () => readSenderIdentity(path.resolve(__dirname, "../../content"));
