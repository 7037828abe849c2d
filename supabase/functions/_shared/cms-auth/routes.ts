/**
 * The cms-auth feature's routes: opened by the content editor as a popup, a plain navigation, so no
 * CORS and no body. Its pages carry their own headers (`cms-auth.ts`).
 */
import { Hono } from "hono";
import type { FeatureApp, FunctionsEnv } from "../app.ts";
import { methodNotAllowed } from "../http/read-body.ts";
import type { CmsAuth } from "./cms-auth.ts";

export function cmsAuthRoutes(auth: CmsAuth): FeatureApp {
  const app = new Hono<FunctionsEnv>({ strict: false });
  app.get("/cms-auth", (c) => auth.start(c.req.raw));
  app.get("/cms-auth/callback", (c) => auth.callback(c.req.raw));
  app.all("/cms-auth/*", () => {
    throw methodNotAllowed("cms-auth", "GET");
  });
  app.all("/cms-auth", () => {
    throw methodNotAllowed("cms-auth", "GET");
  });
  return app;
}
