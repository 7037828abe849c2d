/**
 * Only our own mail counts: the Effect goes to a real SMTP server on loopback with a per-reader
 * envelope sender (`bounces+<token>@…`, VERP), and whole raw reports posted through the dsn route
 * change a reader only when they carry that reader's token (as the envelope recipient, or in
 * Delivered-To) or, for a complaint, the List-Unsubscribe token of the reader's mail. Forged
 * reports (no token, a changed token, another reader's token with 200 recipients listed, a victim
 * named only in an attached mail's To) change nothing, and `effect status` does not see them. On
 * PGlite, PostgreSQL and the functions' Deno host (the route under Deno, the Effect sent from Node).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { dayIn } from "../../supabase/functions/_shared/contract/calendar-day.ts";
import { forEachBackend } from "../../test/support/backends.ts";
import { claimOfAddress, parseBounceAddress } from "../../supabase/functions/_shared/mail/bounce-token.ts";
import {
  contentIdentity,
  fixtureEdition,
  publishEdition,
  publishLatest,
  readerAddress,
  seedConfirmed,
} from "../../test/support/effect-fixtures.ts";
import {
  arfMail,
  BOUNCE_ADDRESS,
  BOUNCE_KEY,
  bounceAddressOf,
  DSN_SECRET,
  dsnMail,
  MAIL_EVENTS_ENV,
  rfc5965Report,
} from "../../test/support/mail-events.ts";
import { linkIn, rawHeader, recipients } from "../../test/support/outbox.ts";
import { type CapturedMail, createSmtpCapture, type SmtpCapture } from "../../test/support/smtp-capture.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";
import { effectContext, runEffectCommand } from "../effect-commands.ts";

const READERS = 210;
const VERP = /^bounces\+([a-z2-7]{44})@mail\.thepurposeeffect\.example$/;

forEachBackend("only our own returned mail counts, on %s", { deno: true }, (backend, serverUrl) => {
  let smtp: SmtpCapture;
  let stack: TestStack;
  let publicDir: string;
  let status: () => Promise<string>;
  /** The Effect each reader got, by address. */
  const effectTo = new Map<string, CapturedMail>();

  beforeAll(async () => {
    smtp = await createSmtpCapture();
    stack = await startTestStack(backend, { ...MAIL_EVENTS_ENV, SMTP_URL: smtp.url }, serverUrl);
    await seedConfirmed(stack.server.db, READERS);
    const identity = contentIdentity();
    const today = dayIn(identity.timeZone, new Date());
    publicDir = mkdtempSync(path.join(tmpdir(), "verp-public-"));
    publishEdition(publicDir, fixtureEdition(today));
    const context = effectContext(
      {
        SITE_URL: "https://www.thepurposeeffect.example",
        SMTP_URL: smtp.url,
        MAIL_RATE_PER_SECOND: "0",
        ...MAIL_EVENTS_ENV,
      },
      {
        db: stack.server.db,
        dataDir: publicDir,
        publicDir,
        log: { info() {}, warn() {}, error() {} },
        identity,
      },
    );
    await runEffectCommand({ action: "send", date: today, retryUnknown: false }, context);
    status = () => runEffectCommand({ action: "status", date: today }, context);
    for (const mail of smtp.mails) effectTo.set(recipients(mail)[0], mail);
  });
  afterAll(async () => {
    await stack?.close();
    await smtp?.stop();
    if (publicDir) rmSync(publicDir, { recursive: true, force: true });
  });

  const post = (report: string, rcpt?: string) =>
    fetch(
      `${stack.url}/functions/v1/mail-events/dsn${rcpt === undefined ? "" : `?rcpt=${encodeURIComponent(rcpt)}`}`,
      { method: "POST", headers: { authorization: `Bearer ${DSN_SECRET}` }, body: report },
    );
  const changed = () =>
    stack.server.db.query<{ email: string; status: string; suppressed: boolean; reason: string | null }>(
      `select email, status, undeliverable_at is not null as suppressed, unsubscribe_reason as reason
       from subscribers where status <> 'confirmed' or undeliverable_at is not null order by email`,
    );
  const eventCount = async () =>
    Number((await stack.server.db.query<{ n: number }>(`select count(*)::int as n from mail_events`))[0].n);
  const envelopeOf = (index: number) => {
    const mail = effectTo.get(readerAddress(index));
    if (!mail) throw new Error(`no Effect went to ${readerAddress(index)}`);
    return mail.envelope.from;
  };

  it("sends each reader's Effect from their own bounces+<token> address, the token the reader's alone", async () => {
    expect(effectTo.size).toBe(READERS);
    const senders = [...effectTo.values()].map((mail) => mail.envelope.from);
    for (const sender of senders) {
      expect(sender).toMatch(VERP);
      expect(sender.split("@")[0].length).toBeLessThanOrEqual(64);
    }
    expect(new Set(senders.map((sender) => sender.toLowerCase())).size).toBe(READERS);
    // The header From stays the newsletter's; only the envelope names the reader.
    expect(effectTo.get(readerAddress(1))?.from?.text).not.toContain("bounces");
    // What the sender put there is what a reader seeded here would have had.
    expect(envelopeOf(7)).toBe(await bounceAddressOf(stack.server.db, readerAddress(7)));
  });

  it("suppresses exactly the reader whose token a genuine bounce carries as its envelope recipient", async () => {
    const answer = await post(dsnMail(readerAddress(1)), envelopeOf(1));
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ received: [{ kind: "bounce", effect: "suppressed" }] });
    expect(await changed()).toEqual([
      { email: readerAddress(1), status: "confirmed", suppressed: true, reason: null },
    ]);
  });

  it("finds the token in Delivered-To when the inbound route passes no envelope, whatever its letter case", async () => {
    const report = dsnMail(readerAddress(2), { deliveredTo: envelopeOf(2).toUpperCase() });
    expect(await (await post(report)).json()).toEqual({
      received: [{ kind: "bounce", effect: "suppressed" }],
    });
    expect((await changed()).map((row) => row.email)).toEqual([readerAddress(1), readerAddress(2)]);
  });

  it("changes nothing for a report without a token, with a changed token, or naming a victim only in an attached mail", async () => {
    const before = await changed();
    const events = await eventCount();
    const token = VERP.exec(envelopeOf(3))?.[1] as string;
    const changedToken = envelopeOf(3).replace(
      token,
      `${token.slice(0, 20)}${token[20] === "a" ? "b" : "a"}${token.slice(21)}`,
    );
    const answers = await Promise.all([
      post(dsnMail(readerAddress(3))),
      post(dsnMail(readerAddress(3)), BOUNCE_ADDRESS),
      post(dsnMail(readerAddress(3)), changedToken),
      post(dsnMail(readerAddress(3), { deliveredTo: changedToken, to: changedToken })),
      // A complaint naming its victim only in the To: of the reported mail, as the forged ones did.
      post(arfMail(readerAddress(4), { inHeadersOnly: true })),
      // Another list's VERP address, on the same domain.
      post(dsnMail(readerAddress(3)), `other+${token}@mail.thepurposeeffect.example`),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const answer of answers)
      expect(await answer.json()).toEqual({
        received: [],
        ignored: expect.stringContaining("nothing changed"),
      });
    expect(await changed()).toEqual(before);
    expect(await eventCount()).toBe(events);
    expect(stack.logs.join("\n")).toMatch(/mail-events\/dsn: ignored: The report carries no valid token/);
  });

  it("changes one reader at most for a report listing 200 recipients: the one its token names", async () => {
    const before = (await changed()).map((row) => row.email);
    const events = await eventCount();
    const listed = Array.from({ length: 200 }, (_, index) => readerAddress(index + 10));
    // Reader 5's genuine token, on a report that lists 200 others as failed.
    const answer = await post(dsnMail(listed[0], { more: listed.slice(1) }), envelopeOf(5));
    expect(await answer.json()).toEqual({ received: [{ kind: "bounce", effect: "suppressed" }] });
    expect((await changed()).map((row) => row.email)).toEqual([...before, readerAddress(5)].sort());
    expect(await eventCount()).toBe(events + 1);
  });

  it("unsubscribes exactly the reader whose mail's List-Unsubscribe token the attached original of a complaint carries", async () => {
    const listUnsubscribe = rawHeader(effectTo.get(readerAddress(6)) as CapturedMail, "List-Unsubscribe");
    expect(listUnsubscribe).toMatch(/^<https?:\/\/\S+\/unsubscribe\?token=[A-Za-z0-9_-]{43}>$/);
    // The report names reader 8 in the reported mail's To; only the token counts.
    const report = arfMail(readerAddress(8), { inHeadersOnly: true, listUnsubscribe });
    expect(await (await post(report)).json()).toEqual({
      received: [{ kind: "complaint", effect: "unsubscribed" }],
    });
    const rows = await changed();
    expect(rows.find((row) => row.email === readerAddress(6))).toEqual({
      email: readerAddress(6),
      status: "unsubscribed",
      suppressed: false,
      reason: "complaint",
    });
    expect(rows.map((row) => row.email)).not.toContain(readerAddress(8));
    // A made-up token of the right shape proves nothing.
    const made = arfMail(readerAddress(9), {
      inHeadersOnly: true,
      listUnsubscribe: `<https://www.thepurposeeffect.example/functions/v1/unsubscribe?token=${"A".repeat(43)}>`,
    });
    expect(await (await post(made)).json()).toEqual({ received: [], ignored: expect.any(String) });
    expect(await changed()).toEqual(rows);
  });

  it("keeps the edition's status to the genuine reports when forged ones flood in", async () => {
    const genuine = await status();
    // 3 bounces and 1 complaint, from the tests above, of the 210 sent.
    expect(genuine).toMatch(/^bounced +3 \(1\.4 % of the 210 sent\)$/m);
    expect(genuine).toMatch(/^complained +1 \(0\.5 % of the 210 sent\)$/m);
    const victims = Array.from({ length: 80 }, (_, index) => readerAddress(index + 100));
    await Promise.all(
      victims.map((victim, index) =>
        post(index % 2 ? arfMail(victim) : dsnMail(victim, { more: victims.slice(0, 50) })),
      ),
    );
    expect(await status()).toBe(genuine);
  });

  it("finds the token in the returned mail's Return-Path when the report's own addressing names no one", async () => {
    const token = VERP.exec(envelopeOf(31))?.[1] as string;
    const changedToken = envelopeOf(31).replace(
      token,
      `${token.slice(0, 30)}${token[30] === "a" ? "b" : "a"}${token.slice(31)}`,
    );
    const forged = await post(dsnMail(readerAddress(31), { original: [`Return-Path: <${changedToken}>`] }));
    expect(await forged.json()).toEqual({ received: [], ignored: expect.stringContaining("Return-Path") });
    const report = dsnMail(readerAddress(30), { original: [`Return-Path: <${envelopeOf(30)}>`] });
    expect(await (await post(report)).json()).toEqual({
      received: [{ kind: "bounce", effect: "suppressed" }],
    });
    const emails = (await changed()).map((row) => row.email);
    expect(emails).toContain(readerAddress(30));
    expect(emails).not.toContain(readerAddress(31));
  });
});

