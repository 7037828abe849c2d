/**
 * The subscription's life as pure decisions: new → pending (confirmation mail) → confirmed (by
 * the link's page) → unsubscribed (by the link or the one-click header). `subscriber-store.ts` applies them
 * inside a transaction; keeping them here makes every rule testable without a database.
 */
import { utcDay } from "../contract/calendar-day.ts";

export type SubscriberStatus = "pending" | "confirmed" | "unsubscribed";

export interface SignupState {
  status: SubscriberStatus;
  /** When the latest confirmation mail was queued. */
  mailQueuedAt: Date | null;
  /** UTC day (YYYY-MM-DD) that `mailsOnDay` counts. */
  mailDay: string | null;
  mailsOnDay: number;
  /** A bounce (or an SMTP 5xx) since it last confirmed: no mail goes to it until it confirms again. */
  suppressed?: boolean;
}

export interface MailLimits {
  resendCooldownSeconds: number;
  confirmationMailsPerDay: number;
}

export type SignupDecision =
  | { status: "pending"; sendMail: true; reason: "new" | "resend" | "resubscribe" }
  | { status: "confirmed"; sendMail: true; reason: "reconfirm" }
  | {
      status: SubscriberStatus;
      sendMail: false;
      reason:
        | "cooldown"
        | "daily_cap"
        | "already_confirmed"
        | "mailbox_cooldown"
        | "mailbox_daily_cap"
        | "client_daily_cap";
    };

/** Confirmation mails already queued today for this address. */
export const mailsToday = (state: Pick<SignupState, "mailDay" | "mailsOnDay">, now: Date): number =>
  state.mailDay === utcDay(now) ? state.mailsOnDay : 0;

/**
 * What a signup does to an address. The answer to the visitor is the same in every case; only
 * the row and the mail differ.
 */
export function decideSignup(current: SignupState | null, now: Date, limits: MailLimits): SignupDecision {
  if (current === null) return { status: "pending", sendMail: true, reason: "new" };
  // A confirmed subscriber gets nothing and stays confirmed: a stranger typing their address
  // must neither unsubscribe them nor fill their inbox.
  if (current.status === "confirmed" && !current.suppressed)
    return { status: "confirmed", sendMail: false, reason: "already_confirmed" };
  // A confirmed address whose mail bounced stays confirmed, and gets a link to confirm that it
  // works again: the only thing that lifts a bounce.
  if (current.status === "confirmed") {
    const held = mailHeldBack(current, now, limits);
    return held
      ? { status: "confirmed", sendMail: false, reason: held }
      : { status: "confirmed", sendMail: true, reason: "reconfirm" };
  }
  // An unsubscribed address goes back to pending and must confirm again, even when no mail may
  // be sent right now; it can sign up again after the cooldown to get its link.
  const status = "pending";
  const held = mailHeldBack(current, now, limits);
  if (held) return { status, sendMail: false, reason: held };
  return { status, sendMail: true, reason: current.status === "unsubscribed" ? "resubscribe" : "resend" };
}

/** The confirmation mails a mailbox (or an address) got lately: when the last, how many today. */
export type MailHistory = Pick<SignupState, "mailQueuedAt" | "mailDay" | "mailsOnDay">;

/**
 * Why another confirmation mail may not go out now, or null when it may: the cooldown since the
 * last one, or the day's cap. Applied to the address's own row and to its whole mailbox, so
 * `victim+1@…` … `victim+20@…` fill no inbox.
 */
export function mailHeldBack(
  history: MailHistory,
  now: Date,
  limits: MailLimits,
): "cooldown" | "daily_cap" | null {
  const cooling =
    history.mailQueuedAt !== null &&
    now.getTime() - history.mailQueuedAt.getTime() < limits.resendCooldownSeconds * 1000;
  if (cooling) return "cooldown";
  if (mailsToday(history, now) >= limits.confirmationMailsPerDay) return "daily_cap";
  return null;
}

/** The mailbox's counts once the signup's confirmation is counted, and when it last had a reminder. */
export interface MailboxReminderState extends Pick<SignupState, "mailDay" | "mailsOnDay"> {
  reminderAt: Date | null;
}

/**
 * Why the signup's reminder may not be queued, or null when it may. A reminder is a mail like the
 * confirmation: it counts in the mailbox's mails of the day, and a mailbox gets one reminder while
 * its signups may stay pending (`purgePendingAfterDays`), so `ann+1@` … `ann+3@` get one between them.
 */
export function reminderHeldBack(
  mailbox: MailboxReminderState,
  now: Date,
  limits: Pick<MailLimits, "confirmationMailsPerDay"> & { purgePendingAfterDays: number },
): "mailbox_reminded" | "mailbox_daily_cap" | null {
  if (
    mailbox.reminderAt !== null &&
    now.getTime() - mailbox.reminderAt.getTime() < limits.purgePendingAfterDays * 86_400_000
  )
    return "mailbox_reminded";
  if (mailsToday(mailbox, now) >= limits.confirmationMailsPerDay) return "mailbox_daily_cap";
  return null;
}

export type ConfirmDecision = "confirm" | "already_confirmed" | "expired";

/**
 * What a click on a confirmation link does. An unsubscribed address needs a new signup; a confirmed
 * one whose mail bounced confirms again (its new signup's link), which lifts the bounce.
 */
export function decideConfirm(
  current: { status: SubscriberStatus; confirmExpiresAt: Date | null; suppressed?: boolean },
  now: Date,
): ConfirmDecision {
  if (current.status === "confirmed" && !current.suppressed) return "already_confirmed";
  if (current.status === "unsubscribed") return "expired";
  if (current.confirmExpiresAt === null || current.confirmExpiresAt.getTime() <= now.getTime())
    return "expired";
  return "confirm";
}

export type UnsubscribeDecision = "unsubscribe" | "already_unsubscribed";

/** Unsubscribing always works and is idempotent, from any status. */
export const decideUnsubscribe = (status: SubscriberStatus): UnsubscribeDecision =>
  status === "unsubscribed" ? "already_unsubscribed" : "unsubscribe";

/** Delay before the next try of a failed mail: doubling from `baseSeconds`, capped. */
export function retryDelaySeconds(attempts: number, baseSeconds: number, maxSeconds: number): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 30);
  return Math.min(maxSeconds, baseSeconds * 2 ** exponent);
}
