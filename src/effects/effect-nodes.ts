/**
 * The `Effect` node: one checked Effect of the Day in the build's data layer, made from its file's
 * `EffectFile` node, with everything its page, the archive, the feeds and the mail query. The
 * body's HTML and the moment it is published depend on the brand (the site's address, its time
 * zone), so they are resolved against the `Brand` node when queried rather than stored: an Effect
 * cached from an earlier build never carries an old address.
 */
import { dayLabel, startOfDay } from "../../supabase/functions/_shared/contract/calendar-day";
import { effectFields } from "../content/schema";
import { checkEffectFiles, EFFECT_FILE_TYPE, type Effect, type EffectFileText } from "./effects";
import { markdownToHtml } from "./markdown";
import { effectPath } from "./paths";

export const EFFECT_TYPE = "Effect";

/** What an `Effect` node stores; `html` and `publishedAt` are resolved (`effectResolvers`). */
export interface EffectNodeFields extends Effect {
  /** Its page, `/effects/YYYY-MM-DD/`. */
  path: string;
  dateLabel: string;
}

/** Every field of an `Effect` node as its page, the archive, the feeds and the mail query it. */
export interface EffectFields extends EffectNodeFields {
  /** The body rendered by src/effects/markdown.ts, the same HTML the feeds carry. */
  html: string;
  /** The start of its day in the brand's time zone (ISO 8601). */
  publishedAt: string;
}

// Declared field by field (no inference): a page asking for a field nobody makes fails the build.
// `date` is a Date, which Gatsby can filter by range (a String cannot); queried without a format it
// is the file's YYYY-MM-DD as written.
export const effectTypeDefs = [
  `type ${EFFECT_FILE_TYPE} implements Node @dontInfer { name: String!, text: String }`,
  `type ${EFFECT_TYPE} implements Node @dontInfer {
  date: Date! @dateformat
  file: String!
  path: String!
  dateLabel: String!
${Object.keys(effectFields)
  .map((field) => `  ${field}: String!`)
  .join("\n")}
  html: String!
  publishedAt: String!
}`,
];

/**
 * The Effect one file of the Effects' folder holds, or the problems that stop the build, each
 * naming the file and the field (the checks `npm run check:content` runs on the folder).
 */
export function effectOfFile(
  file: EffectFileText,
  shownDir: string,
): { effect: EffectNodeFields | null; problems: string[] } {
  const {
    effects: [effect],
    problems,
  } = checkEffectFiles([file], shownDir);
  if (!effect) return { effect: null, problems };
  return { effect: { ...effect, path: effectPath(effect.date), dateLabel: dayLabel(effect.date) }, problems };
}

/** The brand's fields an Effect's resolved fields depend on. */
interface BrandFields {
  siteUrl: string;
  timeZone: string;
}

interface ResolverContext {
  nodeModel: { findOne(args: { type: string; query: object }): Promise<BrandFields | null> };
}

async function brandOf(context: ResolverContext): Promise<BrandFields> {
  const brand = await context.nodeModel.findOne({ type: "Brand", query: {} });
  // onPostBootstrap fails the build without content/brand.yaml before any page is queried.
  if (!brand) throw new Error("content/brand.yaml is missing: an Effect's page needs the site's address");
  return brand;
}

/** Gatsby's `createResolvers` argument for the fields of an Effect that depend on the brand. */
export const effectResolvers = {
  [EFFECT_TYPE]: {
    html: {
      resolve: async (source: Effect, _args: unknown, context: ResolverContext) =>
        markdownToHtml(source.body, (await brandOf(context)).siteUrl),
    },
    publishedAt: {
      resolve: async (source: Effect, _args: unknown, context: ResolverContext) =>
        startOfDay(source.date, (await brandOf(context)).timeZone).toISOString(),
    },
  },
};
