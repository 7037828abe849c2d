/**
 * The shape of every file in `content/`. One description drives two things:
 * the GraphQL types Gatsby builds (so queries never infer a shape from whatever the YAML holds)
 * and a check of each file as it is read, which names the file and the field an editor got wrong.
 */
import { markdownProblems } from "../effects/markdown";
import {
  MAIL_COPY_FIELDS,
  MAIL_PLACEHOLDERS,
  placeholderProblems,
} from "../../supabase/functions/_shared/contract/mail-template";

export type FieldSpec =
  | "text"
  | "url"
  /** An IANA time zone name, e.g. "America/New_York". */
  | "timeZone"
  /** Markdown without raw HTML, links only to web or mail addresses and the site's own pages. */
  | "markdown"
  | { oneOf: readonly string[] }
  /** A text that may hold these `{placeholders}` and no other (a mail's words). */
  | { placeholders: readonly string[] }
  | readonly ["text", ListKey?]
  | ObjectSpec
  | readonly [ObjectSpec, ListKey?];

/**
 * A list the page renders with React keys: its texts (`unique`) or one field of its items
 * (`uniqueBy`) must not repeat. React only warns about a repeated key and may then drop or mix up
 * items, so the check fails the build instead.
 */
export type ListKey = { readonly unique: true } | { readonly uniqueBy: string };

export interface ObjectSpec {
  readonly [field: string]: FieldSpec;
}

export interface ContentType {
  /** File name in `content/`, without `.yaml`. */
  readonly file: string;
  /** GraphQL type; the page queries it as the lower-camel-case root field. */
  readonly typeName: string;
  readonly fields: ObjectSpec;
}

const storySection = { title: "text", paragraphs: ["text", { unique: true }] } as const;

const brandFields = {
  name: "text",
  siteUrl: "url",
  // The day an Effect is published is the day in this zone (see content/effects/).
  timeZone: "timeZone",
  description: "text",
  socialImage: "text",
  socialImageAlt: "text",
  author: { name: "text", credit: "text" },
  hero: {
    eyebrow: "text",
    title: "text",
    tagline: "text",
    intro: "text",
    joinLabel: "text",
    imageAlt: "text",
  },
} as const satisfies ObjectSpec;

const landingFields = {
  episodeOne: { title: "text", text: "text", buttonLabel: "text" },
  closing: {
    title: "text",
    text: "text",
    videoLabel: "text",
    podcastLabel: "text",
    photoLabel: "text",
    signUpLabel: "text",
    watchLabel: "text",
    listenLabel: "text",
  },
  footer: { note: "text", archiveLabel: "text" },
} as const satisfies ObjectSpec;

const storyFields = { why: storySection, biography: storySection } as const satisfies ObjectSpec;

const channelsFields = {
  title: "text",
  intro: "text",
  items: [
    {
      kind: { oneOf: ["podcast", "video", "photo", "shortVideo"] },
      name: "text",
      platform: "text",
      description: "text",
      url: "url",
      linkLabel: "text",
    },
    // A channel is also found by its kind (channelUrl): a second one of a kind would never be linked.
    { uniqueBy: "kind" },
  ],
} as const satisfies ObjectSpec;

const coreValuesFields = {
  title: "text",
  intro: "text",
  items: [{ title: "text", description: "text" }, { uniqueBy: "title" }],
} as const satisfies ObjectSpec;

const linkScreen = {
  title: "text",
  text: "text",
  buttonLabel: "text",
  pendingLabel: "text",
  successTitle: "text",
  successText: "text",
} as const;

/** A mail's texts (contract/mail-template.ts lists them), each with the placeholders that mail knows. */
const mailTexts = <Mail extends keyof typeof MAIL_COPY_FIELDS>(mail: Mail) =>
  Object.fromEntries(
    MAIL_COPY_FIELDS[mail].map((field) => [
      field,
      { placeholders: MAIL_PLACEHOLDERS[mail] as readonly string[] },
    ]),
  ) as { readonly [Field in (typeof MAIL_COPY_FIELDS)[Mail][number]]: { placeholders: readonly string[] } };

