/**
 * The Effect sender's settings, from the same environment as the functions' `Config`. Each has a
 * working default; a value that is set but unusable is an error at start.
 */
import { ConfigError, type Env, readNumber } from "../config.ts";
import type { RetryPolicy } from "./delivery-store.ts";

export interface SendingConfig {
  /** Mails per second at the SMTP call, across every connection; 0: no limit. */
  ratePerSecond: number;
  /** Pooled SMTP connections. */
  maxConnections: number;
  /** Deliveries claimed (and recorded) together; also the most a crash can leave `unknown`. */
  batchSize: number;
  /** Seconds a claimed row is held for its sender, renewed while it sends. */
  leaseSeconds: number;
  retry: RetryPolicy;
  /** `HH:MM` in `timeZone` after which the day's Effect is sent by itself; null: only by command. */
  sendAt: string | null;
  timeZone: string;
}

const SEND_AT = /^([01]\d|2[0-3]):([0-5]\d)$/;

export function parseSendingConfig(env: Env): SendingConfig {
  const sendAt = env.SEND_AT?.trim() || null;
  if (sendAt !== null && !SEND_AT.test(sendAt))
    throw new ConfigError(`SEND_AT must be a time of day as HH:MM, e.g. 06:30 (got "${sendAt}")`);
  const timeZone = env.BRAND_TIME_ZONE?.trim() || "America/New_York";
  try {
    new Intl.DateTimeFormat("en-CA", { timeZone });
  } catch {
    throw new ConfigError(
      `BRAND_TIME_ZONE must be an IANA time zone such as Europe/Paris (got "${timeZone}")`,
    );
  }
  return {
    ratePerSecond: readNumber(env, "MAIL_RATE_PER_SECOND", 10, 0),
    maxConnections: readNumber(env, "SMTP_MAX_CONNECTIONS", 5, 1, 100),
    batchSize: readNumber(env, "EFFECT_BATCH_SIZE", 50, 1, 1000),
    leaseSeconds: readNumber(env, "EFFECT_LEASE_SECONDS", 60, 1, 3600),
    retry: {
      baseSeconds: readNumber(env, "MAIL_RETRY_BASE_SECONDS", 10, 0.01),
      maxSeconds: readNumber(env, "MAIL_RETRY_MAX_SECONDS", 1800, 0.01),
      pauseAfter: readNumber(env, "EFFECT_PAUSE_AFTER_FAILURES", 20, 1),
    },
    sendAt,
    timeZone,
  };
}

/** The day (YYYY-MM-DD) and time (HH:MM) it is at `now` in `timeZone`. */
export function localDayAndTime(timeZone: string, now: Date): { day: string; time: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
    })
      .formatToParts(now)
      .map((part) => [part.type, part.value]),
  );
  return { day: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

/** The day whose Effect is due at `now`, or null before `sendAt` (HH:MM compare as text). */
export function dueEditionDate(config: Pick<SendingConfig, "sendAt" | "timeZone">, now: Date): string | null {
  if (!config.sendAt) return null;
  const { day, time } = localDayAndTime(config.timeZone, now);
  return time >= config.sendAt ? day : null;
}
