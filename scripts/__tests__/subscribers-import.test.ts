/**
 * `npm run subscribers -- import FILE --from PROVIDER` as the owner runs it, one export per
 * provider in its documented format (__fixtures__/imports: a BOM, CRLF, quoted commas and line
 * breaks, duplicates in other letter cases, rows that are not addresses, unsubscribed, cleaned,
 * bounced and complained rows), on each database: PGlite (the running local stack answering over
 * its operator socket), PostgreSQL (DATABASE_URL) and the database of the functions' Deno host.
 * What the owner notices: the summary, `subscribers export` afterwards (statuses, consent, the
 * file and time of the import), a second run changing nothing, no mail without --welcome and one
 * welcome per new reader with it, readers already on the list keeping their own word, a forgotten
 * address left out, and the functions treating the imported rows as any.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { dayIn } from "../../supabase/functions/_shared/contract/calendar-day.ts";
import { forEachBackend } from "../../test/support/backends.ts";
import {
  contentIdentity,
  fixtureEdition,
  publishEdition,
  publishLatest,
} from "../../test/support/effect-fixtures.ts";
import { exportedRow } from "../../test/support/export-csv.ts";
import { linkIn, mailsTo, waitForMailsTo } from "../../test/support/outbox.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";
import { subscribersText } from "../../server/subscriber-commands.ts";
import { run } from "../subscribers.ts";
import { typeScript } from "../../test/support/process.ts";

const ROOT = path.resolve(__dirname, "../..");
const FIXTURES = path.join(__dirname, "__fixtures__", "imports");
const execFileAsync = promisify(execFile);

/** `npm run subscribers` in another process, as the owner runs it. */
const cli = (args: string[], env: Record<string, string>) =>
  execFileAsync(process.execPath, typeScript("scripts/subscribers.ts", ...args), {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });

const MAILCHIMP = {
  subscribed: "subscribed_members_export_4b2c9d.csv",
  unsubscribed: "unsubscribed_members_export_4b2c9d.csv",
  cleaned: "cleaned_members_export_4b2c9d.csv",
};
const SUBSTACK = "email_list.the-purpose-effect.csv";
const KIT = "kit-subscribers.csv";
const BUTTONDOWN = "buttondown-subscribers.csv";
const GHOST = "member-export-2026-11-28.csv";

/** Readers on the list before any import: by their own click, unsubscribed by their link, waiting. */
const OWN = "own.reader@example.com";
const LEFT = "left.reader@example.com";
const WAITING = "waiting.reader@example.com";
const FORGOTTEN = "forgotten.reader@example.com";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A summary's count on the line that starts with `label`. */
function countIn(summary: string, label: string): number {
  const match = new RegExp(`^  ${label.replace(/[()]/g, "\\$&")}\\s+(\\d+)`, "m").exec(summary);
  if (!match) throw new Error(`no "${label}" in:\n${summary}`);
  return Number(match[1]);
}

/** The summary's counts, as many as `expected` names, against it (one failure shows them all). */
function expectCounts(summary: string, expected: Record<string, number>): void {
  const counts = Object.fromEntries(Object.keys(expected).map((label) => [label, countIn(summary, label)]));
  expect(counts).toEqual(expected);
}

