/**
 * The owner's weekly report on PGlite and PostgreSQL, as the owner meets it: one mail a week to
 * OWNER_EMAIL with the week's numbers and its chart, however often and from however many
 * processes the schedule calls at once; a week whose sender died is sent after the lease, once; a
 * mail the transport refuses is tried ten times; `npm run report -- mail` delivers it to a real
 * SMTP server now and `preview` writes it to look at; the local stack gives it its turn by itself;
 * and without OWNER_EMAIL nothing is sent, the log says why once, and the command says what to set.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { simpleParser } from "mailparser";
import type { SqlExecutor } from "../../supabase/functions/_shared/db/sql-executor.ts";
import { createPostgresExecutor } from "../../supabase/functions/_shared/db/postgres-executor.ts";
import {
  createOwnerReportStore,
  OWNER_REPORT_MAX_ATTEMPTS,
} from "../../supabase/functions/_shared/report/owner-report-store.ts";
import type { ScheduledReport } from "../../supabase/functions/_shared/report/weekly-report.ts";
import { weekLabel } from "../../supabase/functions/_shared/report/weekly-mail.ts";
import { reportMailText } from "../../scripts/report-mail.ts";
import { forEachBackend } from "../../test/support/backends.ts";
import { createTestDatabase, type TestDatabase } from "../../test/support/databases.ts";
import { contentIdentity } from "../../test/support/effect-fixtures.ts";
import { eventually } from "../../test/support/eventually.ts";
import { clearOfWeekEnd, seedOwnerWeek, type SeededWeek } from "../../test/support/owner-week.ts";
import { pngSize } from "../../test/support/png.ts";
import { recordingLogger } from "../../test/support/recording-logger.ts";
import { createSmtpCapture, type SmtpCapture } from "../../test/support/smtp-capture.ts";
import { preparedDataDir, startTestStack, type TestStack } from "../../test/support/test-stack.ts";
import { askStack } from "../effect-operator.ts";
import { migrate } from "../migrations.ts";
import { createNodeBackend } from "../node-backend.ts";
import { createPgliteExecutor } from "../pglite-executor.ts";

const OWNER = "owner@thepurposeeffect.example";
const SITE_URL = "https://thepurposeeffect.example";
const identity = contentIdentity();
/** Due at once on any day: from Monday 00:00 the week before is due, and stays due all week. */
const SCHEDULE = { SEND_AT: "00:00", SITE_URL };

/** One database for a test, seeded with a known week, and a connection per "process". */
interface Database {
  dataDir: string;
  seeded: SeededWeek;
  /** A connection of its own (PostgreSQL), or the one PGlite (a single process's). */
  connect(): Promise<SqlExecutor>;
  /** What `npm run report` is given to find it. */
  env: Record<string, string>;
  /** Closes every connection (PGlite's too, so a command may open the folder). */
  release(): Promise<void>;
  drop(): Promise<void>;
}

