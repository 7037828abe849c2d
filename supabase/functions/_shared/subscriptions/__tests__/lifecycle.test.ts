import {
  decideConfirm,
  decideSignup,
  decideUnsubscribe,
  reminderHeldBack,
  retryDelaySeconds,
  type SignupState,
} from "../lifecycle.ts";

const limits = { resendCooldownSeconds: 60, confirmationMailsPerDay: 3 };
const now = new Date("2026-11-22T12:00:00Z");
const secondsAgo = (seconds: number) => new Date(now.getTime() - seconds * 1000);

const state = (overrides: Partial<SignupState>): SignupState => ({
  status: "pending",
  mailQueuedAt: secondsAgo(3600),
  mailDay: "2026-11-22",
  mailsOnDay: 1,
  ...overrides,
});

describe("a signup", () => {
  it("makes a new address pending and sends it a confirmation mail", () => {
    expect(decideSignup(null, now, limits)).toEqual({ status: "pending", sendMail: true, reason: "new" });
  });

  it("sends a pending address another mail once the cooldown has passed", () => {
    expect(decideSignup(state({ mailQueuedAt: secondsAgo(60) }), now, limits)).toEqual({
      status: "pending",
      sendMail: true,
      reason: "resend",
    });
  });

  it("sends nothing to a pending address within the cooldown", () => {
    expect(decideSignup(state({ mailQueuedAt: secondsAgo(59) }), now, limits)).toMatchObject({
      status: "pending",
      sendMail: false,
      reason: "cooldown",
    });
  });

  it("sends at most the daily number of mails to one address, and again the next day", () => {
    expect(decideSignup(state({ mailsOnDay: 3 }), now, limits)).toMatchObject({
      sendMail: false,
      reason: "daily_cap",
    });
    expect(decideSignup(state({ mailsOnDay: 3, mailDay: "2026-11-21" }), now, limits)).toMatchObject({
      sendMail: true,
      reason: "resend",
    });
  });

  it("leaves a confirmed address confirmed and sends it nothing", () => {
    expect(
      decideSignup(state({ status: "confirmed", mailQueuedAt: secondsAgo(86_400 * 30) }), now, limits),
    ).toEqual({
      status: "confirmed",
      sendMail: false,
      reason: "already_confirmed",
    });
  });

  it("puts an unsubscribed address back to pending with a new confirmation mail", () => {
    expect(decideSignup(state({ status: "unsubscribed" }), now, limits)).toEqual({
      status: "pending",
      sendMail: true,
      reason: "resubscribe",
    });
  });

  it("puts an unsubscribed address back to pending even when no mail may go out yet", () => {
    expect(
      decideSignup(state({ status: "unsubscribed", mailQueuedAt: secondsAgo(5) }), now, limits),
    ).toMatchObject({
      status: "pending",
      sendMail: false,
      reason: "cooldown",
    });
  });
});

describe("a confirmation click", () => {
  const later = new Date(now.getTime() + 1000);
  it("confirms a pending address while its link is valid", () => {
    expect(decideConfirm({ status: "pending", confirmExpiresAt: later }, now)).toBe("confirm");
  });
  it("refuses an expired link", () => {
    expect(decideConfirm({ status: "pending", confirmExpiresAt: now }, now)).toBe("expired");
  });
  it("answers a second click on a confirmed address with success", () => {
    expect(decideConfirm({ status: "confirmed", confirmExpiresAt: secondsAgo(10) }, now)).toBe(
      "already_confirmed",
    );
  });
  it("does not resubscribe an address that unsubscribed since", () => {
    expect(decideConfirm({ status: "unsubscribed", confirmExpiresAt: later }, now)).toBe("expired");
  });
  it("confirms again a confirmed address whose mail bounced, while its new link is valid", () => {
    expect(decideConfirm({ status: "confirmed", confirmExpiresAt: later, suppressed: true }, now)).toBe(
      "confirm",
    );
    expect(decideConfirm({ status: "confirmed", confirmExpiresAt: now, suppressed: true }, now)).toBe(
      "expired",
    );
  });
});

describe("a signup of a confirmed address whose mail bounced", () => {
  it("sends a new link to confirm it, and keeps it confirmed", () => {
    expect(decideSignup(state({ status: "confirmed", suppressed: true }), now, limits)).toEqual({
      status: "confirmed",
      sendMail: true,
      reason: "reconfirm",
    });
  });
  it("holds that link back within the cooldown, as any other", () => {
    expect(
      decideSignup(
        state({ status: "confirmed", suppressed: true, mailQueuedAt: secondsAgo(5) }),
        now,
        limits,
      ),
    ).toEqual({ status: "confirmed", sendMail: false, reason: "cooldown" });
  });
});

describe("a signup's reminder", () => {
  const reminderLimits = { confirmationMailsPerDay: 3, purgePendingAfterDays: 7 };
  const mailbox = (mailsOnDay: number, reminderAt: Date | null) => ({
    mailDay: "2026-11-22",
    mailsOnDay,
    reminderAt,
  });

  it("is queued while the mailbox's day has room and it had no reminder in the purge window", () => {
    expect(reminderHeldBack(mailbox(1, null), now, reminderLimits)).toBeNull();
    expect(reminderHeldBack(mailbox(2, secondsAgo(7 * 86_400)), now, reminderLimits)).toBeNull();
  });

  it("is held back by the mailbox's daily cap, counted with the confirmations", () => {
    expect(reminderHeldBack(mailbox(3, null), now, reminderLimits)).toBe("mailbox_daily_cap");
    // Yesterday's count is not today's.
    expect(reminderHeldBack({ ...mailbox(3, null), mailDay: "2026-11-21" }, now, reminderLimits)).toBeNull();
  });

  it("is one per mailbox per purge window", () => {
    expect(reminderHeldBack(mailbox(1, secondsAgo(6 * 86_400)), now, reminderLimits)).toBe(
      "mailbox_reminded",
    );
  });
});

describe("an unsubscribe", () => {
  it("works from every status and twice", () => {
    expect(decideUnsubscribe("pending")).toBe("unsubscribe");
    expect(decideUnsubscribe("confirmed")).toBe("unsubscribe");
    expect(decideUnsubscribe("unsubscribed")).toBe("already_unsubscribed");
  });
});

describe("mail retries", () => {
  it("wait twice as long after each failure, up to the cap", () => {
    expect([1, 2, 3, 4, 10, 100].map((attempt) => retryDelaySeconds(attempt, 10, 1800))).toEqual([
      10, 20, 40, 80, 1800, 1800,
    ]);
  });
});
