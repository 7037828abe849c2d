/**
 * The Effect sender's settings, read through the registry (contract/variables.ts) from the same
 * environment as the functions' `Config`. Each has a working default; a value that is set but
 * unusable is an error at start. The time zone SEND_AT counts in is the brand's, from the content.
 */
import { dayAndTimeIn } from "../contract/calendar-day.ts";
import { ConfigError, type Env, readNumberVariable, readVariable } from "../contract/variables.ts";
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
  /** `HH:MM` in the brand's time zone after which the day's Effect is sent by itself; null: only by command. */
  sendAt: string | null;
  /** `send-effect` only: the bearer key pg_cron sends (null: every call refused). */
  key: string | null;
  /** `send-effect` only: seconds of sending per call, within the platform's limit. */
  secondsPerCall: number;
  /** `send-effect` only: milliseconds of CPU per call, within the platform's 2 s. */
  cpuMsPerCall: number;
}

const SEND_AT = /^([01]\d|2[0-3]):([0-5]\d)$/;

export function parseSendingConfig(env: Env): SendingConfig {
  const sendAt = readVariable(env, "SEND_AT") ?? null;
  if (sendAt !== null && !SEND_AT.test(sendAt))
    throw new ConfigError("SEND_AT must be a time of day as HH:MM, e.g. 06:30");
  return {
    ratePerSecond: readNumberVariable(env, "MAIL_RATE_PER_SECOND"),
    maxConnections: readNumberVariable(env, "SMTP_MAX_CONNECTIONS"),
    batchSize: readNumberVariable(env, "EFFECT_BATCH_SIZE"),
    leaseSeconds: readNumberVariable(env, "EFFECT_LEASE_SECONDS"),
    retry: {
      baseSeconds: readNumberVariable(env, "MAIL_RETRY_BASE_SECONDS"),
      maxSeconds: readNumberVariable(env, "MAIL_RETRY_MAX_SECONDS"),
      pauseAfter: readNumberVariable(env, "EFFECT_PAUSE_AFTER_FAILURES"),
    },
    sendAt,
    key: readVariable(env, "SEND_EFFECT_KEY") ?? null,
    secondsPerCall: readNumberVariable(env, "SEND_EFFECT_SECONDS"),
    cpuMsPerCall: readNumberVariable(env, "SEND_EFFECT_CPU_MS"),
  };
}

/** The day whose Effect is due at `now` in `timeZone`, or null before `sendAt` (HH:MM compare as text). */
export function dueEditionDate(sendAt: string | null, timeZone: string, now: Date): string | null {
  if (!sendAt) return null;
  const { day, time } = dayAndTimeIn(timeZone, now);
  return time >= sendAt ? day : null;
}
