/**
 * The Supabase entries under Deno itself: `deno check` of the three functions with the import map
 * Supabase uses (npm packages from the registry, not this repository's node_modules), and
 * `send-confirmation` served by Deno against the test PostgreSQL, answering one signup.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { createPostgresExecutor } from "../_shared/drivers/postgres-executor.ts";
import { migrate } from "../../../server/migrations.ts";
import { createTestDatabase, testPostgresUrl } from "../../../toolkit/databases.ts";
import { freePort } from "../../../toolkit/free-port.ts";
import { startProcess, type StartedProcess } from "../../../toolkit/process.ts";

jest.setTimeout(180_000);

const ROOT = path.resolve(__dirname, "../../..");
const DENO = path.join(ROOT, "node_modules/.bin/deno");
const FUNCTIONS = path.join(ROOT, "supabase/functions");
const ENTRIES = ["send-confirmation", "confirm-subscription", "unsubscribe"].map((name) =>
  path.join(FUNCTIONS, name, "index.ts"),
);
// Without this Deno would adopt the repository's package.json and node_modules, which Supabase does not have.
const denoEnv = { ...process.env, DENO_NO_PACKAGE_JSON: "1", NO_COLOR: "1" };

describe("the functions under Deno", () => {
  it("type-check with deno check", async () => {
    const { stderr } = await promisify(execFile)(
      DENO,
      ["check", "--config", path.join(FUNCTIONS, "deno.json"), ...ENTRIES],
      {
        cwd: ROOT,
        env: denoEnv,
      },
    );
    expect(stderr).not.toMatch(/error/i);
  });

  const postgresUrl = testPostgresUrl();
  (postgresUrl ? it : it.skip)("serve send-confirmation against PostgreSQL and answer a signup", async () => {
    const database = await createTestDatabase(postgresUrl as string);
    const db = createPostgresExecutor(database.url, { max: 1 });
    const port = await freePort();
    let deno: StartedProcess | undefined;
    try {
      await migrate(db);
      deno = await startProcess(
        DENO,
        [
          "run",
          "--allow-net",
          "--allow-env",
          "--allow-read",
          "--allow-sys",
          "--config",
          path.join(FUNCTIONS, "deno.json"),
          ENTRIES[0],
        ],
        {
          cwd: ROOT,
          env: {
            ...denoEnv,
            FUNCTION_PORT: String(port),
            DATABASE_URL: database.url,
            SITE_URL: "https://thepurposeeffect.example",
          },
          ready: /Listening on/,
          timeoutMs: 120_000,
        },
      );
      const response = await fetch(`http://127.0.0.1:${port}/send-confirmation`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: "https://thepurposeeffect.example",
          "x-forwarded-for": "203.0.113.9",
        },
        body: JSON.stringify({ email: "deno@example.com" }),
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: "pending" });
      expect(response.headers.get("access-control-allow-origin")).toBe("https://thepurposeeffect.example");
      expect(await db.query("select email, status from subscribers")).toEqual([
        { email: "deno@example.com", status: "pending" },
      ]);
      // Without SMTP_URL the function logs the link instead of sending; the job counts as sent.
      const logged = Date.now() + 10_000;
      while (
        !/confirm: https:\/\/thepurposeeffect\.example\/\?confirm=[A-Za-z0-9_-]{43}/.test(deno.output())
      ) {
        if (Date.now() > logged) throw new Error(`No confirmation link in the log:\n${deno.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await deno?.stop();
      await db.close();
      await database.drop();
    }
  });
});
