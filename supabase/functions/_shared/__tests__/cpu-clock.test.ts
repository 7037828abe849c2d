/**
 * The worker's CPU clock: the runtime's own only where it is seen to advance (Supabase's answers
 * zeros), else an estimate from the work done that counts a mail dearer on a slower host.
 */
import { performance } from "node:perf_hooks";
import { calibrate, cpuClock, estimatedClock, processClock } from "../cpu-clock.ts";
import { meteredMailer, type MailMessage } from "../mail/mailer.ts";

const now = () => performance.now();
const processCpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const message = (kib: number): MailMessage => ({
  from: { name: "", address: "a@example.com" },
  to: "b@example.com",
  subject: "s",
  text: "",
  html: "x".repeat(kib * 1024),
  headers: {},
});

describe("the worker's CPU clock", () => {
  it("trusts a CPU clock that advances", () => {
    const clock = cpuClock({ processCpu, now });
    expect(clock.kind).toBe("process");
    const before = clock.used();
    const until = now() + 20;
    while (now() < until) Math.sqrt(Math.random());
    expect(clock.used()).toBeGreaterThan(before);
  });

  it("does not trust a clock that reads zero, as Supabase's process.cpuUsage() does, and estimates instead", () => {
    expect(processClock(() => 0, now)).toBeNull();
    const clock = cpuClock({ processCpu: () => 0, now });
    expect(clock.kind).toBe("estimate");
    expect(clock.unitMs).toBeGreaterThan(0);
  });

  it("counts the boot as the time it took, up to 400 ms", () => {
    expect(estimatedClock(120, 1, now).used()).toBe(120);
    expect(estimatedClock(9_000, 1, now).used()).toBe(400);
  });

  it("counts each mail at its transport's cost per request, mail and KiB, in calibration units", async () => {
    const clock = estimatedClock(0, 0.5, now);
    const sent: string[] = [];
    const mailer = meteredMailer(
      {
        description: "test",
        cpuCost: { perRequest: 10, perMail: 2, perKib: 1 },
        send: async (mail) => void sent.push(mail.to),
        sendBatch: async (mails) => void sent.push(...mails.map((mail) => mail.to)),
      },
      clock,
    );
    await mailer.send(message(4));
    // (10 + 2 + 4) units of 0.5 ms
    expect(clock.used()).toBe(8);
    await mailer.sendBatch?.([message(1), message(1), message(2)], "key");
    // (10 + 3 * 2 + 4) units of 0.5 ms more
    expect(clock.used()).toBe(18);
    expect(sent).toHaveLength(4);
  });

  it("counts a transport that says nothing of its cost as the dearest measured one", async () => {
    const clock = estimatedClock(0, 1, now);
    await meteredMailer({ description: "test", send: async () => undefined }, clock).send(message(0));
    expect(clock.used()).toBeGreaterThanOrEqual(8);
  });

  it("counts mail dearer on a slower host: its calibration unit takes longer", () => {
    let time = 0;
    const fast = () => (time += 0.1);
    const slow = () => (time += 0.4);
    expect(calibrate(slow)).toBeGreaterThan(calibrate(fast));
  });

  it("keeps the dearer unit when it calibrates again, and counts that time", () => {
    let time = 0;
    const clock = estimatedClock(0, 5, () => (time += 0.25));
    const before = clock.used();
    clock.recalibrate();
    expect(clock.unitMs).toBe(5);
    expect(clock.used()).toBeGreaterThan(before);
  });
});
