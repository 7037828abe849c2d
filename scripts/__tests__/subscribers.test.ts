/**
 * `npm run subscribers`: counts and CSV from the same storage the local stack uses.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { linkIn, waitForOutbox } from "../../test/support/outbox.ts";
import { startTestStack, type TestStack } from "../../test/support/test-stack.ts";
import { migrate } from "../../server/migrations.ts";
import { createPostgresExecutor } from "../../supabase/functions/_shared/db/postgres-executor.ts";
import type { SqlExecutor } from "../../supabase/functions/_shared/db/sql-executor.ts";
import { createTestDatabase, type TestDatabase, testPostgresUrl } from "../../test/support/databases.ts";
import { run as runEffect } from "../effect.ts";
import { csvField, parseCommand } from "../../server/subscriber-commands.ts";
import { run } from "../subscribers.ts";
import { typeScript } from "../../test/support/process.ts";

const ROOT = path.resolve(__dirname, "../..");
const execFileAsync = promisify(execFile);

describe("the subscribers command", () => {
  let stack: TestStack;
  let env: Record<string, string>;

  beforeAll(async () => {
    stack = await startTestStack("PGlite");
    for (const email of ["first@example.com", "second@example.com", "third@example.com"]) {
      expect((await stack.post("send-confirmation", { email })).status).toBe(200);
    }
    const mails = await waitForOutbox(stack.outbox, 3);
    const token = (to: string, param: "confirm" | "unsubscribe") => {
      const mail = mails.find(
        (candidate) => candidate.text?.length && JSON.stringify(candidate.to).includes(to),
      );
      if (!mail) throw new Error(`no mail to ${to}`);
      return linkIn(mail, param).searchParams.get(param);
    };
    await stack.post("confirm-subscription", { token: token("first@", "confirm") });
    await stack.post("confirm-subscription", { token: token("second@", "confirm") });
    await stack.post("unsubscribe", { token: token("second@", "unsubscribe") });
    env = { DATA_DIR: stack.dataDir };
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("answers while the local stack holds PGlite, through the stack's operator socket", async () => {
    // As the owner runs it: another process, while the stack keeps the folder.
    const cli = (args: string[]) =>
      execFileAsync(process.execPath, typeScript("scripts/subscribers.ts", ...args), {
        cwd: ROOT,
        env: { ...process.env, ...env },
      });
    const { stdout } = await cli(["stats"]);
    expect(stdout).toMatch(/running local stack/);
    expect(stdout).toMatch(/total\s+3\n/);
    const file = path.join(stack.dataDir, "while-running.csv");
    expect((await cli(["export", "--status", "confirmed", "--output", file])).stdout).toBe(
      `1 rows written to ${file}\n`,
    );
    expect(readFileSync(file, "utf8")).toContain("first@example.com,confirmed,");
    expect(stack.logs.join("\n")).toContain("subscribers export (from npm run subscribers)");
    await expect(cli(["export", "--status", "gone"])).rejects.toMatchObject({
      stderr: expect.stringContaining("--status must be one of"),
    });
  });

  describe("with the stack stopped", () => {
    beforeAll(async () => {
      await stack.server.close();
    });

    it("prints counts by status", async () => {
      const output = await run(["stats"], env);
      expect(output).toMatch(/pending\s+1\n/);
      expect(output).toMatch(/confirmed\s+1\n/);
      expect(output).toMatch(/unsubscribed\s+1\n/);
      expect(output).toMatch(/total\s+3\n/);
      expect(output).toMatch(/bounced\s+0 \(0\.0 % of all addresses\)/);
      expect(output).toMatch(/complained\s+0 \(0\.0 % of all addresses\)/);
    });

    it("exports everyone as CSV, or only one status", async () => {
      const all = (await run(["export"], env)).trim().split("\r\n");
      expect(all[0]).toBe(
        "email,status,signed_up_at,confirmed_at,unsubscribed_at,consent_source,consent_at,pending_consent_source,pending_consent_at,unsubscribe_reason,complained_at,suppressed_at,suppressed_reason,imported_from,imported_at,signup_form,signup_page,referrer_host,utm_source,utm_medium,utm_campaign",
      );
      expect(all).toHaveLength(4);
      // Who left by the link says so; nobody complained, bounced or was imported; these signups named no source.
      expect(all.find((line) => line.startsWith("second@"))).toMatch(/,link,,,,,,,,,,,$/);
      const confirmed = (await run(["export", "--status", "confirmed"], env)).trim().split("\r\n");
      expect(confirmed).toHaveLength(2);
      expect(confirmed[1]).toMatch(
        /^first@example\.com,confirmed,\d{4}-\d\d-\d\dT[^,]+,\d{4}-[^,]+,,[^,]*,\d{4}-/,
      );
    });

    it("writes the CSV to a file with --output", async () => {
      const file = path.join(stack.dataDir, "list.csv");
      expect(await run(["export", "--status=pending", "--output", file], env)).toBe(
        `1 rows written to ${file}\n`,
      );
      expect(readFileSync(file, "utf8")).toContain("third@example.com,pending,");
      rmSync(file);
    });

    it("runs as `npm run subscribers -- stats`", async () => {
      const { stdout } = await execFileAsync("npm", ["run", "--silent", "subscribers", "--", "stats"], {
        cwd: ROOT,
        env: { ...process.env, ...env },
      });
      expect(stdout).toMatch(/total\s+3/);
    });
  });
});

describe("command-line mistakes", () => {
  it("explains an unknown command or option", () => {
    expect(() => parseCommand([])).toThrow("No command given.");
    expect(() => parseCommand(["delete"])).toThrow('Unknown command "delete".');
    expect(() => parseCommand(["export", "--status", "gone"])).toThrow(
      /--status must be one of pending, confirmed, unsubscribed/,
    );
    expect(() => parseCommand(["stats", "--status", "pending"])).toThrow(
      'Unknown option "--status" for stats.',
    );
  });
});

describe("CSV fields", () => {
  it("quotes what needs quoting and keeps spreadsheet formulas inert", () => {
    expect(csvField("plain@example.com")).toBe("plain@example.com");
    expect(csvField('a "quoted", value')).toBe('"a ""quoted"", value"');
    expect(csvField("=cmd@example.com")).toBe("'=cmd@example.com");
    expect(csvField("+1@example.com")).toBe("'+1@example.com");
  });
});

const postgresServer = testPostgresUrl();
(postgresServer ? describe : describe.skip)("on a PostgreSQL database (DATABASE_URL)", () => {
  let database: TestDatabase;
  let db: SqlExecutor;
  let dataDir: string;
  const tables = async () =>
    (
      await db.query<{ name: string }>(
        "select table_name as name from information_schema.tables where table_schema = 'public' order by 1",
      )
    ).map((row) => row.name);

  beforeEach(async () => {
    database = await createTestDatabase(postgresServer as string);
    db = createPostgresExecutor(database.url);
    dataDir = mkdtempSync(path.join(tmpdir(), "subscribers-"));
  });
  afterEach(async () => {
    await db.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("refuses a database that lacks a migration and changes nothing, where it only reads", async () => {
    const env = { DATABASE_URL: database.url, DATA_DIR: dataDir };
    for (const args of [["stats"], ["export"]]) {
      await expect(run(args, env)).rejects.toThrow(
        /lacks the migrations 20261122000000_subscribers\.sql, .*start the local stack on it once/,
      );
    }
    // So does `npm run effect -- status`.
    await expect(runEffect(["status", "2026-11-23"], env)).rejects.toThrow(/lacks the migrations/);
    expect(await tables()).toEqual([]);
    expect(await db.query(`select to_regnamespace('supabase_migrations') as schema`)).toEqual([
      { schema: null },
    ]);
  });

  it("reads a migrated database without applying anything", async () => {
    await migrate(db);
    const record = () => db.query("select * from supabase_migrations.schema_migrations order by version");
    const applied = await record();
    const stats = await run(["stats"], { DATABASE_URL: database.url, DATA_DIR: dataDir });
    expect(stats).toMatch(/total\s+0/);
    expect(await record()).toEqual(applied);
  });
});
