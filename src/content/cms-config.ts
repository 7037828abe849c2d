/**
 * Decap CMS's configuration (`/admin/config.yml`, written by build/cms-admin.ts), derived from the
 * same descriptions that drive the build's check (schema.ts), so the editor's form and the check
 * cannot drift apart: each file of `content/` a collection, the Effects of the Day a folder of one
 * file a day; every field labelled and required (but an Effect's day, which its file's name holds),
 * addresses and placeholders checked as the build checks them, lists ordered and never empty. It
 * saves to GitHub, signed in through cms-auth (or `DECAP_AUTH_URL`'s provider), a change a draft
 * until published; on an editor's machine `npm run cms`'s local backend saves into content/.
 * https://decapcms.org/docs/configuration-options/
 */
import { readTextVariable, readVariable } from "../../supabase/functions/_shared/contract/variables";
import { CMS_SIGN_IN_PATH } from "../../supabase/functions/_shared/contract/cms-sign-in";
import { writeYaml } from "./yaml";
import {
  contentTypes,
  type ContentType,
  effectFields,
  type FieldSpec,
  isObjectSpec,
  type ObjectSpec,
} from "./schema";

/** What the generated configuration says about one field, as Decap reads it. */
export interface CmsField {
  name: string;
  label: string;
  widget: string;
  hint?: string;
  required?: boolean;
  pattern?: [string, string];
  options?: string[];
  min?: number;
  collapsed?: boolean;
  summary?: string;
  field?: CmsField;
  fields?: CmsField[];
  [option: string]: unknown;
}

export const EFFECTS_FOLDER = "content/effects";

/** Where `npm run cms` starts decap-server, and where the CMS looks for it on localhost. */
export const LOCAL_BACKEND_URL = "http://localhost:8081/api/v1";

const COLLECTION_LABELS: Record<string, string> = {
  brand: "Brand and hero",
  landing: "Landing page",
  story: "Story and biography",
  channels: "Channels",
  "core-values": "Core values",
  newsletter: "Newsletter signup",
  "not-found": "Page not found (404)",
  "effect-pages": "Effect of the Day pages",
};

/** Labels the field names do not spell well by themselves. */
const LABELS: Record<string, string> = {
  siteUrl: "Site address",
  url: "Address",
  socialImage: "Social preview image (path under static/)",
  socialImageAlt: "Social preview image description",
  imageAlt: "Hero image description",
  linkLabel: "Link text",
  timeZone: "Time zone",
};

/** Fields an editor writes sentences in get a multi-line box. */
const LONG_TEXT = /^(description|intro|text|note|paragraph)$|Text$/;

const NOT_EMPTY: [string, string] = ["\\S", "Must not be empty"];
const HTTPS_URL: [string, string] = ["^https://\\S+$", "A full address starting with https://"];

/** A Decap pattern that allows these `{placeholders}` and no other, as the build's check does. */
export const placeholderPattern = (names: readonly string[]): [string, string] => [
  `^(?=[\\s\\S]*\\S)(?:[^{}]|\\{(?:${names.join("|")})\\})*$`,
  `Not empty; placeholders allowed: ${names.map((name) => `{${name}}`).join(", ")}`,
];

/** `socialImageAlt` → `Social image alt`. */
export const humanLabel = (name: string): string =>
  LABELS[name] ??
  name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .replace(/^./, (first) => first.toUpperCase());

