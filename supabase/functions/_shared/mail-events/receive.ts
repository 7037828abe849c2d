/**
 * The `mail-events` function: one route per source (`/mail-events/resend`, `/ses`, `/dsn`). A
 * request is checked by its source before anything is stored: `resend` and `ses` here (signature,
 * timestamp), `dsn` by its route (`routes.ts`: the bearer secret, `ownerKey`, before the body is
 * read); a returned mail also for the proof that it is about our own mail to one subscriber
 * (`report-trust.ts`). Then each event it carries is applied (`event-store.ts`). An unknown source
 * is a 404; a source whose secret is not set is a 503, so the provider keeps the events and retries
 * them once the owner has set it; a database that fails is a 503 too (`app.ts`), for the same
 * reason. A request that carries nothing to apply (an event type the list does not need, a mail
 * that is no report) is answered 200 with `ignored` saying why, and logged: a provider retries
 * anything else.
 */
import type { Accepted } from "../http/answers.ts";
import { fromStorage, Refusal } from "../http/answers.ts";
import type { MailEventsConfig } from "../config.ts";
import type { SqlExecutor } from "../db/sql-executor.ts";
import { type Logger, maskEmail } from "../logger.ts";
import { readDsnEvent } from "./dsn.ts";
import { createMailEventStore, type EventEffect } from "./event-store.ts";
import { MAIL_EVENT_SOURCES, type MailEventSource, type SourceReading } from "./mail-event.ts";
import { trustReport } from "./report-trust.ts";
import { readResendEvent } from "./resend.ts";
import { createSesSource, type Fetch } from "./ses.ts";

/** A provider's event, or a raw bounce mail with its original attached, fits in this. */
export const MAIL_EVENT_MAX_BYTES = 256 * 1024;

export interface MailEventsDeps {
  db: SqlExecutor;
  config: MailEventsConfig;
  log: Logger;
  now: () => Date;
  /** For SNS's certificates and subscription confirmations; tests pass their own. */
  fetch?: Fetch;
}

const SETTING: Record<MailEventSource, string> = {
  resend: "RESEND_WEBHOOK_SECRET",
  ses: "SES_TOPIC_ARN",
  dsn: "DSN_WEBHOOK_SECRET",
};

export function createMailEvents(deps: MailEventsDeps) {
  const { config, log, now } = deps;
  const store = createMailEventStore(deps.db);
  const ses = createSesSource(deps.fetch ?? ((url) => fetch(url)));

  return {
    /** The source a route names: a 404 for one that does not exist, a 503 for one not set up. */
    source(name: string): MailEventSource {
      const source = MAIL_EVENT_SOURCES.find((known) => known === name);
      if (!source)
        throw new Refusal(
          404,
          "not_found",
          `There is no mail-events source "${name}" (${MAIL_EVENT_SOURCES.join(", ")}).`,
        );
      const configured =
        source === "resend"
          ? config.resendSecret
          : source === "ses"
            ? config.sesTopicArns.length > 0
            : config.dsnSecret;
      if (!configured)
        throw new Refusal(
          503,
          "not_configured",
          `mail-events/${source} is not set up: ${SETTING[source]} is not set.`,
          {
            headers: { "Retry-After": "3600" },
          },
        );
      return source;
    },

    async receive(source: MailEventSource, request: Request, body: Uint8Array): Promise<Accepted> {
      const at = now();
      let reading: SourceReading;
      if (source === "resend")
        reading = await readResendEvent(request.headers, body, config.resendSecret as string, at);
      else if (source === "ses")
        reading = await ses.read(body, config.sesTopicArns, at, config.snsAllowSignatureV1);
      else {
        // Its bearer secret was checked by the route (`routes.ts`). Only a report about our own
        // mail counts, for the one subscriber it proves.
        reading = await trustReport(
          await readDsnEvent(body, at),
          { rcpt: new URL(request.url).searchParams.get("rcpt") },
          { db: deps.db, bounce: config.bounce },
        );
      }
      const why =
        reading.ignored ?? (reading.outcome.startsWith("ignored:") ? reading.outcome.slice(8) : null);
      if (reading.ignored) log.warn(`mail-events/${source}: ignored: ${reading.ignored}`);
      else if (reading.events.length === 0)
        log.info(`mail-events/${source}: nothing to apply (${reading.outcome})`);
      const effects: EventEffect[] = [];
      for (const event of reading.events) {
        const effect = await fromStorage(() => store.apply(event, at));
        effects.push(effect);
        log.info(`mail-events/${source}: ${event.kind} for ${maskEmail(event.recipient)}: ${effect}`);
      }
      return {
        body: {
          received: reading.events.map((event, index) => ({ kind: event.kind, effect: effects[index] })),
          ...(why ? { ignored: why } : {}),
        },
        outcome: effects.length > 0 ? `${reading.events[0].kind}:${effects[0]}` : reading.outcome,
      };
    },
  };
}

export type MailEvents = ReturnType<typeof createMailEvents>;
