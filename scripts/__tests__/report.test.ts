/**
 * `npm run report` as the owner runs it, on PGlite (beside the running local stack, and with it
 * stopped) and on PostgreSQL (DATABASE_URL): a list with a year of history (signups from many
 * sources, unsubscribes, bounces, complaints, readers who came back, an Effect every three weeks)
 * and today's Effect sent by the real sender, then left by one reader's own link, reported as spam
 * by another and bounced by a third through the real routes. The numbers match
 * `npm run subscribers -- export` day by day and source by source; the page shows the same ones,
 * loads nothing, passes axe and fits a phone and a wide screen.
 */
import AxeBuilder from "@axe-core/playwright";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Browser } from "playwright-core";
import { dayIn, startOfDay } from "../../supabase/functions/_shared/contract/calendar-day.ts";
import type { EffectSending } from "../../supabase/functions/_shared/effect-sending/effect-sending.ts";
import type { OwnerReport } from "../../supabase/functions/_shared/report/report.ts";
import { addDays } from "../../supabase/functions/_shared/report/growth.ts";
import { createPostgresExecutor } from "../../supabase/functions/_shared/db/postgres-executor.ts";
import { forEachBackend } from "../../test/support/backends.ts";
import { testBrowserAvailable, launchTestBrowser, VIEWPORTS } from "../../test/support/browser.ts";
import { createTestDatabase, testPostgresUrl } from "../../test/support/databases.ts";
import {
  contentIdentity,
  fixtureEdition,
  publishEdition,
  publishLatest,
} from "../../test/support/effect-fixtures.ts";
import { csvRows } from "../../test/support/export-csv.ts";
import {
  MAIL_EVENTS_ENV,
  resendBounce,
  resendComplaint,
  resendEvent,
} from "../../test/support/mail-events.ts";
import { linkIn, readOutbox, recipients, waitForMailsTo } from "../../test/support/outbox.ts";
import { seedReportList, type SeededList } from "../../test/support/report-seed.ts";
import { SIGNED_UP_ON_AN_EFFECT } from "../../test/support/signup-source.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";
import { parseReportCommand } from "../../server/report-command.ts";
import { run as subscribers } from "../subscribers.ts";
import { run as report } from "../report.ts";
import { typeScript } from "../../test/support/process.ts";

const ROOT = path.resolve(__dirname, "../..");
const execFileAsync = promisify(execFile);
const { timeZone, newsletterName } = contentIdentity();
/** A reader who signs up through the site's real path today, from the campaign. */
const NEW_READER = "campaign.reader@example.com";

type ExportRow = Record<string, string>;
type Counts = { joined: number; unsubscribed: number; bounced: number; complained: number; listSize: number };
const zero = (): Counts => ({ joined: 0, unsubscribed: 0, bounced: 0, complained: 0, listSize: 0 });

/** The export's rows as column → cell. */
function exportRows(csv: string): ExportRow[] {
  const [header, ...rows] = csvRows(csv);
  return rows.map((cells) => Object.fromEntries(header.map((column, index) => [column, cells[index]])));
}

/** A row's source, by the rule the report's page states (written again here, from the export's columns). */
function sourceOf(row: ExportRow): string {
  const imported = /^import:[a-z0-9_-]+/.exec(row.consent_source.toLowerCase());
  if (imported) return imported[0];
  if (row.utm_source) return row.utm_source.toLowerCase();
  if (row.referrer_host) return row.referrer_host.replace(/^www\./, "");
  if (row.signup_form) return `form:${row.signup_form}`;
  return "unknown";
}

/**
 * The series worked out from the export alone: each confirmed row joined on its confirmation's
 * day and left on the day of the first of its unsubscribe (a complaint when its reason says so)
 * and its suppression after that confirmation. By day, and by source over the whole range.
 */
