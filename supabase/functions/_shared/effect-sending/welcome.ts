/**
 * The welcome mail: after a confirmation, the reader gets the latest published Effect, the daily
 * mail itself (its own unsubscribe link), in the welcome variant the site's build renders of it
 * (`welcome` in its mail.json: a welcoming subject and greeting, content/newsletter.yaml
 * `mails.welcome`). It is a job in the durable
 * mail queue (`mail/mail-queue.ts`, queued in the confirmation's transaction), with the
 * confirmation's delivery promises, and it is recorded as that edition's delivery to the reader
 * (`delivery-store.ts`, `claimWelcome`), so the day's send never mails them that Effect again.
 *
 * A reader who already has that edition (the day's send reached them first) gets no welcome: the
 * Effect they got is their first mail. A crash between the send and its record leaves the delivery
 * `unknown`, never sent twice, as for the day's send.
 */
import type { Logger } from "../logger.ts";
import { maskEmail } from "../logger.ts";
import type { MailSettings } from "../mail/list-headers.ts";
import type { MailJob, MailQueue } from "../mail/mail-queue.ts";
import type { Mailer } from "../mail/mailer.ts";
import { smtpFailureKind } from "../mail/smtp-failure.ts";
import type { SqlExecutor } from "../db/sql-executor.ts";
import { retryDelaySeconds } from "../subscriptions/lifecycle.ts";
import { createDeliveryStore } from "./delivery-store.ts";
import { effectMail } from "./edition.ts";
import type { LatestEditionSource } from "./edition-source.ts";

/** How long the welcome holds its delivery row; a sender dead longer leaves it `unknown`. */
const LEASE_SECONDS = 600;

export interface WelcomeDeps {
  db: SqlExecutor;
  queue: MailQueue;
  mailer: Mailer;
  latestEdition: LatestEditionSource;
  log: Logger;
  now: () => Date;
  retry: { baseSeconds: number; maxSeconds: number };
}

/** What the mail sender needs of the welcome (`mail/queue-delivery.ts`). */
export interface WelcomeDelivery {
  deliver(job: MailJob, settings: MailSettings): Promise<void>;
}

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createWelcome(deps: WelcomeDeps): WelcomeDelivery {
  const { queue, mailer, log, now } = deps;
  const store = createDeliveryStore(deps.db);

  const retryLater = async (job: MailJob, reason: string) => {
    const delay = retryDelaySeconds(job.attempts, deps.retry.baseSeconds, deps.retry.maxSeconds);
    await queue.scheduleRetry(job.id, reason, new Date(now().getTime() + delay * 1000));
    log.warn(
      `welcome mail to ${maskEmail(job.recipient)} failed (attempt ${job.attempts}), retrying in ${delay}s: ${reason}`,
    );
  };

  return {
    async deliver(job, settings) {
      let latest;
      try {
        latest = await deps.latestEdition();
      } catch (error) {
        // The site is away: the welcome waits, as a confirmation waits for SMTP.
        return retryLater(job, `The latest Effect could not be read: ${errorMessage(error)}`);
      }
      if (!latest) {
        await queue.abandon(job.id, "No Effect is published yet: nothing to welcome with");
        return;
      }
      const welcome = latest.welcome;
      if (!welcome) {
        // A mail.json built before the welcome was: the next build publishes it.
        return retryLater(job, `The Effect of ${latest.date}'s mail.json has no welcome: rebuild the site`);
      }
      const at = now();
      const claimed = await store.claimWelcome(
        latest,
        job.subscriberId,
        at,
        new Date(at.getTime() + LEASE_SECONDS * 1000),
      );
      if (claimed === "had" || claimed === "gone") {
        await queue.abandon(
          job.id,
          claimed === "had"
            ? `The reader has the Effect of ${latest.date} already`
            : "No longer subscribed, or refused mail, before the welcome went out",
        );
        return;
      }
      // The welcome variant the site's build rendered of this Effect (its subject, greeting and card).
      const mail = effectMail(
        settings,
        { ...claimed.edition, welcome },
        {
          to: claimed.delivery.recipient,
          unsubscribeToken: claimed.delivery.unsubscribeToken,
          subscriberId: job.subscriberId,
        },
        "welcome",
      );
      try {
        await mailer.send({
          ...mail,
          reference: `welcome-${claimed.delivery.id}`,
          // Each attempt carries a fresh unsubscribe token, so it is a new request.
          idempotencyKey: `mail-job-${job.id}-${job.attempts}`,
        });
      } catch (error) {
        const reason = errorMessage(error);
        if (smtpFailureKind(error) === "permanent") {
          await store.finishWelcome(claimed.delivery.id, "failed", now(), reason);
          await queue.abandonUndeliverable(job.id, reason, now());
          log.warn(`welcome mail to ${maskEmail(job.recipient)} refused for good, not retried: ${reason}`);
          return;
        }
        await store.finishWelcome(claimed.delivery.id, "queued", now(), reason);
        return retryLater(job, reason);
      }
      // Out: the delivery first (it is what keeps the day's send from mailing it again), then the job.
      await store.finishWelcome(claimed.delivery.id, "sent", now());
      await queue.markSent(job.id, now());
      log.info(
        `welcome mail (the Effect of ${claimed.edition.date}) sent to ${maskEmail(job.recipient)} via ${mailer.description}`,
      );
    },
  };
}