/** The Decap field for one described field; the same rules the build's check applies. */
export function cmsField(name: string, spec: FieldSpec): CmsField {
  const base = { name, label: humanLabel(name), required: true };
  if (Array.isArray(spec)) {
    const [item, key] = spec as readonly [FieldSpec, { uniqueBy?: string; unique?: true }?];
    const list: CmsField = {
      ...base,
      widget: "list",
      label_singular: humanLabel(name).replace(/s$/, "").toLowerCase(),
      min: 1,
      collapsed: true,
      hint: "Shown in this order: drag an item by its handle to move it.",
    };
    if (key?.unique) list.hint += " Each one must be different.";
    if (key?.uniqueBy) list.hint += ` No two may have the same ${humanLabel(key.uniqueBy).toLowerCase()}.`;
    if (isObjectSpec(item)) {
      const fields = cmsFields(item);
      const first = fields[0].name;
      return { ...list, summary: `{{fields.${key?.uniqueBy ?? first}}}`, fields };
    }
    const itemName = name === "paragraphs" ? "paragraph" : "item";
    // A collapsed item shows its text, not just its label.
    return { ...list, summary: `{{fields.${itemName}}}`, field: cmsField(itemName, item) };
  }
  if (isObjectSpec(spec)) {
    return { ...base, widget: "object", collapsed: false, fields: cmsFields(spec) };
  }
  if (typeof spec === "object" && "placeholders" in spec) {
    const names = spec.placeholders as readonly string[];
    return {
      ...base,
      widget: LONG_TEXT.test(name) ? "text" : "string",
      hint: `You may use ${names.map((known) => `{${known}}`).join(", ")}: each is replaced by its value.`,
      pattern: placeholderPattern(names),
    };
  }
  if (typeof spec !== "string") {
    return { ...base, widget: "select", options: [...(spec as { oneOf: readonly string[] }).oneOf] };
  }
  // A plain string so description kinds added later (issue 7's "markdown", "timeZone") map here too.
  const kind: string = spec;
  switch (kind) {
    case "url":
      return { ...base, widget: "string", pattern: HTTPS_URL };
    case "markdown":
      return {
        ...base,
        widget: "markdown",
        // The build refuses raw HTML and images in an Effect's body: offer only what it accepts.
        buttons: [
          "bold",
          "italic",
          "link",
          "heading-two",
          "heading-three",
          "quote",
          "bulleted-list",
          "numbered-list",
        ],
        editor_components: [],
        modes: ["rich_text", "raw"],
        sanitize_preview: true,
      };
    case "timeZone":
      return {
        ...base,
        widget: "string",
        hint: "An IANA time zone, e.g. America/New_York",
        pattern: NOT_EMPTY,
      };
    default:
      return { ...base, widget: LONG_TEXT.test(name) ? "text" : "string", pattern: NOT_EMPTY };
  }
}

export const cmsFields = (spec: ObjectSpec): CmsField[] =>
  Object.entries(spec).map(([name, fieldSpec]) => cmsField(name, fieldSpec));

/** The files whose form has a preview pane, drawn as on the landing page (src/cms-preview/previews.tsx). */
export const PREVIEWED_FILES: ReadonlySet<string> = new Set(["core-values", "story"]);

/** One collection per content file, holding that one file. */
export const fileCollection = (type: ContentType) => ({
  name: type.file,
  label: COLLECTION_LABELS[type.file] ?? humanLabel(type.file),
  ...(PREVIEWED_FILES.has(type.file) ? {} : { editor: { preview: false } }),
  files: [
    {
      name: type.file,
      label: COLLECTION_LABELS[type.file] ?? humanLabel(type.file),
      file: `content/${type.file}.yaml`,
      fields: cmsFields(type.fields),
    },
  ],
});

/**
 * The Effects of the Day: one file per day, `content/effects/YYYY-MM-DD.yaml`, holding only the
 * Effect's fields. The day is asked for by the `effect-day` widget and dropped from the file by
 * the `effect-yaml` format (both in static/admin/editor-setup.js): the file name carries it.
 */
export const effectsCollection = () => {
  const [title, summary, body] = cmsFields(effectFields);
  return {
    name: "effects",
    label: "Effects of the Day",
    label_singular: "Effect of the Day",
    description: "One Effect per day. It is published on its day and mailed to subscribers that morning.",
    folder: EFFECTS_FOLDER,
    create: true,
    extension: "yaml",
    format: "effect-yaml",
    slug: "{{fields.date}}",
    identifier_field: "title",
    summary: "{{filename}}: {{title}}",
    sortable_fields: [],
    // The preview pane shows the page and the mail (src/cms-preview/previews.tsx); a draft's
    // preview deploy opens at the Effect's page.
    preview_path: "effects/{{slug}}/",
    fields: [
      {
        name: "date",
        label: "Day",
        widget: "effect-day",
        // A saved Effect's day is its file name, not a value in the file: the widget itself
        // requires a day only for a new Effect.
        required: false,
        hint: "The day it is published and mailed. It names the file and cannot be changed later.",
      },
      title,
      {
        ...summary,
        widget: "string",
        hint: "One sentence: the mail's preview and the feeds' description.",
        pattern: ["^\\s*\\S(?!.*[.!?]\\s+\\S).*$", "One sentence"],
      },
      body,
    ],
  };
};

