/**
 * The sender's decisions, pure so they are tested without a server: what an SMTP error means for
 * a delivery, and when to try again.
 */
import { smtpFailureKind } from "../mail/smtp-failure.ts";

export type SendFailure =
  /** The server refused this recipient for good (a 5xx to RCPT TO or DATA): fail it now, mark the address. */
  | { kind: "permanent"; reason: string }
  /** A 4xx, a connection failure, a timeout, or a 5xx that is about us rather than the recipient. */
  | { kind: "temporary"; reason: string };

/**
 * What an SMTP error means for a delivery: the rule every sender shares (`smtp-failure.ts`: a 5xx
 * to RCPT TO or DATA is permanent; a 5xx to AUTH or MAIL FROM is about our account, so temporary,
 * and pauses the edition instead of marking the whole list), with the error's text as the reason.
 */
export function classifySendError(error: unknown): SendFailure {
  const reason = error instanceof Error ? error.message : String(error);
  return { kind: smtpFailureKind(error), reason };
}

/**
 * One global pace for every send, whatever the concurrency: each call waits for its own slot,
 * `1 / perSecond` seconds after the previous one. 0 means no limit.
 */
export function createMailPace(perSecond: number, clock: () => number = () => Date.now()) {
  const gapMs = perSecond > 0 ? 1000 / perSecond : 0;
  let nextSlot = 0;
  return {
    /** Milliseconds the caller must wait for its slot (already reserved). */
    reserve(): number {
      if (gapMs === 0) return 0;
      const now = clock();
      const slot = Math.max(now, nextSlot);
      nextSlot = slot + gapMs;
      return slot - now;
    },
    async take(): Promise<void> {
      const wait = this.reserve();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    },
  };
}

/** What a sender waits on before each mail or request: this process's pace, or the database's. */
export interface MailPace {
  take(): Promise<void>;
}
