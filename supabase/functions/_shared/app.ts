/**
 * The functions as one Hono app, the same on every host: what every function shares (no caching,
 * CORS for the site's origins, a refusal into the contract's JSON error, a failing database into
 * 503 with Retry-After, anything else into 500, an unknown path into 404), and each function's own
 * sub-app, from its feature's `routes.ts` (`backend.ts` chooses which features), mounted with
 * `app.route()` at the function's name: `/send-effect`, `/mail-events` (its routes `/:source`), as
 * Supabase serves each function at its own name. The local stack mounts this app at
 * `/functions/v1` (`server/app.ts`); each Supabase entry serves it with `Deno.serve(app.fetch)`
 * (Supabase sends `/send-confirmation/...` to that function only).
 */
import { type Context, Hono } from "hono";
import { cors } from "hono/cors";
import { errorBody, Refusal, StorageUnavailable } from "./http/answers.ts";
import type { Logger } from "./logger.ts";
import type { FunctionName } from "./manifest.ts";

/** What the host provides: who the client is, and what keeps work alive after the answer. */
export interface FunctionsHost {
  clientAddress(c: Context): string;
  /** `EdgeRuntime.waitUntil` on Supabase, a tracked promise on Node. */
  waitUntil?(work: Promise<unknown>): void;
}

/** `outcome`: a short word for the host's request log. `refusal`: the answer, when it was one. */
export type FunctionsEnv = { Variables: { outcome: string; refusal: Refusal } };

/** One function's routes, relative to where it is mounted, `/<name>`: `/` (and `/:source`, `/callback`, ...). */
export type FunctionApp = Hono<FunctionsEnv>;

/** A feature's functions, each by its name in the manifest. */
export type FeatureRoutes = { readonly [name in FunctionName]?: FunctionApp };

const RETRY_STORAGE_SECONDS = "5";
/** The headers supabase-js sends with `functions.invoke` (one entry: Hono would join a list without spaces). */
const ALLOWED_HEADERS = ["authorization, apikey, x-client-info, content-type"];

export function createFunctionsApp(
  features: readonly FeatureRoutes[],
  options: { log: Logger; allowedOrigins: readonly string[] },
): Hono<FunctionsEnv> {
  const { log } = options;
  const app = new Hono<FunctionsEnv>({ strict: false });

  // No answer of a function may be cached, whoever made it.
  app.use(async (c, next) => {
    await next();
    c.res.headers.set("Cache-Control", "no-store");
  });
  app.use(
    cors({
      origin: (origin) => (options.allowedOrigins.includes(origin) ? origin : null),
      allowMethods: ["POST", "OPTIONS"],
      allowHeaders: ALLOWED_HEADERS,
      maxAge: 600,
    }),
  );

  app.onError((error, c) => {
    const refusal = asRefusal(error, c.req.path, log);
    c.set("refusal", refusal);
    c.set("outcome", refusal.outcome);
    return c.json(errorBody(refusal.code, refusal.message), refusal.status, refusal.details.headers);
  });

  for (const feature of features)
    for (const [name, routes] of Object.entries(feature)) app.route(`/${name}`, routes);

  app.all("*", (c) => {
    const name = c.req.path.split("/").filter(Boolean).pop() ?? "";
    throw new Refusal(404, "not_found", `There is no function named "${name}".`);
  });
  return app;
}

/** A refusal for any error: itself, 503 for a database that failed, 500 (logged) for a bug. */
function asRefusal(error: unknown, path: string, log: Logger): Refusal {
  if (error instanceof Refusal) return error;
  if (error instanceof StorageUnavailable) {
    log.error(`${path}: storage failed: ${error.message}`);
    return new Refusal(503, "storage_unavailable", "The service is unavailable. Please try again later.", {
      headers: { "Retry-After": RETRY_STORAGE_SECONDS },
    });
  }
  log.error(`${path}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return new Refusal(500, "internal_error", "Something went wrong. Please try again later.");
}