function seriesFromExport(rows: ExportRow[], from: string, to: string) {
  const days = new Map<string, Counts>();
  for (let day = from; day <= to; day = addDays(day, 1)) days.set(day, zero());
  const bySource = new Map<string, Counts>();
  let startSize = 0;
  for (const row of rows) {
    if (!row.confirmed_at) continue;
    const confirmed = new Date(row.confirmed_at);
    const unsubscribed =
      row.unsubscribed_at && new Date(row.unsubscribed_at) >= confirmed
        ? new Date(row.unsubscribed_at)
        : null;
    const bounced = row.suppressed_at ? new Date(row.suppressed_at) : null;
    const left =
      unsubscribed && (!bounced || unsubscribed <= bounced)
        ? { at: unsubscribed, how: row.unsubscribe_reason === "complaint" ? "complained" : "unsubscribed" }
        : bounced
          ? { at: bounced, how: "bounced" }
          : null;
    const source = sourceOf(row);
    if (!bySource.has(source)) bySource.set(source, zero());
    const totals = bySource.get(source) as Counts;
    const joinedDay = dayIn(timeZone, confirmed);
    const leftDay = left ? dayIn(timeZone, left.at) : null;
    if (joinedDay < from && (!leftDay || leftDay >= from)) startSize++;
    if (joinedDay >= from && joinedDay <= to) {
      (days.get(joinedDay) as Counts).joined++;
      totals.joined++;
    }
    if (left && leftDay && leftDay >= from && leftDay <= to) {
      const how = left.how as "unsubscribed" | "bounced" | "complained";
      (days.get(leftDay) as Counts)[how]++;
      totals[how]++;
    }
    if (joinedDay <= to && (!leftDay || leftDay > to)) totals.listSize++;
  }
  let size = startSize;
  for (const counts of days.values()) {
    size += counts.joined - counts.unsubscribed - counts.bounced - counts.complained;
    counts.listSize = size;
  }
  return { days, bySource, startSize };
}

const postMailEvent = async (stack: TestStack, payload: object) => {
  const event = await resendEvent(payload);
  const answer = await fetch(`${stack.url}/functions/v1/mail-events/resend`, {
    method: "POST",
    headers: event.headers,
    body: event.body,
  });
  return answer.json();
};