/** A captured mail as the reader's provider stored it: its header lines as sent, then its text. */
const storedMail = (mail: CapturedMail, returnPath: string | null, drop: string[] = []) =>
  [
    ...(returnPath ? [`Return-Path: <${returnPath}>`] : []),
    ...mail.headerLines.filter((header) => !drop.includes(header.key)).map((header) => header.line),
    "",
    mail.text ?? "",
  ].join("\r\n");

describe("every mail to a subscriber over SMTP, on PGlite", () => {
  let smtp: SmtpCapture;
  let stack: TestStack;
  let publicDir: string;
  beforeAll(async () => {
    smtp = await createSmtpCapture();
    const today = dayIn(contentIdentity().timeZone, new Date());
    publicDir = mkdtempSync(path.join(tmpdir(), "verp-welcome-"));
    publishEdition(publicDir, fixtureEdition(today));
    publishLatest(publicDir, today);
    stack = await startTestStack("PGlite", { ...MAIL_EVENTS_ENV, SMTP_URL: smtp.url, PUBLIC_DIR: publicDir });
  });
  afterAll(async () => {
    await stack?.close();
    await smtp?.stop();
    if (publicDir) rmSync(publicDir, { recursive: true, force: true });
  });

  it("has an envelope sender naming the kind of mail and its reader: confirmation, reminder, welcome", async () => {
    const address = "cleo@example.com";
    expect((await stack.post("send-confirmation", { email: address })).status).toBe(200);
    await stack.drainMail();
    stack.advance(24 * 3600 + 1);
    await stack.drainMail();
    const reminder = smtp.mails[1];
    const token = linkIn(reminder, "confirm").searchParams.get("confirm");
    expect((await stack.post("confirm-subscription", { token })).status).toBe(200);
    await stack.drainMail();
    const [{ id }] = await stack.server.db.query<{ id: string }>(
      `select id from subscribers where email = $1`,
      [address],
    );
    const key = {
      ...(parseBounceAddress(BOUNCE_ADDRESS) as { local: string; domain: string }),
      key: BOUNCE_KEY,
    };
    expect(
      smtp.mails.map((mail) => [
        (mail.subject ?? "").split(" ")[0],
        mail.envelope.to,
        claimOfAddress(key, mail.envelope.from),
      ]),
    ).toEqual([
      ["Confirm", [address], { mail: "confirmation", subscriberId: id }],
      ["Reminder:", [address], { mail: "reminder", subscriberId: id }],
      ["Welcome", [address], { mail: "welcome", subscriberId: id }],
    ]);
  });

  /** Signs `address` up and confirms it: its welcome mail, as the SMTP server received it. */
  async function welcomeTo(address: string): Promise<CapturedMail> {
    expect((await stack.post("send-confirmation", { email: address })).status).toBe(200);
    await stack.drainMail();
    const confirmation = smtp.mails.find((mail) => recipients(mail).includes(address)) as CapturedMail;
    const token = linkIn(confirmation, "confirm").searchParams.get("confirm");
    expect((await stack.post("confirm-subscription", { token })).status).toBe(200);
    await stack.drainMail();
    return smtp.mails.find(
      (mail) => recipients(mail).includes(address) && (mail.subject ?? "").startsWith("Welcome"),
    ) as CapturedMail;
  }
  const post = (report: string) =>
    fetch(`${stack.url}/functions/v1/mail-events/dsn`, {
      method: "POST",
      headers: { authorization: `Bearer ${DSN_SECRET}` },
      body: report,
    });
  const statusOf = async (address: string) =>
    (
      await stack.server.db.query<{ status: string; reason: string | null }>(
        `select status, unsubscribe_reason as reason from subscribers where email = $1`,
        [address],
      )
    )[0];

  it("unsubscribes the reader whose welcome mail it holds inline, by the Return-Path the provider added or by its List-Unsubscribe", async () => {
    const dora = await welcomeTo("dora@example.com");
    const eve = await welcomeTo("eve@example.com");
    expect(rawHeader(dora, "List-Unsubscribe")).toMatch(/token=/);
    // Dora's copy without its List-Unsubscribe: only the Return-Path can prove it.
    const byReturnPath = rfc5965Report(storedMail(dora, dora.envelope.from, ["list-unsubscribe"]));
    // Eve's copy as a provider that adds no Return-Path keeps it: only the List-Unsubscribe can.
    const byListUnsubscribe = rfc5965Report(storedMail(eve, null));
    expect(await (await post(byReturnPath)).json()).toEqual({
      received: [{ kind: "complaint", effect: "unsubscribed" }],
    });
    expect(await (await post(byListUnsubscribe)).json()).toEqual({
      received: [{ kind: "complaint", effect: "unsubscribed" }],
    });
    expect(await statusOf("dora@example.com")).toEqual({ status: "unsubscribed", reason: "complaint" });
    expect(await statusOf("eve@example.com")).toEqual({ status: "unsubscribed", reason: "complaint" });
  });

  it("reads the returned mail as message/global and as text/rfc822-headers too, and believes nothing without a token", async () => {
    const fay = await welcomeTo("fay@example.com");
    const gus = await welcomeTo("gus@example.com");
    const asGlobal = rfc5965Report(storedMail(fay, fay.envelope.from), { partType: "message/global" });
    const headersOnly = rfc5965Report(storedMail(gus, gus.envelope.from).split("\r\n\r\n")[0], {
      partType: "text/rfc822-headers",
    });
    expect(await (await post(asGlobal)).json()).toEqual({
      received: [{ kind: "complaint", effect: "unsubscribed" }],
    });
    expect(await (await post(headersOnly)).json()).toEqual({
      received: [{ kind: "complaint", effect: "unsubscribed" }],
    });
    // Neither token in the mail, but its envelope sender in the report's Original-Mail-From.
    const ivy = await welcomeTo("ivy@example.com");
    const byMailFrom = rfc5965Report(storedMail(ivy, null, ["list-unsubscribe"]), {
      originalMailFrom: ivy.envelope.from,
    });
    expect(await (await post(byMailFrom)).json()).toEqual({
      received: [{ kind: "complaint", effect: "unsubscribed" }],
    });
    // The same shape naming a reader, but with neither token of ours.
    const hal = await welcomeTo("hal@example.com");
    const tokenless = rfc5965Report(storedMail(hal, null, ["list-unsubscribe"]), {
      originalRcptTo: "hal@example.com",
    });
    expect(await (await post(tokenless)).json()).toEqual({ received: [], ignored: expect.any(String) });
    expect(await statusOf("hal@example.com")).toEqual({ status: "confirmed", reason: null });
  });
});

describe("the local outbox", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack("PGlite", MAIL_EVENTS_ENV);
  });
  afterAll(() => stack?.close());

  it("writes a confirmation's envelope sender as the .eml's Return-Path, a token that names its reader", async () => {
    expect((await stack.post("send-confirmation", { email: "ann@example.com" })).status).toBe(200);
    await stack.drainMail();
    const [file] = readdirSync(stack.outbox).filter((name) => name.endsWith(".eml"));
    const eml = readFileSync(path.join(stack.outbox, file), "utf8");
    const returnPath = /^Return-Path: <([^>]+)>\n/.exec(eml)?.[1];
    expect(returnPath).toMatch(VERP);
    expect(returnPath).toBe(await bounceAddressOf(stack.server.db, "ann@example.com", "confirmation"));
    expect(returnPath).not.toBe(await bounceAddressOf(stack.server.db, "ann@example.com", "effect"));
  });
});