/** The confirmation's and the reminder's words (one shape: one GraphQL type); `{expiry}` is when the link stops working. */
const confirmationMailTexts = mailTexts("confirmation");

/** Every word of the mails besides an Effect's own (content/effect-pages.yaml `mail`). */
const mailsFields = {
  confirmation: confirmationMailTexts,
  reminder: confirmationMailTexts,
  welcome: mailTexts("welcome"),
  footer: mailTexts("footer"),
  ownerReport: mailTexts("ownerReport"),
} as const satisfies ObjectSpec;

const newsletterFields = {
  dialog: { title: "text", text: "text", emailLabel: "text", placeholder: "text", closeLabel: "text" },
  inline: { title: "text", text: "text", emailLabel: "text", placeholder: "text", archiveLabel: "text" },
  // The line under both forms, with its link to the privacy page (content/privacy.yaml).
  smallPrint: { text: "text", privacyLabel: "text" },
  submitLabel: "text",
  pendingLabel: "text",
  notices: {
    failureTitle: "text",
    failureText: "text",
    dialogSuccessTitle: "text",
    inlineSuccessTitle: "text",
    successText: "text",
  },
  confirm: linkScreen,
  unsubscribe: linkScreen,
  links: {
    cancelLabel: "text",
    expiredTitle: "text",
    expiredText: "text",
    signUpAgainLabel: "text",
    invalidTitle: "text",
    invalidText: "text",
  },
  // The pages a signup without JavaScript lands on; the welcome and failure pages show the notices' texts.
  formResults: {
    homeLabel: "text",
    retryLabel: "text",
    rateLimitedTitle: "text",
    rateLimitedText: "text",
    invalidTitle: "text",
    invalidText: "text",
  },
  // The confirmation, reminder and welcome mails' words, and the owner's weekly report's.
  mails: mailsFields,
} as const satisfies ObjectSpec;

const notFoundFields = {
  code: "text",
  title: "text",
  text: "text",
  homeLabel: "text",
  pageTitle: "text",
} as const satisfies ObjectSpec;

/** The privacy page (/privacy/): what is kept, why, for how long, how to leave. */
const privacyFields = {
  pageTitle: "text",
  title: "text",
  intro: "text",
  sections: [{ title: "text", paragraphs: ["text", { unique: true }] }, { uniqueBy: "title" }],
  backLabel: "text",
} as const satisfies ObjectSpec;

/** The Effect of the Day around the Effects themselves: the archive, an Effect's page, feeds, mail. */
const effectPagesFields = {
  name: "text",
  description: "text",
  archive: {
    title: "text",
    intro: "text",
    emptyText: "text",
    pageLabel: "text",
    newerLabel: "text",
    olderLabel: "text",
    search: {
      label: "text",
      placeholder: "text",
      buttonLabel: "text",
      searchingText: "text",
      oneResultText: { placeholders: ["query"] },
      resultsText: { placeholders: ["count", "query"] },
      noResultsText: { placeholders: ["query"] },
      moreLabel: "text",
      errorText: "text",
    },
  },
  effect: {
    eyebrow: "text",
    previousLabel: "text",
    nextLabel: "text",
    archiveLabel: "text",
    // What the page's social card shows, for people who cannot see it (src/effects/card-layout.ts).
    cardAlt: { placeholders: ["title", "date", "brand"] },
    share: {
      label: "text",
      sharedTitle: "text",
      sharedText: "text",
      copiedTitle: "text",
      copiedText: "text",
      failedTitle: "text",
      failedText: "text",
    },
  },
  mail: {
    readOnlineLabel: "text",
    // The line under the button on how to pass the Effect on; {link} is the page's link.
    shareText: { placeholders: ["link"] },
    shareLinkLabel: "text",
    reasonText: "text",
    unsubscribeLabel: "text",
    // The link to the privacy page (content/privacy.yaml) beside "Unsubscribe".
    privacyLabel: "text",
  },
} as const satisfies ObjectSpec;

