/**
 * The functions as one Hono app, the same on every host: the local stack mounts it at
 * `/functions/v1` (`server/app.ts`, with `app.route()`), and each Supabase entry serves it with
 * `Deno.serve(app.fetch)` (Supabase sends `/send-confirmation/...` to that function only).
 *
 * Hono's middleware does the HTTP work: CORS for the site's origins (`cors`), the Origin check of a
 * plain HTML form post (`csrf`), the body within its size (`bodyLimit`). Then the per-minute limit,
 * and the handler, which returns a typed `Accepted` or throws a `Refusal`. `onError` turns a
 * refusal into the contract's JSON error, a failing database into 503 with Retry-After and
 * anything else into 500. A form post's answer, whatever it is, becomes a `303 See Other` to a
 * page of the site, chosen from the typed answer (`FormPostSpec.destination`).
 *
 * After each answer of the three newsletter functions, due mail is delivered through the host's
 * `waitUntil`. `mail-events/<source>` takes the mail provider's bounces and complaints
 * (`mail-events/receive.ts`): signed by the provider, so no CORS, form or per-minute limit.
 * `cms-auth` is the content editor's GitHub sign-in (`cms-auth/cms-auth.ts`), opened as a popup.
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import type { CmsAuth } from "./cms-auth/cms-auth.ts";
import type { Config } from "./config.ts";
import { errorBody, FORM_MEDIA_TYPE, mediaType, Refusal, StorageUnavailable } from "./http/answers.ts";
import type { FormDestination, FunctionSpec } from "./http/function-spec.ts";
import type { Logger } from "./logger.ts";
import { MAIL_EVENT_MAX_BYTES, type MailEvents } from "./mail-events/receive.ts";

/** What the host provides: who the client is, and what keeps work alive after the answer. */
export interface FunctionsHost {
  clientAddress(c: Context): string;
  /** `EdgeRuntime.waitUntil` on Supabase, a tracked promise on Node. */
  waitUntil?(work: Promise<unknown>): void;
}

/** The newsletter functions as the app needs them (`createNewsletter` builds this). */
export interface NewsletterFunctions {
  config: Config;
  log: Logger;
  functions: FunctionSpec[];
  /** The per-minute limit of one function for one client; throws a 429 `Refusal` over it. */
  admit(spec: FunctionSpec, clientAddress: string): Promise<void>;
  /** Delivers due mail; never rejects. */
  deliverDue(): Promise<void>;
  /** The `mail-events` function: bounces and complaints from the mail provider. */
  mailEvents?: MailEvents;
  /** The `cms-auth` function: the content editor's GitHub sign-in. */
  cmsAuth?: CmsAuth;
}

export interface FunctionsAppParts {
  newsletter?: NewsletterFunctions;
  /** `send-effect`, called by the scheduler with its key (no CORS, no form). */
  sendEffect?: (request: Request) => Promise<Response>;
  /** For the errors of `send-effect` and unknown paths when there is no newsletter. */
  log: Logger;
  allowedOrigins: readonly string[];
}

/** `outcome`: a short word for the host's request log. `refusal`: the answer, when it was one. */
export type FunctionsEnv = { Variables: { outcome: string; refusal: Refusal } };

const ALLOW = "POST, OPTIONS";
const RETRY_STORAGE_SECONDS = "5";
/** The headers supabase-js sends with `functions.invoke` (one entry: Hono would join a list without spaces). */
const ALLOWED_HEADERS = ["authorization, apikey, x-client-info, content-type"];

