/**
 * A reader's rights through `npm run subscribers` as the owner runs it, on PGlite (the running
 * local stack answering over its operator socket) and on PostgreSQL (DATABASE_URL): `show` prints
 * the reader's row with its consent history and first source, its mail, its Effect deliveries and
 * its bounces; `forget` leaves the address in no text column of any table, keeps its keyed hash,
 * and a new signup of the address still gets its confirmation mail.
 */
import { execFile } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { dayIn } from "../../supabase/functions/_shared/contract/calendar-day.ts";
import { createDeliveryStore } from "../../supabase/functions/_shared/effect-sending/delivery-store.ts";
import { variable } from "../../supabase/functions/_shared/contract/variables.ts";
import { forEachBackend } from "../../test/support/backends.ts";
import {
  contentIdentity,
  fixtureEdition,
  publishEdition,
  publishLatest,
} from "../../test/support/effect-fixtures.ts";
import { MAIL_EVENTS_ENV, resendBounce, resendEvent } from "../../test/support/mail-events.ts";
import { linkIn, mailsTo, waitForMailsTo } from "../../test/support/outbox.ts";
import { SIGNED_UP_ON_AN_EFFECT } from "../../test/support/signup-source.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";
import { parseCommand, subscribersCommandFromJson } from "../../server/subscriber-commands.ts";
import { typeScript } from "../../test/support/process.ts";

const ROOT = path.resolve(__dirname, "../..");
const execFileAsync = promisify(execFile);

/** The reader who asks: signed up with a source, confirmed, welcomed, then bounced. */
const READER = "Ann.Reader@Example.com";
const OTHER = "other.reader@example.com";