forEachBackend("the owner's weekly report on %s", (backend, postgresUrl) => {
  let smtp: SmtpCapture;
  const { log, logs } = recordingLogger();
  let offsetMs = 0;
  // The longest test moves its clock 110 minutes on: each starts where that stays in one week.
  let weekOffsetMs = 0;
  const now = () => new Date(Date.now() + weekOffsetMs + offsetMs);

  beforeAll(async () => {
    smtp = await createSmtpCapture();
  });
  afterAll(() => smtp?.stop());
  beforeEach(() => {
    smtp.mails.length = 0;
    logs.length = 0;
    offsetMs = 0;
    weekOffsetMs = clearOfWeekEnd(identity.timeZone, 3 * 3_600_000);
  });

  async function freshDatabase(): Promise<Database> {
    const dataDir =
      backend === "PGlite"
        ? await preparedDataDir()
        : `${tmpdir()}/weekly-report-${process.pid}-${Date.now()}`;
    const connections: SqlExecutor[] = [];
    let database: TestDatabase | undefined;
    let connect: () => Promise<SqlExecutor>;
    if (backend === "PGlite") {
      const db = await createPgliteExecutor(path.join(dataDir, "pglite"));
      connections.push(db);
      connect = async () => db;
    } else {
      const created = await createTestDatabase(postgresUrl as string);
      database = created;
      connect = async () => {
        const db = createPostgresExecutor(created.url, { max: 2 });
        connections.push(db);
        return db;
      };
      await migrate(await connect());
    }
    const seeded = await seedOwnerWeek(await connect(), now(), identity.timeZone);
    const release = async () => {
      await Promise.all(connections.splice(0).map((db) => db.close()));
    };
    return {
      dataDir,
      seeded,
      connect,
      env: { DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url } : {}) },
      release,
      async drop() {
        await release();
        await database?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }

  /** A process that runs the schedule (as send-effect does): its own backend, on its own connection. */
  async function scheduleProcess(database: Database, env: Record<string, string> = {}) {
    const backendOfProcess = createNodeBackend(
      { ...SCHEDULE, OWNER_EMAIL: OWNER, SMTP_URL: smtp.url, ...env },
      {
        db: await database.connect(),
        log,
        identity,
        dataDir: database.dataDir,
        publicDir: path.join(database.dataDir, "no-site"),
        features: ["effect-sending"],
        now,
      },
    );
    return { report: backendOfProcess.weeklyReport(), close: () => backendOfProcess.closeMail() };
  }

  /** The one mail's parts the owner reads, checked against the seeded week. */
  async function expectTheWeeksMail(seeded: SeededWeek) {
    expect(smtp.mails).toHaveLength(1);
    const [mail] = smtp.mails;
    expect(mail.envelope.to).toEqual([OWNER]);
    expect(mail.subject).toBe(`Effect of the Day weekly report: +1 readers, ${weekLabel(seeded.week)}`);
    expect(mail.text).toContain("5 readers confirmed their subscription to Effect of the Day and 4 left.");
    expect(mail.text).toMatch(/^Readers on the list\s+13\s+12\s+\+1$/m);
    expect(mail.text).toMatch(/^podcast\s+3$/m);
    expect(mail.text).toContain(`"${seeded.effect.title}"`);
    const [chart] = mail.attachments;
    expect(chart).toMatchObject({ contentType: "image/png", contentId: "<weekly-chart>", related: true });
    expect(await pngSize(chart.content)).toEqual({ format: "png", width: 544, height: 408 });
    // mailparser puts the part the HTML names by cid: in its place: the picture is the chart.
    expect(mail.html).toContain(
      `<img src="data:image/png;base64,${chart.content.toString("base64")}" width="544"`,
    );
  }

  it("sends the week's one mail however often, and from however many processes at once, the schedule calls", async () => {
    const database = await freshDatabase();
    const processes = await Promise.all([1, 2, 3, 4].map(() => scheduleProcess(database)));
    try {
      const outcomes: ScheduledReport[] = [];
      for (let round = 0; round < 5; round++)
        outcomes.push(...(await Promise.all(processes.map((one) => one.report.sendIfDue()))));
      expect(outcomes.filter((outcome) => outcome === "sent")).toHaveLength(1);
      expect(new Set(outcomes)).toEqual(new Set(["sent", "claimed elsewhere", "already done"]));
      await expectTheWeeksMail(database.seeded);
      expect(logs.filter((line) => line.startsWith("weekly report of"))).toEqual([
        expect.stringMatching(
          / sent to o•••@thepurposeeffect\.example \(attempt 1; chart drawn in \d+ ms(, resvg loaded in \d+ ms)?\)$/,
        ),
      ]);
      expect(await createOwnerReportStore(await database.connect()).state(database.seeded.week.from)).toEqual(
        {
          state: "sent",
          attempts: 1,
        },
      );
    } finally {
      await Promise.all(processes.map((one) => one.close()));
      await database.drop();
    }
  });

  it("sends a week whose sender died after its claim once the claim is 10 minutes old, and only then", async () => {
    const database = await freshDatabase();
    const [one, two] = [await scheduleProcess(database), await scheduleProcess(database)];
    try {
      // A process claimed the week and died before its mail went.
      const store = createOwnerReportStore(await database.connect());
      expect(await store.claim(database.seeded.week.from, "dead-process", now())).toBe(1);
      expect(await one.report.sendIfDue()).toBe("claimed elsewhere");
      offsetMs = 9 * 60_000;
      expect(await one.report.sendIfDue()).toBe("claimed elsewhere");
      expect(smtp.mails).toHaveLength(0);
      offsetMs = 11 * 60_000;
      expect(await Promise.all([one.report.sendIfDue(), two.report.sendIfDue()])).toEqual(
        expect.arrayContaining(["sent", "claimed elsewhere"]),
      );
      expect(await one.report.sendIfDue()).not.toBe("sent");
      await expectTheWeeksMail(database.seeded);
      expect(logs.join("\n")).toContain("(attempt 2; chart drawn in");
    } finally {
      await Promise.all([one.close(), two.close()]);
      await database.drop();
    }
  });

  it("tries a mail the transport refuses again after 10 minutes, ten times in all, and says so", async () => {
    const database = await freshDatabase();
    const closedPort = await createSmtpCapture();
    await closedPort.stop();
    const sender = await scheduleProcess(database, { SMTP_URL: closedPort.url });
    try {
      const outcomes: ScheduledReport[] = [];
      for (let attempt = 0; attempt <= OWNER_REPORT_MAX_ATTEMPTS; attempt++) {
        offsetMs = attempt * 11 * 60_000;
        outcomes.push(await sender.report.sendIfDue());
      }
      expect(outcomes).toEqual([...Array(OWNER_REPORT_MAX_ATTEMPTS).fill("failed"), "claimed elsewhere"]);
      const failures = logs.filter((line) => line.startsWith("error: weekly report of"));
      expect(OWNER_REPORT_MAX_ATTEMPTS).toBe(10);
      expect(failures).toHaveLength(10);
      expect(failures[0]).toMatch(/not sent \(attempt 1 of 10\): .+; tried again in 10 minutes$/);
      expect(failures[9]).toMatch(
        /not sent \(attempt 10 of 10\): .+; given up: npm run report -- mail sends it by hand$/,
      );
    } finally {
      await sender.close();
      await database.drop();
    }
  });

  it("`npm run report -- mail` delivers the week's report to a real SMTP server now; `preview` writes it to look at", async () => {
    const database = await freshDatabase();
    await database.release();
    const env = {
      ...database.env,
      ...SCHEDULE,
      OWNER_EMAIL: OWNER,
      SMTP_URL: smtp.url,
      PUBLIC_DIR: "/nonexistent",
    };
    try {
      const sent = await reportMailText(["mail"], env);
      expect(sent).toMatch(
        new RegExp(
          `^Weekly report of ${weekLabel(database.seeded.week)} sent to o•••@thepurposeeffect\\.example through SMTP 127\\.0\\.0\\.1:${smtp.port} \\(chart drawn in \\d+ ms(, resvg loaded in \\d+ ms)?\\); the scheduled one still goes on Monday\\.\\n$`,
        ),
      );
      await expectTheWeeksMail(database.seeded);

      const preview = (await reportMailText(["preview"], env)) ?? "";
      const files = preview.trim().split("\n").slice(1);
      expect(files.map((file) => path.relative(database.dataDir, file))).toEqual(
        ["eml", "html", "png"].map((ext) => `preview/weekly-report-${database.seeded.week.from}.${ext}`),
      );
      const parsed = await simpleParser(readFileSync(files[0]));
      expect(parsed.text).toContain("13 readers are on the list now.");
      expect(parsed.attachments.map((attachment) => attachment.contentType)).toEqual(["image/png"]);
      // The HTML file shows its chart in a browser, which has no cid:.
      expect(readFileSync(files[1], "utf8")).toContain('src="data:image/png;base64,');
      expect(await pngSize(readFileSync(files[2]))).toEqual({ format: "png", width: 544, height: 408 });
      // The preview sent nothing.
      expect(smtp.mails).toHaveLength(1);

      await expect(reportMailText(["mail", "--now"], env)).rejects.toThrow(
        'mail takes nothing more (got "--now").',
      );
      await expect(reportMailText(["mail"], { ...env, OWNER_EMAIL: "" })).rejects.toThrow(
        /^OWNER_EMAIL is not set: set it to the address the weekly report goes to/,
      );
      await expect(reportMailText(["mail"], { ...env, OWNER_EMAIL: "not an address" })).rejects.toThrow(
        "OWNER_EMAIL must be one e-mail address",
      );
      expect(await reportMailText(["--json"], env)).toBeNull();
      expect(smtp.mails).toHaveLength(1);
    } finally {
      await database.drop();
    }
  });

  /**
   * `npm run report -- mail|preview` beside a running stack: on PGlite handed to the stack over its
   * socket, as the command does when another process holds the folder (this test's stack runs in
   * the test's own process, which the command's check does not count); on PostgreSQL run here.
   */
  async function mailCommand(stack: TestStack, action: "mail" | "preview"): Promise<string> {
    if (!stack.database) {
      const answer = await askStack(stack.dataDir, "/report-mail", { action });
      if (!answer?.ok) throw new Error(answer?.output ?? "no stack answered");
      return answer.output;
    }
    return (
      (await reportMailText([action], { DATA_DIR: stack.dataDir, DATABASE_URL: stack.database.url })) ?? ""
    );
  }

  it("runs on the local stack by itself: once a week with OWNER_EMAIL; without it, nothing, and the log says why once", async () => {
    const quiet = await startTestStack(backend, SCHEDULE, postgresUrl);
    try {
      await eventually(() => quiet.logs.filter((line) => line.includes("OWNER_EMAIL is not set")), {
        what: "the stack's word that the weekly report has no recipient",
        until: (lines) => lines.length > 0,
      });
      expect(await quiet.server.backend.weeklyReport().sendIfDue()).toBe("already done");
      expect(quiet.logs.filter((line) => line.includes("OWNER_EMAIL is not set"))).toEqual([
        expect.stringMatching(
          /^warning: weekly report of .+ not sent: OWNER_EMAIL is not set \(set it to get/,
        ),
      ]);
      // The command, handed to the stack that holds the data (PGlite) or run beside it, says what to set.
      await expect(mailCommand(quiet, "mail")).rejects.toThrow(/OWNER_EMAIL is not set/);
    } finally {
      await quiet.close();
    }
    expect(smtp.mails).toHaveLength(0);

    const stack = await startTestStack(
      backend,
      { ...SCHEDULE, OWNER_EMAIL: OWNER, SMTP_URL: smtp.url },
      postgresUrl,
    );
    try {
      // Its own minute's turn sends it (an empty week: nothing was seeded)...
      await smtp.waitForMails(1);
      expect(smtp.mails[0].text).toContain("0 readers are on the list now.");
      // ...and no other turn does.
      const again = await Promise.all([1, 2, 3].map(() => stack.server.backend.weeklyReport().sendIfDue()));
      expect(again.filter((outcome) => outcome === "sent")).toEqual([]);
      expect(smtp.mails).toHaveLength(1);
      const preview = await mailCommand(stack, "preview");
      expect(preview).toMatch(/^Preview of the weekly report of .+\n.+\.eml\n.+\.html\n.+\.png\n$/);
      for (const file of preview.trim().split("\n").slice(1)) expect(existsSync(file)).toBe(true);
    } finally {
      await stack.close();
    }
  });
});