/** Lets the answer leave before delivery starts competing with it for the database. */
const afterThisTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export function createFunctionsApp(parts: FunctionsAppParts, host: FunctionsHost): Hono<FunctionsEnv> {
  const { log, newsletter } = parts;
  const app = new Hono<FunctionsEnv>({ strict: false });

  // No answer of a function may be cached, whoever made it.
  app.use(async (c, next) => {
    await next();
    c.res.headers.set("Cache-Control", "no-store");
  });
  app.use(
    cors({
      origin: (origin) => (parts.allowedOrigins.includes(origin) ? origin : null),
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

  if (newsletter) {
    for (const spec of newsletter.functions) {
      app.post(
        `/${spec.name}`,
        formPost(spec, newsletter.config),
        async (c, next) => {
          await next();
          host.waitUntil?.(afterThisTurn().then(() => newsletter.deliverDue()));
        },
        async (c, next) => {
          await newsletter.admit(spec, host.clientAddress(c));
          await next();
        },
        readBodyWithin(newsletter.config.maxBodyBytes, log),
        async (c) => {
          const accepted = await spec.handle({
            request: c.req.raw,
            body: new Uint8Array(await c.req.arrayBuffer()),
            clientAddress: host.clientAddress(c),
            form: mediaType(c.req.raw) === FORM_MEDIA_TYPE && spec.formPost !== undefined,
          });
          c.set("outcome", accepted.outcome);
          return c.json(accepted.body, 200);
        },
      );
    }
  }
  if (newsletter?.mailEvents) {
    // Posted by a mail provider's servers: no CORS, no per-minute limit (a provider sends bursts;
    // a request without a valid signature costs one HMAC and is refused before the database).
    const events = newsletter.mailEvents;
    app.post(
      "/mail-events/:source",
      async (c, next) => {
        events.source(c.req.param("source"));
        await next();
      },
      readBodyWithin(MAIL_EVENT_MAX_BYTES, log),
      async (c) => {
        const source = events.source(c.req.param("source"));
        const accepted = await events.receive(source, c.req.raw, new Uint8Array(await c.req.arrayBuffer()));
        c.set("outcome", accepted.outcome);
        return c.json(accepted.body, 200);
      },
    );
    app.all("/mail-events/:source", () => {
      throw new Refusal(405, "method_not_allowed", "mail-events accepts POST only.", {
        headers: { Allow: "POST" },
      });
    });
  }
  if (newsletter?.cmsAuth) {
    // Opened by the content editor as a popup, a plain navigation: no CORS, no body. Its pages
    // carry their own headers (cms-auth/cms-auth.ts).
    const auth = newsletter.cmsAuth;
    app.get("/cms-auth", (c) => auth.start(c.req.raw));
    app.get("/cms-auth/callback", (c) => auth.callback(c.req.raw));
    app.all("/cms-auth/*", () => {
      throw new Refusal(405, "method_not_allowed", "cms-auth accepts GET only.", {
        headers: { Allow: "GET" },
      });
    });
    app.all("/cms-auth", () => {
      throw new Refusal(405, "method_not_allowed", "cms-auth accepts GET only.", {
        headers: { Allow: "GET" },
      });
    });
  }
  if (parts.sendEffect) {
    const sendEffect = parts.sendEffect;
    app.post("/send-effect", (c) => sendEffect(c.req.raw));
  }

  const known = [
    ...(newsletter?.functions.map((spec) => spec.name) ?? []),
    ...(parts.sendEffect ? ["send-effect"] : []),
  ];
  for (const name of known) {
    app.all(`/${name}`, () => {
      throw new Refusal(405, "method_not_allowed", `${name} accepts POST only.`, {
        headers: { Allow: ALLOW },
      });
    });
  }
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

/**
 * The body within `maxBytes` (Hono's `bodyLimit`; a declared Content-Length is checked first, so an
 * oversized request costs at most `maxBytes` of memory): 413 over it, 400 if it cannot be read.
 */
function readBodyWithin(maxBytes: number, log: Logger): MiddlewareHandler {
  const tooLarge = () =>
    new Refusal(413, "payload_too_large", `The request body is larger than ${maxBytes} bytes.`);
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge();
    },
  });
  return async (c, next) => {
    try {
      // Only the body is read in here; the handler runs after, outside this catch.
      await limit(c, async () => {
        await c.req.arrayBuffer();
      });
    } catch (error) {
      if (error instanceof Refusal) throw error;
      // The client went away or sent a broken body: nothing was read, nothing is stored.
      log.warn(
        `${c.req.path}: the request body could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
      throw new Refusal(400, "unreadable_body", "The request body could not be read.");
    }
    await next();
  };
}

/**
 * A plain HTML form post (the signup card without JavaScript), for a function with `formPost`: only
 * from an allowed origin (Hono's `csrf`; else 403 before anything is counted or read, as a text a
 * person can read), handled exactly as the JSON call, and its answer (refusals included) turned
 * into a `303 See Other` to a page on the origin the form was posted from.
 */
function formPost(spec: FunctionSpec, config: Config): MiddlewareHandler<FunctionsEnv> {
  const checkOrigin = csrf({ origin: config.allowedOrigins, secFetchSite: () => false });
  return async (c, next) => {
    if (!spec.formPost || mediaType(c.req.raw) !== FORM_MEDIA_TYPE) return next();
    try {
      await checkOrigin(c, async () => undefined);
    } catch (error) {
      if (!(error instanceof HTTPException) || error.status !== 403) throw error;
      // A form needs no CORS to post, so this check is the only thing keeping other sites' forms
      // (or a script anywhere) from making this function mail people.
      c.set("outcome", "form:forbidden_origin");
      return c.text(
        `Forbidden: this sign-up form was not sent from ${config.siteUrl}, so nothing was stored and no mail was sent. Please sign up on ${config.siteUrl}.\n`,
        403,
        { "Content-Type": "text/plain; charset=utf-8" },
      );
    }
    await next();
    const refusal = c.get("refusal");
    c.set("outcome", `form:${c.get("outcome") ?? c.res.status}`);
    const destination = spec.formPost.destination(
      refusal ? { accepted: false, refusal } : { accepted: true },
    );
    const answered = c.res;
    await answered.body?.cancel();
    const location = formLocation(
      destination,
      c.req.header("origin") as string,
      c.req.raw,
      spec.formPost.anchor,
    );
    const redirect = new Response(null, { status: 303, headers: { Location: location } });
    for (const [name, value] of answered.headers)
      if (name.startsWith("access-control-") || name === "vary") redirect.headers.set(name, value);
    c.res = undefined;
    c.res = redirect;
  };
}

/** The Location for a form post's answer; `origin` is an allowed one, so the redirect stays on the site. */
function formLocation(
  destination: FormDestination,
  origin: string,
  request: Request,
  anchor: string,
): string {
  if (destination !== "back-to-form") return `${origin}${destination}`;
  let page = "/";
  try {
    const referer = new URL(request.headers.get("referer") ?? "");
    if (referer.origin === origin) page = referer.pathname;
  } catch {
    // No Referer, or not a URL: the site's front page has the card too.
  }
  return `${origin}${page}#${anchor}`;
}