/**
 * One Effect of the Day, `content/effects/YYYY-MM-DD.yaml`: the file name is its date. Not a GraphQL
 * type: the build reads these files itself (src/effects/effects.ts) to publish only the days that
 * have come.
 */
export const effectFields = {
  title: "text",
  summary: "text",
  body: "markdown",
} as const satisfies ObjectSpec;

/** The GraphQL names of the shapes several fields share; any other nested type is named by its path. */
const SHARED_TYPE_NAMES = new Map<ObjectSpec, string>([
  [storySection, "StorySection"],
  [linkScreen, "LinkScreen"],
  [confirmationMailTexts, "ConfirmationMailTexts"],
]);

export const contentTypes: readonly ContentType[] = [
  { file: "brand", typeName: "Brand", fields: brandFields },
  { file: "landing", typeName: "Landing", fields: landingFields },
  { file: "story", typeName: "Story", fields: storyFields },
  { file: "channels", typeName: "Channels", fields: channelsFields },
  { file: "core-values", typeName: "CoreValues", fields: coreValuesFields },
  { file: "newsletter", typeName: "Newsletter", fields: newsletterFields },
  { file: "not-found", typeName: "NotFound", fields: notFoundFields },
  { file: "privacy", typeName: "Privacy", fields: privacyFields },
  { file: "effect-pages", typeName: "EffectPages", fields: effectPagesFields },
];

/** The TypeScript shape of a file's data, derived from its description. */
export type ContentOf<F> = F extends "text" | "url" | "timeZone" | "markdown" | { placeholders: unknown }
  ? string
  : F extends { oneOf: readonly (infer Choice)[] }
    ? Choice
    : F extends readonly [infer Item, ...unknown[]]
      ? ContentOf<Item>[]
      : { readonly [K in keyof F]: ContentOf<F[K]> };

export type Brand = ContentOf<typeof brandFields>;
export type Landing = ContentOf<typeof landingFields>;
export type Story = ContentOf<typeof storyFields>;
export type StorySection = Story["why"];
export type Channels = ContentOf<typeof channelsFields>;
export type Channel = Channels["items"][number];
export type ChannelKind = Channel["kind"];
export type CoreValues = ContentOf<typeof coreValuesFields>;
export type Newsletter = ContentOf<typeof newsletterFields>;
export type NotFound = ContentOf<typeof notFoundFields>;
export type Privacy = ContentOf<typeof privacyFields>;
export type EffectPages = ContentOf<typeof effectPagesFields>;
export type EffectContent = ContentOf<typeof effectFields>;

/** A nested set of fields (not a text of any kind, a choice or a list). */
export const isObjectSpec = (spec: FieldSpec): spec is ObjectSpec =>
  typeof spec === "object" && !Array.isArray(spec) && !("oneOf" in spec) && !("placeholders" in spec);

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** GraphQL SDL for every content type and its nested objects, all fields non-null. */
export function toTypeDefs(types: readonly ContentType[] = contentTypes): string {
  const defs: string[] = [];
  // A sub-description shared by several fields (the story sections, the link screens) becomes one
  // GraphQL type, named for what it is, so one fragment serves every field of that shape.
  const named = new Map<ObjectSpec, string>();
  const fieldType = (spec: FieldSpec, nestedName: string): string => {
    if (Array.isArray(spec)) {
      const [item] = spec as readonly [FieldSpec];
      return `[${fieldType(item, nestedName)}]!`;
    }
    if (isObjectSpec(spec)) {
      const existing = named.get(spec);
      if (existing) return `${existing}!`;
      const name = SHARED_TYPE_NAMES.get(spec) ?? nestedName;
      named.set(spec, name);
      defineObject(name, spec, "");
      return `${name}!`;
    }
    return "String!";
  };
  const defineObject = (name: string, spec: ObjectSpec, extra: string) => {
    const lines = Object.entries(spec).map(
      ([field, fieldSpec]) => `  ${field}: ${fieldType(fieldSpec, name + pascal(field))}`,
    );
    defs.push(`type ${name}${extra} {\n${lines.join("\n")}\n}`);
  };
  for (const type of types) {
    defineObject(type.typeName, type.fields, " implements Node @dontInfer");
  }
  return defs.join("\n\n");
}