forEachBackend("a reader's rights on %s", (backend, serverUrl) => {
  let stack: TestStack;
  let publicDir: string;
  let env: Record<string, string>;
  const today = dayIn(contentIdentity().timeZone, new Date());

  beforeAll(async () => {
    publicDir = mkdtempSync(path.join(tmpdir(), "rights-public-"));
    publishEdition(publicDir, fixtureEdition(today));
    publishLatest(publicDir, today);
    stack = await startTestStack(backend, { ...MAIL_EVENTS_ENV, PUBLIC_DIR: publicDir }, serverUrl);
    env = {
      DATA_DIR: stack.dataDir,
      ...(stack.database ? { DATABASE_URL: stack.database.url } : {}),
    };
    for (const email of [READER, OTHER]) {
      expect((await stack.post("send-confirmation", { email, ...SIGNED_UP_ON_AN_EFFECT })).status).toBe(200);
      const [mail] = await waitForMailsTo(stack.outbox, email);
      const token = linkIn(mail, "confirm").searchParams.get("confirm");
      expect((await stack.post("confirm-subscription", { token })).status).toBe(200);
      await waitForMailsTo(stack.outbox, email, 2);
    }
    const bounce = await resendEvent(resendBounce(READER.toLowerCase()));
    const answer = await fetch(`${stack.url}/functions/v1/mail-events/resend`, {
      method: "POST",
      headers: bounce.headers,
      body: bounce.body,
    });
    expect(await answer.json()).toEqual({ received: [{ kind: "bounce", effect: "suppressed" }] });
  });
  afterAll(async () => {
    await stack?.close();
    rmSync(publicDir, { recursive: true, force: true });
  });

  /** As the owner runs it: another process, beside the running stack. */
  const cli = (args: string[]) =>
    execFileAsync(process.execPath, typeScript("scripts/subscribers.ts", ...args), {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });

  /** Every text column of every table, and how many of its values hold `needle` (any case). */
  async function traces(needle: string): Promise<string[]> {
    const columns = await stack.server.db.query<{ table_name: string; column_name: string }>(
      `select table_name, column_name from information_schema.columns
       where table_schema = 'public' and data_type in ('text', 'character varying', 'jsonb', 'json')
       order by 1, 2`,
    );
    expect(columns.length).toBeGreaterThan(10);
    const found: string[] = [];
    for (const { table_name, column_name } of columns) {
      const [row] = await stack.server.db.query<{ n: number }>(
        `select count(*)::int as n from "${table_name}"
         where position($1 in "${column_name}"::text) > 0 or position(lower($1) in lower("${column_name}"::text)) > 0`,
        [needle],
      );
      if (Number(row.n) > 0) found.push(`${table_name}.${column_name}: ${row.n}`);
    }
    return found;
  }

  it("shows everything kept about one address: consent, source, mail, deliveries, events", async () => {
    const { stdout } = await cli(["show", READER.toLowerCase()]);
    if (backend === "PGlite") expect(stdout).toContain("(the running local stack)");
    expect(stdout).toContain(`Everything kept about ${READER.toLowerCase()}`);
    // The row: status times, consent history and where the reader came from.
    expect(stdout).toMatch(/email\s+Ann\.Reader@example\.com\n/);
    expect(stdout).toMatch(/status\s+confirmed\n/);
    for (const column of ["signed_up_at", "confirmed_at", "consent_at", "undeliverable_at"])
      expect(stdout).toMatch(new RegExp(`${column}\\s+\\d{4}-\\d\\d-\\d\\dT`));
    expect(stdout).toMatch(/consent_source\s+http/);
    for (const [column, value] of Object.entries(SIGNED_UP_ON_AN_EFFECT))
      expect(stdout).toMatch(new RegExp(`${column}\\s+${value.replace(/[.?/]/g, "\\$&")}\\n`));
    expect(stdout).toContain("(a hash of the link's token)");
    // The mails sent, the Effect delivered with the welcome, the bounce.
    expect(stdout).toMatch(/Confirmation, reminder and welcome mail \(mail_jobs\): [2-9]/);
    expect(stdout).toMatch(/kind\s+confirmation\n/);
    expect(stdout).toMatch(/kind\s+welcome\n/);
    expect(stdout).toMatch(/Effects of the Day \(effect_deliveries\): 1\n/);
    expect(stdout).toMatch(new RegExp(`edition_date\\s+${today}\\n`));
    expect(stdout).toMatch(/Bounces and complaints \(mail_events\): 1\n/);
    expect(stdout).toMatch(/kind\s+bounce\n/);
    expect(stdout).toMatch(/detail\s+.*550 5\.1\.1 user unknown/);
    expect(stdout).toContain("Forgotten (forgotten_readers): no");
    expect(stdout).not.toContain(OTHER);
  });

  it("says so, and fails, for an address nothing is kept about", async () => {
    await expect(cli(["show", "nobody@example.com"])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("Nothing is kept about nobody@example.com"),
    });
  });

  it("refuses forget without the one exact address, and changes nothing", async () => {
    for (const args of [["forget"], ["forget", "ann"], ["forget", "Ann.Reader@"], ["forget", READER, OTHER]])
      expect(() => parseCommand(args)).toThrow(/exact address|one address/);
    expect(() => subscribersCommandFromJson({ action: "forget" })).toThrow(/exact address/);
    expect(() => subscribersCommandFromJson({ action: "forget", email: READER, status: "x" })).toThrow(
      'Unknown field "status".',
    );
    await expect(cli(["forget", "ann.reader"])).rejects.toMatchObject({ code: 2 });
    expect(await traces(READER)).not.toEqual([]);
  });

  /** The day's Effect as `effect status` counts it: deliveries by state, and the mail events. */
  const deliveryCounts = async () => {
    const status = await createDeliveryStore(stack.server.db).status(today);
    return { sent: status?.counts.sent, failed: status?.counts.failed, events: status?.events };
  };

  it("forgets the address in every table, keeps its keyed hash, and keeps the others", async () => {
    const countsBefore = await deliveryCounts();
    expect(countsBefore).toMatchObject({ sent: 2, failed: 0, events: { bounced: 1 } });
    const { stdout } = await cli(["forget", READER]);
    expect(stdout).toContain(`Forgot ${READER.replace("Example", "example")}`);
    expect(stdout).toMatch(/subscribers\s+1\n/);
    expect(stdout).toMatch(/mail_jobs\s+[2-9]\n/);
    expect(stdout).toMatch(/effect_deliveries\s+1\n/);
    expect(stdout).toMatch(/effect_unsubscribe_tokens\s+\d\n/);
    expect(stdout).toMatch(/mail_events\s+1\n/);
    expect(stdout).toMatch(/mailbox_mail_limits\s+1\n/);
    expect(stdout).toContain("FORGET_HASH_KEY is not set");

    expect(await traces(READER)).toEqual([]);
    expect(await traces(READER.toLowerCase())).toEqual([]);
    expect(await traces("ann.reader")).toEqual([]);
    const [event] = await stack.server.db.query(`select subscriber_id, detail, kind from mail_events`);
    expect(event).toEqual({ subscriber_id: null, detail: null, kind: "bounce" });
    // The Effect sent to the reader and its bounce stay counted, without the reader.
    expect(stdout).toContain("the Effects sent stay counted for their edition");
    expect(await deliveryCounts()).toEqual(countsBefore);
    expect(
      await stack.server.db.query(
        `select status, recipient, last_error from effect_deliveries where subscriber_id is null`,
      ),
    ).toEqual([{ status: "sent", recipient: null, last_error: null }]);

    const hash = createHmac("sha256", variable("FORGET_HASH_KEY").default as string)
      .update(READER.toLowerCase())
      .digest("hex");
    expect(await stack.server.db.query(`select email_hash from forgotten_readers`)).toEqual([
      { email_hash: hash },
    ]);
    expect((await cli(["show", READER])).stdout).toMatch(
      /The reader \(subscribers\): no row[^]*Forgotten \(forgotten_readers\): its keyed hash is kept since \d{4}-/,
    );
    // The other reader is untouched.
    expect((await cli(["show", OTHER])).stdout).toMatch(/status\s+confirmed\n/);
  });

  it("forgets an address it never held by keeping its hash alone", async () => {
    const { stdout } = await cli(["forget", "never@example.com"]);
    expect(stdout).toContain("Nothing was kept about never@example.com");
    expect(stdout).toContain("Kept: a keyed hash of the address");
    expect(await stack.server.db.query(`select count(*)::int as n from forgotten_readers`)).toEqual([
      { n: 2 },
    ]);
  });

  it("still takes a new signup of the forgotten address, with a new confirmation mail", async () => {
    const before = (await mailsTo(stack.outbox, READER)).length;
    expect((await stack.post("send-confirmation", { email: READER })).status).toBe(200);
    const mails = await waitForMailsTo(stack.outbox, READER, before + 1);
    expect(mails.at(-1)?.subject).toMatch(/confirm/i);
    const [row] = await stack.server.db.query(
      `select status, signup_form from subscribers where lower(email) = lower($1)`,
      [READER],
    );
    expect(row).toEqual({ status: "pending", signup_form: null });
    // The hash stays: only an import asks for it.
    expect(await stack.server.db.query(`select count(*)::int as n from forgotten_readers`)).toEqual([
      { n: 2 },
    ]);
  });
});
