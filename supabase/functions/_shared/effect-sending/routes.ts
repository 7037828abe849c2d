/**
 * The effect-sending feature's function, `send-effect`, mounted at `/send-effect`: `POST /`, called
 * every 10 s by pg_cron with `SEND_EFFECT_KEY`, never by a browser. A call without the key is
 * refused (401, `ownerKey`) before anything is read; any other method is a 405. The call is also
 * the clock of what else is due on Supabase, where nothing else wakes up: after the answer, due
 * mail (a confirmation's retry, a reminder, a welcome) is delivered and the owner's weekly report
 * sent when its week is due, through the host's `waitUntil` (`afterCall`, from backend.ts).
 */
import { Hono } from "hono";
import type { FeatureRoutes, FunctionsEnv, FunctionsHost } from "../app.ts";
import { ownerKey } from "../http/owner-key.ts";
import { methodNotAllowed } from "../http/read-body.ts";
import type { EffectSending } from "./effect-sending.ts";

export function effectSendingRoutes(
  effects: EffectSending,
  /** `SEND_EFFECT_KEY`; null refuses every call. */
  key: string | null,
  /** What runs after each answer: the queue's due mail, the weekly report; never rejects. */
  afterCall: () => Promise<void>,
  host: FunctionsHost,
): FeatureRoutes {
  const sendEffect = new Hono<FunctionsEnv>()
    .post("/", ownerKey(key, "This function is called by the scheduler only."), async (c) => {
      const answer = await effects.handle(c.req.raw);
      host.waitUntil?.(afterCall());
      return answer;
    })
    .all("/", () => {
      throw methodNotAllowed("send-effect", "POST, OPTIONS");
    });
  return { "send-effect": sendEffect };
}
