/**
 * The cms-auth feature's function, `cms-auth`, mounted at `/cms-auth`: the popup's two navigations,
 * `GET /` and `GET /callback` (no CORS, no body), which answer redirects only, and the site's
 * page's `POST /token` of its one-time code, which answers the token as JSON to the site's origins
 * (the app's CORS). Any other method, or any other path under it, is a 405.
 */
import { Hono } from "hono";
import type { FeatureRoutes, FunctionsEnv } from "../app.ts";
import { methodNotAllowed, readBodyWithin } from "../http/read-body.ts";
import type { Logger } from "../logger.ts";
import type { CmsAuth } from "./cms-auth.ts";

/** A code is 43 characters; its JSON a little more. */
const TOKEN_BODY_BYTES = 1024;

export function cmsAuthRoutes(auth: CmsAuth, log: Logger): FeatureRoutes {
  const cmsAuth = new Hono<FunctionsEnv>()
    .get("/", (c) => auth.start(c.req.raw))
    .get("/callback", (c) => auth.callback(c.req.raw))
    .post("/token", readBodyWithin(TOKEN_BODY_BYTES, log), async (c) => {
      const handed = await auth.token(c.req.raw, new Uint8Array(await c.req.arrayBuffer()));
      c.set("outcome", "token_handed");
      return c.json(handed, 200);
    })
    .all("/token", () => {
      throw methodNotAllowed("cms-auth/token", "POST, OPTIONS");
    })
    // Hono's `/*` takes `/` too.
    .all("/*", () => {
      throw methodNotAllowed("cms-auth", "GET");
    });
  return { "cms-auth": cmsAuth };
}
