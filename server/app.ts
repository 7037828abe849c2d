/**
 * The local stack's routes, on Hono: the core's functions app (the same as on Supabase) mounted
 * at `/functions/v1`, and the built site for everything else, with
 * the site's security headers on every answer and one log line per request.
 */
import type { IncomingMessage } from "node:http";
import { getConnInfo } from "@hono/node-server/conninfo";
import { Hono } from "hono";
import {
  type Backend,
  forwardedClientAddress,
  type Logger,
  requestLog,
} from "../supabase/functions/_shared/hosts.ts";
import { isAdminPath, isSignInPage } from "../site-headers/security-headers.ts";
import { staticSite } from "./static-site.ts";

export interface AppOptions {
  backend: Backend;
  publicDir: string;
  /** The site's security headers (`site-headers/security-headers.ts`), sent with every answer... */
  securityHeaders: Record<string, string>;
  /** ...but under /admin/, the content editor's own (a looser policy Decap CMS needs, noindex). */
  adminSecurityHeaders: Record<string, string>;
  /** ...and the editor's sign-in pages theirs (they keep the popup's opener). */
  signInPageSecurityHeaders: Record<string, string>;
  log: Logger;
  /** Reverse proxies in front: the client is the entry the outermost appended to `X-Forwarded-For`. */
  trustedHops: number;
  /** Keeps delivery after an answer alive, and lets shutdown wait for it. */
  waitUntil: (work: Promise<unknown>) => void;
}

type Env = { Variables: { outcome: string } };

export function createApp(options: AppOptions): Hono<Env> {
  const { backend, log } = options;
  const app = new Hono<Env>();

  app.use(requestLog(log));
  app.use(async (c, next) => {
    await next();
    const headers = isSignInPage(c.req.path)
      ? options.signInPageSecurityHeaders
      : isAdminPath(c.req.path)
        ? options.adminSecurityHeaders
        : options.securityHeaders;
    for (const [name, value] of Object.entries(headers)) {
      if (!c.res.headers.has(name)) c.res.headers.set(name, value);
    }
  });

  // A request target that is not a URL (`GET //[`) names no page and no function: 400, and the
  // request log's one line. The adapter builds the Request anyway; the raw target tells.
  app.use(async (c, next) => {
    const target = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.url;
    if (target !== undefined && !URL.canParse(target, "http://localhost"))
      return c.text("Bad Request\n", 400);
    return next();
  });

  app.route(
    "/functions/v1",
    backend.functionsApp({
      clientAddress: (c) =>
        forwardedClientAddress(
          c.req.header("x-forwarded-for"),
          getConnInfo(c).remote.address ?? "unknown",
          options.trustedHops,
        ),
      waitUntil: options.waitUntil,
    }),
  );

  app.use(...staticSite(options.publicDir));

  app.onError((error, c) => {
    log.error(`request failed: ${error.stack ?? error.message}`);
    return c.text("Internal Server Error\n", 500);
  });
  return app;
}
