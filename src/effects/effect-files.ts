/**
 * Writes the files an Effect has besides its page: the two feeds, each published Effect's mail
 * edition, the sender's identity (newsletter/sender.json) and the newest edition's date
 * (newsletter/latest.json), into the built site. A mail edition left by an earlier build (one made for a later
 * day, or before an Effect was deleted) is removed, so the sender never finds an Effect the site
 * does not publish.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  LATEST_EDITION_PATH,
  type LatestEdition,
  type SenderIdentity,
  SENDER_IDENTITY_PATH,
} from "../../supabase/functions/_shared/contract/published";
import type { EffectPages } from "../content/schema";
import type { MailCopy } from "../../supabase/functions/_shared/contract/mail-template";
import type { Effect } from "./effects";
import { jsonFeed, rssFeed } from "./feeds";
import { mailEdition } from "./mail";
import { effectPath, JSON_FEED_PATH, mailEditionPath, RSS_PATH } from "./paths";
import { removeUnpublishedDayFiles } from "./stale-days";

export interface EffectFilesSource {
  /** Newest first. */
  published: readonly Effect[];
  brand: { name: string; siteUrl: string; timeZone: string; author: { name: string } };
  texts: Pick<EffectPages, "name" | "description" | "mail">;
  /** content/newsletter.yaml `mails`: the welcome variant of each edition, and sender.json's copy. */
  mails: MailCopy;
  /**
   * The real day in the brand's time zone. A build for a day to come (`EFFECTS_TODAY`, a preview)
   * publishes its pages, but no mail edition after this day: the sender must never find one.
   */
  today?: string;
}

export async function writeEffectFiles(
  publicDir: string,
  { published, brand, texts, mails, today }: EffectFilesSource,
) {
  const fileOf = (urlPath: string) => path.join(publicDir, ...urlPath.split("/"));
  const write = async (urlPath: string, body: string) => {
    const file = fileOf(urlPath);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, body);
  };
  const mailable = published.filter((effect) => today === undefined || effect.date <= today);
  await removeUnpublishedDayFiles(
    path.dirname(fileOf(effectPath("x"))),
    new Set(mailable.map((e) => e.date)),
    "mail.json",
  );
  const feedSource = {
    published,
    siteUrl: brand.siteUrl,
    timeZone: brand.timeZone,
    brandName: brand.name,
    authorName: brand.author.name,
    name: texts.name,
    description: texts.description,
  };
  await write(RSS_PATH, rssFeed(feedSource));
  await write(JSON_FEED_PATH, jsonFeed(feedSource));
  // What the sender needs from the content: the newsletter's and the brand's names, the time zone,
  // the mails' words.
  const identity: SenderIdentity = {
    brandName: brand.name,
    newsletterName: texts.name,
    timeZone: brand.timeZone,
    mails,
  };
  await write(SENDER_IDENTITY_PATH, `${JSON.stringify(identity, null, 2)}\n`);
  for (const effect of mailable) {
    const edition = mailEdition(effect, {
      siteUrl: brand.siteUrl,
      brandName: brand.name,
      texts,
      welcome: mails.welcome,
    });
    await write(mailEditionPath(effect.date), `${JSON.stringify(edition, null, 2)}\n`);
  }
  // The welcome mail's Effect: the newest with a mail edition (`published` is newest first).
  const latest = mailable[0];
  if (latest) {
    const pointer: LatestEdition = { date: latest.date };
    await write(LATEST_EDITION_PATH, `${JSON.stringify(pointer)}\n`);
  } else await rm(fileOf(LATEST_EDITION_PATH), { force: true });
}
