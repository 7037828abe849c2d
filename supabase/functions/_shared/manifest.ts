/**
 * Every function the backend deploys, declared once: its feature, its routes, the gateway's JWT
 * check, and the settings it cannot start without on hosted Supabase. `supabase/config.toml` and
 * the functions' table in docs/architecture.md are written from it (`npm run config:docs`); the
 * Deno entries (`supabase/functions/<name>/index.ts`), the check each entry makes at start
 * (`backend.ts`) and `npm run doctor`'s look at the deployed functions follow from it; tests hold
 * each of them to this list.
 *
 * `verify_jwt` is off everywhere, each for a reason the function then covers itself: the site
 * calls with the public anon key only and a plain HTML form sends none; mail apps post one-click
 * unsubscribes and mail providers their events without any; pg_cron's call carries the function's
 * own key; the editor's sign-in is a popup's plain navigation.
 */
import type { VariableName } from "./contract/variables.ts";

/** A feature's `<feature>/routes.ts` gives each of its functions a Hono sub-app, mounted at `/<name>` (`app.ts`). */
export const FEATURES = ["subscriptions", "mail-events", "cms-auth", "effect-sending"] as const;
export type FeatureName = (typeof FEATURES)[number];

export interface FunctionEntry {
  name: string;
  feature: FeatureName;
  /** The routes under `/functions/v1`, as Hono writes them. */
  routes: readonly string[];
  verifyJwt: false;
  /** Settings hosted Supabase must have (it sets SUPABASE_URL and SUPABASE_DB_URL itself). */
  requires: readonly VariableName[];
  /** It sends mail, so hosted Supabase needs a mail transport for it and its feature's others. */
  sendsMail: boolean;
  /** One line for the docs. */
  purpose: string;
}

export const FUNCTIONS = [
  {
    name: "send-confirmation",
    feature: "subscriptions",
    routes: ["POST /send-confirmation"],
    verifyJwt: false,
    requires: ["SITE_URL"],
    sendsMail: true,
    purpose:
      "a signup (JSON from the site, or the card's plain form post): the address and its confirmation mail",
  },
  {
    name: "confirm-subscription",
    feature: "subscriptions",
    routes: ["POST /confirm-subscription"],
    verifyJwt: false,
    requires: ["SITE_URL"],
    sendsMail: true,
    purpose: "the click on the confirmation link's page; queues the welcome mail",
  },
  {
    name: "unsubscribe",
    feature: "subscriptions",
    routes: ["POST /unsubscribe"],
    verifyJwt: false,
    requires: ["SITE_URL"],
    sendsMail: true,
    purpose: "an unsubscribe, from the link's page or a mail app's RFC 8058 one-click post",
  },
  {
    name: "send-effect",
    feature: "effect-sending",
    routes: ["POST /send-effect"],
    verifyJwt: false,
    requires: ["SITE_URL", "SEND_EFFECT_KEY"],
    sendsMail: true,
    purpose:
      "called every 10 s by pg_cron: the day's Effect in batches, the mail queue's clock, the owner's weekly report",
  },
  {
    name: "mail-events",
    feature: "mail-events",
    routes: ["POST /mail-events/:source"],
    verifyJwt: false,
    requires: [],
    sendsMail: false,
    purpose:
      "bounces and complaints from the mail provider (Resend, SES through SNS, returned mail), each source off until its secret is set",
  },
  {
    name: "cms-auth",
    feature: "cms-auth",
    routes: ["GET /cms-auth", "GET /cms-auth/callback", "POST /cms-auth/token"],
    verifyJwt: false,
    requires: ["SITE_URL", "CMS_GITHUB_CLIENT_ID", "CMS_GITHUB_CLIENT_SECRET"],
    sendsMail: false,
    purpose: "the content editor's GitHub sign-in for /admin/",
  },
] as const satisfies readonly FunctionEntry[];

export type FunctionName = (typeof FUNCTIONS)[number]["name"];

export function functionEntry(name: string): FunctionEntry {
  const entry = FUNCTIONS.find((candidate) => candidate.name === name);
  if (!entry)
    throw new Error(`There is no function named "${name}" in supabase/functions/_shared/manifest.ts`);
  return entry;
}

/** What hosted Supabase must have set for these features: each function's settings, and a mail transport if one sends mail. */
export function hostedRequirements(features: readonly FeatureName[]): {
  variables: VariableName[];
  mail: boolean;
} {
  const entries: readonly FunctionEntry[] = FUNCTIONS.filter((entry) => features.includes(entry.feature));
  return {
    variables: [...new Set(entries.flatMap((entry) => entry.requires))],
    mail: entries.some((entry) => entry.sendsMail),
  };
}