/**
 * Problems with one file's data, each naming the field as an editor sees it
 * (`hero.tagline`, `items[2].url`). Empty when the file is fine.
 */
export function checkContent(spec: ObjectSpec, data: unknown, path = ""): string[] {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return [`${path || "the file"} must be a set of named fields`];
  }
  const record = data as Record<string, unknown>;
  const problems: string[] = [];
  for (const [field, fieldSpec] of Object.entries(spec)) {
    problems.push(...checkValue(fieldSpec, record[field], path ? `${path}.${field}` : field));
  }
  for (const field of Object.keys(record)) {
    if (!(field in spec)) {
      const where = path ? `${path}.${field}` : field;
      problems.push(`unknown field "${where}" (expected one of: ${Object.keys(spec).join(", ")})`);
    }
  }
  return problems;
}

function checkValue(spec: FieldSpec, value: unknown, path: string): string[] {
  if (value === undefined || value === null) return [`missing field "${path}"`];
  if (Array.isArray(spec)) {
    if (!Array.isArray(value) || value.length === 0) {
      return [`"${path}" must be a list with at least one item`];
    }
    const [item, key] = spec as readonly [FieldSpec, ListKey?];
    return [
      ...value.flatMap((entry, index) => checkValue(item, entry, `${path}[${index}]`)),
      ...(key ? repeatedKeys(key, value, path) : []),
    ];
  }
  if (isObjectSpec(spec)) return checkContent(spec, value, path);
  if (typeof value !== "string" || value.trim() === "") {
    return [`"${path}" must be a non-empty text`];
  }
  if (spec === "url" && !/^https:\/\/[^\s]+$/.test(value)) {
    return [`"${path}" must be a full https:// address (got "${value}")`];
  }
  if (spec === "timeZone" && !isTimeZone(value)) {
    return [
      `"${path}" must be a time zone name such as "America/New_York" or "Europe/Paris" (got "${value}")`,
    ];
  }
  if (spec === "markdown") return markdownProblems(value).map((problem) => `"${path}": ${problem}`);
  if (typeof spec === "object" && "placeholders" in spec)
    return placeholderProblems(value, spec.placeholders as readonly string[], path);
  if (typeof spec === "object" && "oneOf" in spec && !spec.oneOf.includes(value)) {
    return [`"${path}" must be one of ${spec.oneOf.join(", ")} (got "${value}")`];
  }
  return [];
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Each item whose key repeats an earlier item's, named by both positions. */
function repeatedKeys(key: ListKey, items: readonly unknown[], path: string): string[] {
  const field = "uniqueBy" in key ? key.uniqueBy : undefined;
  const firstAt = new Map<string, string>();
  const problems: string[] = [];
  items.forEach((entry, index) => {
    const value: unknown = field === undefined ? entry : (entry as Record<string, unknown> | null)?.[field];
    // A missing or empty key is reported by the item's own check.
    if (typeof value !== "string" || value.trim() === "") return;
    const at = field === undefined ? `${path}[${index}]` : `${path}[${index}].${field}`;
    const first = firstAt.get(value);
    if (first === undefined) {
      firstAt.set(value, at);
    } else {
      const detail = field === undefined ? "the same text twice" : `both are "${value}"`;
      problems.push(`"${at}" must be different from "${first}" (${detail})`);
    }
  });
  return problems;
}

export const contentTypeForFile = (file: string): ContentType | undefined =>
  contentTypes.find((type) => type.file === file);

/** The GraphQL type gatsby-transformer-yaml gives a file; unknown files keep its default. */
export const typeNameForFile = (file: string): string =>
  contentTypeForFile(file)?.typeName ??
  `${file.replace(/(^|[-_])(\w)/g, (_match, _sep, letter: string) => letter.toUpperCase())}Yaml`;
