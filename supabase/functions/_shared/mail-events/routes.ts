/**
 * The mail-events feature's route, `POST /mail-events/:source`: posted by a mail provider's
 * servers, so no CORS and no per-minute limit (a provider sends bursts; a request without a valid
 * signature costs one HMAC and is refused before the database). An unknown source is a 404 and one
 * not set up a 503, before the body is read (`receive.ts`).
 */
import { Hono } from "hono";
import type { FeatureApp, FunctionsEnv } from "../app.ts";
import { methodNotAllowed, readBodyWithin } from "../http/read-body.ts";
import type { Logger } from "../logger.ts";
import { MAIL_EVENT_MAX_BYTES, type MailEvents } from "./receive.ts";

export function mailEventRoutes(events: MailEvents, log: Logger): FeatureApp {
  const app = new Hono<FunctionsEnv>({ strict: false });
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
    throw methodNotAllowed("mail-events", "POST");
  });
  return app;
}