export interface CmsBackendOptions {
  /** `owner/name` on GitHub: `DECAP_GITHUB_REPO`, or the repository a GitHub Actions build runs in. */
  repo?: string;
  branch?: string;
  /** Another OAuth provider that signs editors in to GitHub (`DECAP_AUTH_URL`), instead of cms-auth. */
  authUrl?: string;
  /** `GATSBY_SUPABASE_URL`: where the cms-auth function is; unset, the page's own origin (the local stack). The sign-in pages call it. */
  functionsBase?: string;
}

/** The site's page that forwards Decap's sign-in popup to the cms-auth function (contract/cms-sign-in.ts). */
export const CMS_AUTH_ENDPOINT = CMS_SIGN_IN_PATH.replace(/^\//, "");

export function backendFromEnv(env: Record<string, string | undefined>): CmsBackendOptions {
  return {
    repo: readVariable(env, "DECAP_GITHUB_REPO") ?? readVariable(env, "GITHUB_REPOSITORY"),
    branch: readTextVariable(env, "DECAP_BRANCH"),
    authUrl: readVariable(env, "DECAP_AUTH_URL"),
    functionsBase: readVariable(env, "GATSBY_SUPABASE_URL"),
  };
}

/**
 * Where Decap opens its sign-in popup: `${base_url}/${auth_endpoint}`. Decap accepts the token
 * only from a window whose origin is exactly `base_url`, and a function on Supabase can answer no
 * page, so the popup starts and ends on the site itself: `base_url` is left out (and
 * static/admin/editor-setup.js sets it to the page's origin), and `auth_endpoint` is the site's
 * page that forwards to cms-auth. Another provider (`DECAP_AUTH_URL`) keeps its own.
 */
export function signInEndpoint(backend: CmsBackendOptions): { base_url?: string; auth_endpoint?: string } {
  if (backend.authUrl) return { base_url: backend.authUrl.replace(/\/+$/, "") };
  return { auth_endpoint: CMS_AUTH_ENDPOINT };
}

export function cmsConfig(backend: CmsBackendOptions = {}, types: readonly ContentType[] = contentTypes) {
  return {
    // On the deployed site editors sign in with GitHub through cms-auth, and a change is a draft
    // (a pull request on a `cms/...` branch) until it is published onto `branch`. On an editor's
    // machine `npm run cms` starts the local backend instead (scripts/cms-backend.ts), which saves
    // into content/ directly (Decap then uses its simple mode: Publish saves the file).
    backend: {
      name: "github",
      ...(backend.repo ? { repo: backend.repo } : {}),
      branch: backend.branch ?? "main",
      ...signInEndpoint(backend),
      // The commit status deploy-preview.yml sets on a draft's pull request: "View Preview".
      preview_context: "deploy/preview",
      commit_messages: {
        create: "content: create {{collection}} “{{slug}}”",
        update: "content: update {{collection}} “{{slug}}”",
        delete: "content: delete {{collection}} “{{slug}}”",
        uploadMedia: "content: upload “{{path}}”",
        deleteMedia: "content: delete “{{path}}”",
      },
    },
    publish_mode: "editorial_workflow",
    local_backend: { url: LOCAL_BACKEND_URL },
    site_url: "/",
    display_url: "/",
    logo_url: "/icons/icon-96x96.png",
    media_folder: "static/uploads",
    public_folder: "/uploads",
    collections: [effectsCollection(), ...types.map(fileCollection)],
  };
}

export const cmsConfigYaml = (backend: CmsBackendOptions = {}): string =>
  `# Written by the build from src/content/schema.ts (src/content/cms-config.ts); do not edit.\n${writeYaml(
    cmsConfig(backend),
  )}`;