forEachBackend("npm run report on %s", (backend, serverUrl) => {
  let stack: TestStack;
  let publicDir: string;
  let env: Record<string, string>;
  let seeded: SeededList;
  /** Today's recipients who leave: by the Effect's own link, by a complaint, by a bounce. */
  let leaving: { link: string; complaint: string; bounce: string };
  const today = dayIn(timeZone, new Date());

  beforeAll(async () => {
    publicDir = mkdtempSync(path.join(tmpdir(), "report-public-"));
    publishEdition(publicDir, fixtureEdition(today));
    publishLatest(publicDir, today);
    stack = await startTestStack(
      backend,
      { ...MAIL_EVENTS_ENV, PUBLIC_DIR: publicDir, MAIL_RATE_PER_SECOND: "0" },
      serverUrl,
    );
    env = { DATA_DIR: stack.dataDir, ...(stack.database ? { DATABASE_URL: stack.database.url } : {}) };
    seeded = await seedReportList(stack.server.db, { now: new Date(), timeZone });

    // A reader from the campaign, through the site's signup and confirmation (and welcome).
    expect(
      (await stack.post("send-confirmation", { email: NEW_READER, ...SIGNED_UP_ON_AN_EFFECT })).status,
    ).toBe(200);
    const [confirmation] = await waitForMailsTo(stack.outbox, NEW_READER);
    const token = linkIn(confirmation, "confirm").searchParams.get("confirm");
    expect((await stack.post("confirm-subscription", { token })).status).toBe(200);
    await waitForMailsTo(stack.outbox, NEW_READER, 2);

    // Today's Effect to the whole list, by the real sender into the outbox.
    const sent = await (stack.server.backend.effects as EffectSending).send(today, { retryUnknown: false });
    expect(sent.run.sent).toBeGreaterThan(100);
    const mails = (await readOutbox(stack.outbox)).filter((mail) => mail.subject?.includes("Small & steady"));
    const [link, complaint, bounce] = mails
      .flatMap(recipients)
      .filter((address) => address.startsWith("seeded"))
      .sort();
    leaving = { link, complaint, bounce };
    const effectMail = mails.find((mail) => recipients(mail).includes(link));
    const unsubscribe = linkIn(effectMail as NonNullable<typeof effectMail>, "unsubscribe").searchParams.get(
      "unsubscribe",
    );
    expect((await stack.post("unsubscribe", { token: unsubscribe })).status).toBe(200);
    expect(await postMailEvent(stack, resendComplaint(complaint))).toEqual({
      received: [{ kind: "complaint", effect: "unsubscribed" }],
    });
    expect(await postMailEvent(stack, resendBounce(bounce))).toEqual({
      received: [{ kind: "bounce", effect: "suppressed" }],
    });
  });
  afterAll(async () => {
    await stack?.close();
    rmSync(publicDir, { recursive: true, force: true });
  });

  /** The report's numbers, as `npm run report -- --json` prints them (the default range's read once). */
  let year: Promise<OwnerReport> | undefined;
  const numbers = async (args: string[] = []) =>
    args.length === 0
      ? (year ??= report(["--json"], env).then((text) => JSON.parse(text) as OwnerReport))
      : (JSON.parse(await report(["--json", ...args], env)) as OwnerReport);
  let rows: Promise<ExportRow[]> | undefined;
  const exported = () => (rows ??= subscribers(["export"], env).then(exportRows));

  it("prints the numbers as JSON (on PGlite through the running stack), for the last 365 days", async () => {
    // As the owner runs it: another process.
    const { stdout } = await execFileAsync(process.execPath, typeScript("scripts/report.ts", "--json"), {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    const { series } = JSON.parse(stdout) as OwnerReport;
    if (backend === "PGlite") expect(stack.logs.join("\n")).toContain("report (from npm run report)");
    // Today in the brand's time zone (the day may have turned since the list was made).
    expect([today, dayIn(timeZone, new Date())]).toContain(series.to);
    expect(series.from).toBe(addDays(series.to, -364));
    expect(series.timeZone).toBe(timeZone);
    // Every day, once, in order: no day missing.
    expect(series.days.map((day) => day.day)).toEqual(
      Array.from({ length: 365 }, (_, index) => addDays(series.from, index)),
    );
  });

  it("counts as the export does: the list's size, who joined and who left, day by day", async () => {
    const { series } = await numbers();
    const rows = await exported();
    // The list's size today is the export's confirmed rows that are not suppressed.
    const onTheList = rows.filter((row) => row.status === "confirmed" && row.suppressed_at === "");
    expect(series.totals.listSize).toBe(onTheList.length);
    expect(series.days[series.days.length - 1].listSize).toBe(onTheList.length);
    // Who joined: the confirmed rows whose confirmation falls in the range's days.
    const start = startOfDay(series.from, timeZone);
    const end = startOfDay(addDays(series.to, 1), timeZone);
    const joined = rows.filter(
      (row) => row.confirmed_at && new Date(row.confirmed_at) >= start && new Date(row.confirmed_at) < end,
    );
    expect(series.totals.joined).toBe(joined.length);
    expect(series.totals.joined).toBeGreaterThan(250);
    // Each day, from the export's times alone.
    const expected = seriesFromExport(rows, series.from, series.to);
    expect(series.startSize).toBe(expected.startSize);
    expect(series.days.map(({ bySource: _bySource, ...counts }) => counts)).toEqual(
      [...expected.days].map(([day, counts]) => ({ day, ...counts })),
    );
    // Today: the three readers the real routes lost, each counted once, as how they left.
    const last = series.days[series.days.length - 1];
    expect(last.unsubscribed).toBeGreaterThanOrEqual(1);
    expect(last.complained).toBeGreaterThanOrEqual(1);
    expect(last.bounced).toBeGreaterThanOrEqual(1);
    expect(series.cameBack).toBe(
      rows.filter((row) => row.unsubscribed_at && row.confirmed_at && row.unsubscribed_at < row.confirmed_at)
        .length,
    );
  });

  it("splits every number by source, the long tail as other", async () => {
    const { series } = await numbers();
    const expected = seriesFromExport(await exported(), series.from, series.to).bySource;
    expect(series.sources).toContain("podcast");
    expect(series.sources).toContain("youtube.com");
    expect(series.sources).toContain("import:mailchimp");
    expect(series.sources).toContain("form:dialog");
    expect(series.sources[series.sources.length - 1]).toBe("other");
    const named = series.sources.filter((source) => source !== "other");
    for (const source of named)
      expect([source, series.totals.bySource[source]]).toEqual([source, expected.get(source)]);
    const rest = zero();
    for (const [source, counts] of expected)
      if (!named.includes(source))
        for (const key of Object.keys(rest) as (keyof Counts)[]) rest[key] += counts[key];
    expect(series.totals.bySource.other).toEqual(rest);
    // Each day's sources add up to the day.
    for (const day of series.days)
      for (const key of Object.keys(rest) as (keyof Counts)[])
        expect([
          day.day,
          key,
          Object.values(day.bySource).reduce((sum, counts) => sum + counts[key], 0),
        ]).toEqual([day.day, key, day[key]]);
  });

  it("counts each Effect's mails and the readers it lost, and today's through the real routes", async () => {
    const { effects, series } = await numbers();
    const inRange = seeded.effects.filter((effect) => effect.date >= series.from);
    expect(effects.filter((effect) => effect.date !== today)).toEqual(inRange);
    const [mailed] = await stack.server.db.query<{ n: number }>(
      `select count(*)::int as n from effect_deliveries where edition_date = $1::date and status = 'sent'`,
      [today],
    );
    expect(effects.find((effect) => effect.date === today)).toEqual({
      date: today,
      subject: `${newsletterName}: Small & steady <${today}>`,
      mailed: Number(mailed.n),
      bounced: 1,
      complained: 1,
      unsubscribed: 1,
      lost: 3,
    });
    // The reader who used the Effect's own link is recorded as leaving by it.
    const [row] = await stack.server.db.query<{ edition: string; reason: string }>(
      `select to_char(unsubscribe_edition_date, 'YYYY-MM-DD') as edition, unsubscribe_reason as reason
       from subscribers where email = $1`,
      [leaving.link],
    );
    expect(row).toEqual({ edition: today, reason: "link" });
  });

  it("covers the days asked for, and refuses days that cannot be", async () => {
    const from = addDays(today, -29);
    const { series, effects } = await numbers(["--from", from, "--to", today]);
    expect(series.days).toHaveLength(30);
    expect(series.days[0].day).toBe(from);
    const year = await numbers(["--to", today]);
    expect(series.days).toEqual(
      year.series.days.slice(-30).map((day) => ({ ...day, bySource: expect.any(Object) })),
    );
    expect(effects.every((effect) => effect.date >= from)).toBe(true);
    await expect(numbers(["--to", addDays(today, 1)])).rejects.toThrow(/is after today/);
  });

  if (backend === "PGlite")
    it("reads the PGlite folder itself once the stack is stopped, and gives the same numbers", async () => {
      const before = await numbers();
      await stack.server.close();
      const after = JSON.parse(await report(["--json"], env)) as OwnerReport;
      expect(after.series).toEqual(before.series);
      expect(after.effects).toEqual(before.effects);
    });
});

describe("the report's page", () => {
  let stack: TestStack;
  let browser: Browser | undefined;
  let html: string;
  let json: OwnerReport;
  let exportCsv: string;
  const shots = path.join(tmpdir(), "report-screenshots");

  beforeAll(async () => {
    stack = await startTestStack("PGlite");
    await seedReportList(stack.server.db, { now: new Date(), timeZone });
    await stack.server.close();
    const env = { DATA_DIR: stack.dataDir };
    const file = path.join(stack.dataDir, "report.html");
    expect(await report(["--output", file], env)).toBe(`${file}\n`);
    html = readFileSync(file, "utf8");
    json = JSON.parse(await report(["--json"], env)) as OwnerReport;
    exportCsv = await subscribers(["export"], env);
    if (testBrowserAvailable()) browser = await launchTestBrowser();
    mkdirSync(shots, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it("is one file that loads nothing: no script, stylesheet, font or picture from anywhere", () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link/i);
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toMatch(/@import/i);
    expect(html).not.toMatch(/\b(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/url\(\s*["']?(https?:)?\/\//i);
    // Its display face is inlined; the charts are inline SVG.
    expect(html).toContain("url(data:font/woff2;base64,");
    expect(html.match(/<svg /g)?.length).toBeGreaterThanOrEqual(8);
  });

  const describeInBrowser = testBrowserAvailable() ? describe : describe.skip;
  describeInBrowser("in Chromium", () => {
    const open = async (viewport: { width: number; height: number }) => {
      const context = await (browser as Browser).newContext({ viewport });
      const page = await context.newPage();
      const requests: string[] = [];
      page.on("request", (request) => requests.push(request.url()));
      await page.setContent(html);
      return { page, requests, close: () => context.close() };
    };

    it.each(Object.entries(VIEWPORTS))(
      "fits the %s screen without sideways scrolling, and passes axe",
      async (name, viewport) => {
        const { page, requests, close } = await open(viewport);
        try {
          const width = await page.evaluate(() => document.documentElement.scrollWidth);
          expect(width).toBeLessThanOrEqual(viewport.width);
          const { violations } = await new AxeBuilder({ page }).analyze();
          expect(
            violations.flatMap((violation) =>
              violation.nodes.map((node) => `${violation.id}: ${node.target.join(" ")}: ${violation.help}`),
            ),
          ).toEqual([]);
          // Each chart has a name, and the drawing for the other width is hidden.
          const charts = page.locator("svg[role=img]:visible");
          expect(await charts.count()).toBe(4);
          for (const label of await charts.evaluateAll((svgs) =>
            svgs.map((svg) => svg.getAttribute("aria-label")),
          ))
            expect(label).toMatch(/\w{4}/);
          expect(requests.filter((url) => !url.startsWith("about:") && !url.startsWith("data:"))).toEqual([]);
          await page.screenshot({ path: path.join(shots, `report-${name}.png`), fullPage: true });
        } finally {
          await close();
        }
      },
    );

    it("shows the numbers of --json and of the export: headline, sources, Effects", async () => {
      const { page, close } = await open(VIEWPORTS.desktop);
      try {
        const rows = exportRows(exportCsv);
        const onTheList = rows.filter((row) => row.status === "confirmed" && row.suppressed_at === "").length;
        const stat = (label: string) =>
          page
            .locator(".stat", { has: page.locator("dt", { hasText: label }) })
            .locator(".value")
            .innerText();
        expect(await stat("Readers on the list")).toBe(onTheList.toLocaleString("en-US"));
        expect(await stat("Unsubscribed")).toBe(String(json.series.totals.unsubscribed));
        expect(await stat("Bounced")).toBe(String(json.series.totals.bounced));
        expect(await stat("Complained")).toBe(String(json.series.totals.complained));
        const week = json.series.days.slice(-7);
        const net = week[week.length - 1].listSize - json.series.days[json.series.days.length - 8].listSize;
        expect(await stat("Last 7 days")).toBe(net > 0 ? `+${net}` : net < 0 ? `−${-net}` : "0");

        /** A table's body as text, found by its caption as a screen reader finds it. */
        const tableRows = (caption: string) =>
          page
            .getByRole("table", { name: caption, includeHidden: true })
            .locator("tbody tr")
            .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent ?? "")));
        const sources = await tableRows(
          "Top sources: readers who joined and left in the range, and on the list at its end",
        );
        expect(sources).toEqual(
          json.series.sources.map((source) => {
            const counts = json.series.totals.bySource[source];
            return [
              source,
              ...[counts.joined, counts.unsubscribed, counts.bounced, counts.complained, counts.listSize].map(
                String,
              ),
            ];
          }),
        );
        const every = await tableRows("Each Effect: readers mailed, and those it lost");
        expect(every).toHaveLength(json.effects.length);
        const newest = json.effects[json.effects.length - 1];
        expect(every[0].slice(1)).toEqual(
          [newest.mailed, newest.bounced, newest.complained, newest.unsubscribed, newest.lost].map(String),
        );
        expect(every[0][0]).toContain(newest.subject.replace(`${newsletterName}: `, ""));
        // The Effects that lost the most, most first.
        const losers = await tableRows("The Effects that lost the most readers");
        const lost = losers.map((row) => Number(row[2]));
        expect(lost).toEqual([...lost].sort((a, b) => b - a));
        expect(lost[0]).toBe(Math.max(...json.effects.map((effect) => effect.lost)));
        // The daily table: every day of the range, its last row today's size.
        const daily = await tableRows("Readers who joined and left each day, and the list's size at its end");
        expect(daily).toHaveLength(365);
        expect(daily[0][5]).toBe(onTheList.toLocaleString("en-US"));
      } finally {
        await close();
      }
    });
  });
});

describe("npm run report's command line", () => {
  it("refuses a day that is not one, a range backwards, and anything it does not know", () => {
    expect(() => parseReportCommand(["--from", "2026-02-30"])).toThrow(
      '--from must be a day written YYYY-MM-DD (got "2026-02-30").',
    );
    expect(() => parseReportCommand(["--to", "yesterday"])).toThrow(/--to must be a day/);
    expect(() => parseReportCommand(["--from", "2026-05-02", "--to", "2026-05-01"])).toThrow(
      "--from 2026-05-02 is after --to 2026-05-01.",
    );
    expect(() => parseReportCommand(["--top", "5"])).toThrow(/Unknown option '--top'/);
    expect(() => parseReportCommand(["html"])).toThrow(/Unexpected argument 'html'/);
    expect(() => parseReportCommand(["--output="])).toThrow("--output needs a file name.");
    expect(parseReportCommand(["--json", "--from", "2026-01-01"])).toEqual({
      json: true,
      from: "2026-01-01",
    });
  });

  it("exits with 2 and says how to use it", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "report-usage-"));
    try {
      await expect(
        execFileAsync("npm", ["run", "--silent", "report", "--", "--from", "2026-13-01"], {
          cwd: ROOT,
          env: { ...process.env, DATA_DIR: dataDir },
        }),
      ).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringMatching(
          /--from must be a day written YYYY-MM-DD[\s\S]*Usage:\n {2}npm run report/,
        ),
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

const postgresServer = testPostgresUrl();
(postgresServer ? it : it.skip)(
  "never migrates a PostgreSQL database: one that lacks a migration is refused",
  async () => {
    const database = await createTestDatabase(postgresServer as string);
    const db = createPostgresExecutor(database.url);
    const dataDir = mkdtempSync(path.join(tmpdir(), "report-pg-"));
    try {
      await expect(report(["--json"], { DATABASE_URL: database.url, DATA_DIR: dataDir })).rejects.toThrow(
        /lacks the migrations 20261122000000_subscribers\.sql/,
      );
      expect(
        await db.query("select table_name from information_schema.tables where table_schema = 'public'"),
      ).toEqual([]);
    } finally {
      await db.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);
