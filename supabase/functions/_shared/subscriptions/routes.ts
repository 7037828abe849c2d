/**
 * The subscriptions feature's functions: `send-confirmation`, `confirm-subscription` and
 * `unsubscribe`, each mounted at its name with one route, `POST /` in JSON from the site (CORS),
 * within the per-minute limit of its client and the body limit, answered by its handler (a typed
 * `Accepted`, or a thrown `Refusal`); any other method is a 405. `send-confirmation` also takes
 * the signup card's plain HTML form post, answered with a `303 See Other` to a page of the site.
 * After every answer, due mail is delivered through the host's `waitUntil`.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import type { FeatureRoutes, FunctionsEnv, FunctionsHost } from "../app.ts";
import type { Config } from "../config.ts";
import { FORM_MEDIA_TYPE, fromStorage, mediaType, Refusal } from "../http/answers.ts";
import type { FormDestination, FunctionSpec } from "../http/function-spec.ts";
import { methodNotAllowed, readBodyWithin } from "../http/read-body.ts";
import type { Logger } from "../logger.ts";
import { confirmSubscription } from "./confirm-subscription.ts";
import type { RateLimit } from "./rate-limit.ts";
import { sendConfirmation } from "./send-confirmation.ts";
import type { SubscriberStore } from "./subscriber-store.ts";
import { unsubscribe } from "./unsubscribe.ts";

export interface SubscriptionRoutesDeps {
  subscriptions: SubscriberStore;
  rateLimit: RateLimit;
  config: Config;
  log: Logger;
  now: () => Date;
  /** Delivers due mail; never rejects. */
  deliverDue(): Promise<void>;
}

/** Lets the answer leave before delivery starts competing with it for the database. */
const afterThisTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export function subscriptionRoutes(deps: SubscriptionRoutesDeps, host: FunctionsHost): FeatureRoutes {
  const { config, log, now } = deps;

  /** The per-minute limit, counted before the body is read: signups, and (generous: a household's clicks, a provider's one-click posts) link calls. */
  const admit =
    (spec: FunctionSpec, perMinute: number): MiddlewareHandler<FunctionsEnv> =>
    async (c, next) => {
      const decision = await fromStorage(() =>
        deps.rateLimit.hit(spec.name, host.clientAddress(c), perMinute, now()),
      );
      if (!decision.allowed)
        throw new Refusal(429, "rate_limited", "Too many requests. Please try again in a minute.", {
          headers: { "Retry-After": String(decision.retryAfterSeconds) },
        });
      await next();
    };
  const deliverAfterAnswer: MiddlewareHandler<FunctionsEnv> = async (_c, next) => {
    await next();
    host.waitUntil?.(afterThisTurn().then(() => deps.deliverDue()));
  };
  const handle =
    (spec: FunctionSpec): MiddlewareHandler<FunctionsEnv> =>
    async (c) => {
      const accepted = await spec.handle({
        request: c.req.raw,
        body: new Uint8Array(await c.req.arrayBuffer()),
        clientAddress: host.clientAddress(c),
        form: mediaType(c.req.raw) === FORM_MEDIA_TYPE && spec.formPost !== undefined,
      });
      c.set("outcome", accepted.outcome);
      return c.json(accepted.body, 200);
    };
  const body = readBodyWithin(config.maxBodyBytes, log);
  /** A function's one route: `POST /` through `admitted`, the body and its handler; a 405 otherwise. */
  const postOnly = (
    spec: FunctionSpec,
    ...admitted: [MiddlewareHandler<FunctionsEnv>, ...MiddlewareHandler<FunctionsEnv>[]]
  ) =>
    new Hono<FunctionsEnv>().post("/", ...admitted, body, handle(spec)).all("/", () => {
      throw methodNotAllowed(spec.name, "POST, OPTIONS");
    });

  const signup = sendConfirmation({ subscriptions: deps.subscriptions, config, now });
  // The two link functions: a household's clicks and a provider's one-click posts, a looser limit.
  const confirm = confirmSubscription({ subscriptions: deps.subscriptions, now });
  const leave = unsubscribe({ subscriptions: deps.subscriptions, now });
  return {
    "send-confirmation": postOnly(
      signup,
      formPost(signup, config),
      deliverAfterAnswer,
      admit(signup, config.rateLimitPerMinute),
    ),
    "confirm-subscription": postOnly(
      confirm,
      deliverAfterAnswer,
      admit(confirm, config.linkRateLimitPerMinute),
    ),
    unsubscribe: postOnly(leave, deliverAfterAnswer, admit(leave, config.linkRateLimitPerMinute)),
  };
}

/**
 * A plain HTML form post (the signup card without JavaScript), for a function with `formPost`: only
 * from an allowed origin (Hono's `csrf`; else 403 before anything is counted or read, as a text a
 * person can read), handled exactly as the JSON call, and its answer (refusals included) turned
 * into a `303 See Other` to a page on the origin the form was posted from.
 */
export function formPost(spec: FunctionSpec, config: Config): MiddlewareHandler<FunctionsEnv> {
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
