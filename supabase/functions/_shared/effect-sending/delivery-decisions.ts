/**
 * The sender's decisions, pure so they are tested without a server: what an SMTP error means for
 * a delivery, and when to try again.
 */

export type SendFailure =
  /** The server refused this recipient for good (a 5xx to RCPT TO or DATA): fail it now, mark the address. */
  | { kind: "permanent"; reason: string }
  /** A 4xx, a connection failure, a timeout, or a 5xx that is about us rather than the recipient. */
  | { kind: "temporary"; reason: string };

interface SmtpErrorShape {
  message?: unknown;
  responseCode?: unknown;
  command?: unknown;
}

/**
 * nodemailer puts the server's reply code in `responseCode` and the command it answered in
 * `command`. A 5xx to AUTH or MAIL FROM says our account or sender address is wrong, not the
 * recipient's, so it is temporary: it pauses the edition (every delivery fails alike) instead of
 * marking the whole list undeliverable.
 */
export function classifySendError(error: unknown): SendFailure {
  const shape = (typeof error === "object" && error !== null ? error : {}) as SmtpErrorShape;
  const reason = typeof shape.message === "string" ? shape.message : String(error);
  const code = typeof shape.responseCode === "number" ? shape.responseCode : 0;
  const command = typeof shape.command === "string" ? shape.command.toUpperCase() : "";
  const aboutUs = command.startsWith("AUTH") || command.startsWith("MAIL FROM") || command === "CONN";
  if (code >= 500 && code < 600 && !aboutUs) return { kind: "permanent", reason };
  return { kind: "temporary", reason };
}

/**
 * One global pace for every send, whatever the concurrency: each call waits for its own slot,
 * `1 / perSecond` seconds after the previous one. 0 means no limit.
 */
export function createRateLimiter(perSecond: number, clock: () => number = () => Date.now()) {
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
