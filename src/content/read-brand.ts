// `brand.yaml` before GraphQL, and the sender's identity (names, time zone, mails' words) from the content.
import { readFileSync } from "fs";
import path from "path";
import type { SenderIdentity } from "../../supabase/functions/_shared/contract/published";
import type { MailCopy } from "../../supabase/functions/_shared/contract/mail-template";
import { checkContent, contentTypeForFile } from "./schema";
import { readYaml as parseYaml } from "./yaml";

export interface BrandBasics {
  name: string;
  siteUrl: string;
  timeZone: string;
  description: string;
  author: { name: string };
  hero: { tagline: string };
}

function readYaml(contentDir: string, name: string): unknown {
  try {
    return parseYaml(readFileSync(path.join(contentDir, name), "utf8"), `content/${name}`);
  } catch (error) {
    throw new Error(
      `content/${name} could not be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** Reads and checks content/brand.yaml for build configuration that runs before GraphQL. */
export function readBrand(contentDir = path.resolve("content")): BrandBasics {
  const data = readYaml(contentDir, "brand.yaml");
  const spec = contentTypeForFile("brand");
  const problems = spec ? checkContent(spec.fields, data) : [];
  if (problems.length > 0) {
    throw new Error(`content/brand.yaml: ${problems.join("; ")}`);
  }
  return data as BrandBasics;
}

/**
 * What the sender needs from the content, read where the local stack and `npm run effect` run: the
 * same names, time zone and mails' words the build publishes as /newsletter/sender.json for the
 * functions.
 */
export function readSenderIdentity(contentDir = path.resolve("content")): SenderIdentity {
  const brand = readBrand(contentDir);
  const pages = readYaml(contentDir, "effect-pages.yaml");
  const newsletterName = (pages as { name?: unknown } | null)?.name;
  if (typeof newsletterName !== "string" || newsletterName.trim() === "")
    throw new Error("content/effect-pages.yaml: name is missing");
  return { brandName: brand.name, newsletterName, timeZone: brand.timeZone, mails: readMailCopy(contentDir) };
}

/** content/newsletter.yaml `mails`, checked as the build checks it. */
export function readMailCopy(contentDir = path.resolve("content")): MailCopy {
  const data = readYaml(contentDir, "newsletter.yaml");
  const spec = contentTypeForFile("newsletter");
  const problems = spec ? checkContent(spec.fields, data) : [];
  if (problems.length > 0) throw new Error(`content/newsletter.yaml: ${problems.join("; ")}`);
  return (data as { mails: MailCopy }).mails;
}
