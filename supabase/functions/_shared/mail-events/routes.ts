/**
 * The mail-events feature's function, `mail-events`, mounted at `/mail-events`: `POST /:source`,
 * posted by a mail provider's servers, so no CORS and no per-minute limit (a provider sends bursts;
 * a request without a valid signature costs one HMAC and is refused before the database). Before
 * the body is read, an unknown source is a 404 and one not set up a 503 (`receive.ts`), and a call
 * to `dsn` without `DSN_WEBHOOK_SECRET` a 401 (`ownerKey`); `resend` and `ses` are signed, their
 * signatures checked with the body (`receive.ts`). Any other method is a 405.
 */
import { Hono } from "hono";
import type { FeatureRoutes, FunctionsEnv } from "../app.ts";
import { ownerKey } from "../http/owner-key.ts";
import { methodNotAllowed, readBodyWithin } from "../http/read-body.ts";
import type { Logger } from "../logger.ts";
import { MAIL_EVENT_MAX_BYTES, type MailEvents } from "./receive.ts";

export function mailEventRoutes(
  events: MailEvents,
  /** `DSN_WEBHOOK_SECRET`, the bearer key of the `dsn` source. */
  dsnSecret: string | null,
  log: Logger,
): FeatureRoutes {
  const ownersOnly = ownerKey(dsnSecret, "The report needs Authorization: Bearer DSN_WEBHOOK_SECRET.");
  const mailEvents = new Hono<FunctionsEnv>()
    .post(
      "/:source",
      (c, next) => (events.source(c.req.param("source")) === "dsn" ? ownersOnly(c, next) : next()),
      readBodyWithin(MAIL_EVENT_MAX_BYTES, log),
      async (c) => {
        const source = events.source(c.req.param("source"));
        const accepted = await events.receive(source, c.req.raw, new Uint8Array(await c.req.arrayBuffer()));
        c.set("outcome", accepted.outcome);
        return c.json(accepted.body, 200);
      },
    )
    .all("/:source", () => {
      throw methodNotAllowed("mail-events", "POST");
    });
  return { "mail-events": mailEvents };
}
