/**
 * The cms-auth feature's routes: the popup's two navigations (no CORS, no body), which answer
 * redirects only, and the site's page's POST of its one-time code, which answers the token as JSON
 * to the site's origins (the app's CORS).
 */
import { Hono } from "hono";
import type { FeatureApp, FunctionsEnv } from "../app.ts";
import { methodNotAllowed, readBodyWithin } from "../http/read-body.ts";
import type { Logger } from "../logger.ts";
import type { CmsAuth } from "./cms-auth.ts";

/** A code is 43 characters; its JSON a little more. */
const TOKEN_BODY_BYTES = 1024;

export function cmsAuthRoutes(auth: CmsAuth, log: Logger): FeatureApp {
  const app = new Hono<FunctionsEnv>({ strict: false });
  app.get("/cms-auth", (c) => auth.start(c.req.raw));
  app.get("/cms-auth/callback", (c) => auth.callback(c.req.raw));
  app.post("/cms-auth/token", readBodyWithin(TOKEN_BODY_BYTES, log), async (c) => {
    const handed = await auth.token(c.req.raw, new Uint8Array(await c.req.arrayBuffer()));
    c.set("outcome", "token_handed");
    return c.json(handed, 200);
  });
  app.all("/cms-auth/token", () => {
    throw methodNotAllowed("cms-auth/token", "POST, OPTIONS");
  });
  app.all("/cms-auth/*", () => {
    throw methodNotAllowed("cms-auth", "GET");
  });
  app.all("/cms-auth", () => {
    throw methodNotAllowed("cms-auth", "GET");
  });
  return app;
}