forEachBackend("importing another provider's list on %s", { deno: true }, (backend, serverUrl) => {
  let stack: TestStack;
  let env: Record<string, string>;
  let publicDir: string;
  const today = dayIn(contentIdentity().timeZone, new Date());

  /**
   * The command as the owner runs it: on PGlite another process (the stack holds the folder and
   * answers over its socket), elsewhere in this one against DATABASE_URL.
   */
  const subscribers = async (args: string[]) =>
    backend === "PGlite" ? (await cli(args, env)).stdout : run(args, env);
  const importFile = (file: string, provider: string, ...more: string[]) =>
    subscribers(["import", path.join(FIXTURES, file), "--from", provider, ...more]);
  /** `subscribers export`'s CSV, read in this process from the stack's own database. */
  const exportCsv = () => subscribersText({ action: "export" }, stack.server.db, "test");
  const row = async (email: string) => exportedRow(await exportCsv(), email);
  const countOf = async (sql: string, params: unknown[] = []) => {
    const [result] = await stack.server.db.query<{ n: number }>(sql, params);
    return Number(result.n);
  };
  /** Mail jobs of any kind queued for `emails` (any letter case). */
  const jobsFor = (emails: string[], kind?: string) =>
    countOf(
      `select count(*)::int as n from mail_jobs where lower(recipient) = any($1::text[]) and ($2::text is null or kind = $2)`,
      [emails.map((email) => email.toLowerCase()), kind ?? null],
    );

  beforeAll(async () => {
    publicDir = mkdtempSync(path.join(tmpdir(), "import-public-"));
    publishEdition(publicDir, fixtureEdition(today));
    publishLatest(publicDir, today);
    stack = await startTestStack(backend, { PUBLIC_DIR: publicDir }, serverUrl);
    env = { DATA_DIR: stack.dataDir, ...(stack.database ? { DATABASE_URL: stack.database.url } : {}) };
    for (const email of [OWN, LEFT, WAITING])
      expect((await stack.post("send-confirmation", { email })).status).toBe(200);
    const linkTo = async (email: string, param: "confirm" | "unsubscribe") =>
      linkIn((await waitForMailsTo(stack.outbox, email))[0], param).searchParams.get(param);
    for (const email of [OWN, LEFT])
      expect(
        (await stack.post("confirm-subscription", { token: await linkTo(email, "confirm") })).status,
      ).toBe(200);
    expect((await stack.post("unsubscribe", { token: await linkTo(LEFT, "unsubscribe") })).status).toBe(200);
    await stack.drainMail();
    expect(await subscribers(["forget", FORGOTTEN])).toContain("Kept: a keyed hash of the address");
  });
  afterAll(async () => {
    await stack?.close();
    rmSync(publicDir, { recursive: true, force: true });
  });

  describe("Mailchimp's subscribed, unsubscribed and cleaned files", () => {
    const summaries: Record<string, string> = {};
    beforeAll(async () => {
      for (const [kind, file] of Object.entries(MAILCHIMP))
        summaries[kind] = await importFile(file, "mailchimp");
    });

    it("says what it did, with the line of each row that is not an address", () => {
      const { subscribed, unsubscribed, cleaned } = summaries;
      if (backend === "PGlite") expect(subscribed).toContain("(the running local stack)");
      expect(subscribed).toContain(`Imported ${MAILCHIMP.subscribed} (Mailchimp)`);
      expect(subscribed).toContain("9 rows, 7 addresses");
      // ann, Bob, cy and the waiting signup; the own reader and the unsubscribed one stay as they
      // were; the forgotten one is skipped.
      expect(subscribed).toContain("1 of them had signed up here and were waiting for their confirmation");
      expectCounts(subscribed, {
        "new readers, confirmed": 4,
        "already on the list": 2,
        "skipped: forgotten readers": 1,
        "duplicates merged": 1,
      });
      // The header is line 1; Bob's quoted note spans lines 3 and 4.
      expect(subscribed).toContain('line 7: "not-an-address" (not an address)');
      expect(subscribed).toContain("No mail was queued for anyone");
      expect(countIn(unsubscribed, "kept as never to be mailed")).toBe(3);
      expect(unsubscribed).toContain('line 6: "broken@@example.com" (not an address)');
      expectCounts(cleaned, {
        "kept as never to be mailed": 2,
        "duplicates merged": 1,
      });
      expect(cleaned).toContain('line 6: "@example.com" (not an address)');
    });

    it("confirms the subscribed with their original opt-in as consent, and the file and time of the import", async () => {
      const ann = await row("mc.ann@example.com");
      expect(ann).toMatchObject({
        status: "confirmed",
        confirmed_at: "2021-03-04T10:15:00.000Z",
        consent_source: "import:mailchimp",
        consent_at: "2021-03-04T10:15:00.000Z",
        imported_from: MAILCHIMP.subscribed,
        suppressed_at: "",
        signup_form: "",
      });
      expect(ann.imported_at).toMatch(ISO);
      // No confirmation time: the opt-in; an address as typed there, its domain lower-cased.
      expect(await row("MC.Bob@example.com")).toMatchObject({
        status: "confirmed",
        consent_at: "2020-06-01T08:00:00.000Z",
      });
      // No time at all: the import's.
      const cy = await row("mc.cy@example.com");
      expect(cy.consent_at).toBe(cy.imported_at);
      // A signup that waited for its confirmation: confirmed, its own signup's consent beside.
      expect(await row(WAITING)).toMatchObject({
        status: "confirmed",
        consent_source: "import:mailchimp",
        consent_at: "2019-09-09T09:10:00.000Z",
        pending_consent_source: expect.stringMatching(/^http/),
      });
    });

    it("keeps the unsubscribed, the complaint and the cleaned as never to be mailed", async () => {
      expect(await row("mc.eve@example.com")).toMatchObject({
        status: "unsubscribed",
        unsubscribed_at: "2023-07-07T07:07:07.000Z",
        unsubscribe_reason: "import:mailchimp",
        consent_source: "import:mailchimp",
        imported_from: MAILCHIMP.unsubscribed,
      });
      expect(await row("mc.fay@example.com")).toMatchObject({
        status: "unsubscribed",
        unsubscribe_reason: "complaint",
        complained_at: "2023-08-08T08:08:08.000Z",
      });
      for (const email of ["mc.gus@example.com", "mc.hal@example.com"]) {
        const cleaned = await row(email);
        expect(cleaned.suppressed_at).toMatch(ISO);
        expect(cleaned.suppressed_reason).toBe(
          `cleaned by Mailchimp (import:mailchimp, ${MAILCHIMP.cleaned})`,
        );
      }
    });

    it("leaves readers already on the list as they were, and the forgotten out", async () => {
      expect(await row(OWN)).toMatchObject({
        status: "confirmed",
        consent_source: expect.stringMatching(/^http/),
        imported_from: "",
      });
      expect(await row(LEFT)).toMatchObject({
        status: "unsubscribed",
        unsubscribe_reason: "link",
        imported_from: "",
      });
      expect(await exportCsv()).not.toContain(FORGOTTEN);
    });

    it("queues no mail for anyone it imported, and keeps no IP address the export carried", async () => {
      const imported = [
        "mc.ann@example.com",
        "mc.bob@example.com",
        "mc.cy@example.com",
        "mc.eve@example.com",
        "mc.gus@example.com",
      ];
      expect(await jobsFor(imported)).toBe(0);
      // The waiting signup's own confirmation and reminder are not sent any more.
      expect(
        await countOf(`select count(*)::int as n from mail_jobs where recipient = $1 and status = 'queued'`, [
          WAITING,
        ]),
      ).toBe(0);
      expect(
        await countOf(
          `select count(*)::int as n from subscribers where row_to_json(subscribers)::text ~ '(203\\.0\\.113|198\\.51\\.100|192\\.0\\.2)\\.'`,
        ),
      ).toBe(0);
    });

    it("changes nothing when the same files are imported again", async () => {
      const before = await exportCsv();
      for (const [kind, file] of Object.entries(MAILCHIMP)) {
        const again = await importFile(file, "mailchimp");
        expectCounts(again, {
          "new readers, confirmed": 0,
          "kept as never to be mailed": 0,
          "left since an earlier import": 0,
          "already on the list": { subscribed: 6, unsubscribed: 3, cleaned: 2 }[kind] as number,
        });
      }
      expect(await exportCsv()).toBe(before);
    });

    it("lets an imported reader's signup work as any: confirmed gets nothing, unsubscribed gets a link", async () => {
      expect((await stack.post("send-confirmation", { email: "mc.ann@example.com" })).status).toBe(200);
      expect((await stack.post("send-confirmation", { email: "mc.eve@example.com" })).status).toBe(200);
      await waitForMailsTo(stack.outbox, "mc.eve@example.com");
      await stack.drainMail();
      expect(await mailsTo(stack.outbox, "mc.ann@example.com")).toEqual([]);
      expect((await row("mc.eve@example.com")).status).toBe("pending");
    });
  });

  it("imports Substack's subscriber list, skipping its erasure requests", async () => {
    const summary = await importFile(SUBSTACK, "substack");
    expectCounts(summary, {
      "new readers, confirmed": 3,
      "kept as never to be mailed": 1,
      "skipped: erasure requests (Substack)": 1,
      "duplicates merged": 1,
    });
    expect(summary).toContain('line 8: "kai at example.com" (not an address)');
    // The earlier of the two signups of one address (any case) is its opt-in.
    expect(await row("ss.ida@example.com")).toMatchObject({
      status: "confirmed",
      consent_source: "import:substack",
      consent_at: "2020-05-23T18:28:09.834Z",
    });
    expect(await row("ss.kai@example.com")).toMatchObject({
      status: "unsubscribed",
      unsubscribe_reason: "import:substack",
    });
    expect(await exportCsv()).not.toContain("deletion-request.substack.com");
    expect(countIn(await importFile(SUBSTACK, "substack"), "new readers, confirmed")).toBe(0);
  });

  it("imports Kit's subscribers by their state, and never re-adds one who left elsewhere", async () => {
    const summary = await importFile(KIT, "kit");
    expectCounts(summary, {
      "new readers, confirmed": 1,
      "kept as never to be mailed": 3,
      "already on the list": 1,
      "skipped: never confirmed there (Kit: inactive)": 1,
    });
    expect(summary).toContain('line 10: "kit.nope@" (not an address)');
    expect(summary).toContain('line 11: "kit.odd@example.com" (state "paused" is not one Kit writes)');
    expect(await row("kit.jo@example.com")).toMatchObject({
      status: "confirmed",
      consent_at: "2023-01-27T11:43:55.000Z",
    });
    expect(await row("kit.kim@example.com")).toMatchObject({
      status: "unsubscribed",
      unsubscribe_reason: "import:kit",
    });
    expect((await row("kit.lou@example.com")).suppressed_reason).toBe(`bounced at Kit (import:kit, ${KIT})`);
    expect(await row("kit.max@example.com")).toMatchObject({
      status: "unsubscribed",
      unsubscribe_reason: "complaint",
    });
    // Unsubscribed in Mailchimp's file, active in Kit's: stays unsubscribed.
    expect(await row("shared.reader@example.com")).toMatchObject({
      status: "unsubscribed",
      imported_from: MAILCHIMP.unsubscribed,
    });
    expect(await exportCsv()).not.toContain("kit.ned@");
  });

  it("imports Buttondown's subscribers by their subscriber_type", async () => {
    const summary = await importFile(BUTTONDOWN, "buttondown");
    expectCounts(summary, {
      "new readers, confirmed": 2,
      "kept as never to be mailed": 3,
      "skipped: never confirmed there (Buttondown: unactivated)": 1,
    });
    expect(summary).toContain(
      'line 10: "bd.vip@example.com" (subscriber_type "vip" is not one Buttondown writes)',
    );
    expect(summary).toContain('line 11: "" (no address)');
    expect(await row("bd.oli@example.com")).toMatchObject({
      status: "confirmed",
      consent_source: "import:buttondown",
      consent_at: "2021-08-24T14:15:22.000Z",
    });
    expect(await row("bd.pam@example.com")).toMatchObject({ status: "unsubscribed" });
    expect((await row("bd.quinn@example.com")).suppressed_reason).toMatch(/^undeliverable at Buttondown/);
    expect(await row("bd.rae@example.com")).toMatchObject({ unsubscribe_reason: "complaint" });
    expect(await row("bd.tom@example.com")).toMatchObject({ status: "confirmed", utm_source: "" });
  });

  it("with --welcome, queues one welcome per new reader and nothing else (Ghost's members)", async () => {
    const summary = await importFile(GHOST, "ghost", "--welcome");
    expectCounts(summary, {
      "new readers, confirmed": 2,
      "kept as never to be mailed": 1,
      "skipped: forgotten readers": 1,
    });
    expect(summary).toContain('line 7: "gh.xia.example.com" (not an address)');
    expect(summary).toContain("Welcome mail queued for 2 readers");
    expect(await row("gh.uma@example.com")).toMatchObject({
      status: "confirmed",
      consent_source: "import:ghost",
      consent_at: "2022-10-18T06:34:08.000Z",
    });
    expect(await row("gh.val@example.com")).toMatchObject({ status: "unsubscribed" });
    for (const email of ["gh.uma@example.com", "gh.wyn@example.com"])
      expect(await jobsFor([email], "welcome")).toBe(1);
    expect(await jobsFor(["gh.val@example.com", FORGOTTEN])).toBe(0);
    expect(await jobsFor(["gh.uma@example.com", "gh.wyn@example.com"], "confirmation")).toBe(0);
    // Again, with --welcome: nobody new, no second welcome.
    expect(await importFile(GHOST, "ghost", "--welcome")).toContain("Welcome mail queued for 0 readers");
    expect(await jobsFor(["gh.uma@example.com", "gh.wyn@example.com"], "welcome")).toBe(2);
    if (backend === "Deno") return; // The Deno host reads the Effect from SITE_URL, which serves no site here.
    await stack.drainMail();
    const [welcome] = await waitForMailsTo(stack.outbox, "gh.uma@example.com");
    expect(welcome.subject).toMatch(/^Welcome to/);
    expect(await mailsTo(stack.outbox, "gh.uma@example.com")).toHaveLength(1);
    expect(await mailsTo(stack.outbox, "gh.val@example.com")).toEqual([]);
  });

  it("refuses a file whose header is another provider's, and changes nothing", async () => {
    const before = await exportCsv();
    await expect(importFile(KIT, "ghost")).rejects.toThrow(
      `${KIT} is not Ghost's subscriber export: its header lacks "email" and "subscribed_to_emails" (it has "first_name", "email_address",`,
    );
    await expect(importFile("nowhere.csv", "kit")).rejects.toThrow("nowhere.csv does not exist.");
    expect(await exportCsv()).toBe(before);
  });
});

describe("the import's command line", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "import-cli-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { DATA_DIR: dataDir, DATABASE_URL: "" };

  it("fails with a clear message for an unknown provider, a missing file or another provider's file", async () => {
    await expect(
      cli(["import", path.join(FIXTURES, KIT), "--from", "mailerlite"], env),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        '--from must be one of mailchimp, substack, kit, buttondown, ghost (got "mailerlite").',
      ),
    });
    await expect(
      cli(["import", path.join(FIXTURES, "nowhere.csv"), "--from", "kit"], env),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("nowhere.csv does not exist."),
    });
    await expect(
      cli(["import", path.join(FIXTURES, GHOST), "--from", "mailchimp"], env),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`${GHOST} is not Mailchimp's subscriber export`),
    });
  });
});
