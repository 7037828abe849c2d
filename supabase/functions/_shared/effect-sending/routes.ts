/**
 * The effect-sending feature's route, `POST /send-effect`: called every 10 s by pg_cron with its
 * key, never by a browser. The call is also the mail queue's clock on Supabase, where nothing else
 * wakes up: after the answer, due mail (a confirmation's retry, a reminder, a welcome) is delivered
 * through the host's `waitUntil`.
 */
import { Hono } from "hono";
import type { FeatureApp, FunctionsEnv, FunctionsHost } from "../app.ts";
import { methodNotAllowed } from "../http/read-body.ts";
import type { EffectSending } from "./effect-sending.ts";

export function effectSendingRoutes(
  effects: EffectSending,
  deliverDue: () => Promise<void>,
  host: FunctionsHost,
): FeatureApp {
  const app = new Hono<FunctionsEnv>({ strict: false });
  app.post("/send-effect", async (c) => {
    const answer = await effects.handle(c.req.raw);
    host.waitUntil?.(deliverDue());
    return answer;
  });
  app.all("/send-effect", () => {
    throw methodNotAllowed("send-effect", "POST, OPTIONS");
  });
  return app;
}
