/**
 * kill -9 of the local stack while it delivers confirmation mail, then a restart on the same data:
 * every signup's mail goes out within seconds of the restart, and the only mail that can go out
 * twice is one the SMTP server accepted in the batch that was in flight. On PGlite the restarted
 * stack takes the dead one's claims back at once; on PostgreSQL they run out with their short lease.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually } from "../../test/support/eventually.ts";
import { forEachBackend } from "../../test/support/backends.ts";
import { createTestDatabase, type TestDatabase } from "../../test/support/databases.ts";
import { freePort } from "../../test/support/free-port.ts";
import { createSmtpCapture, type SmtpCapture } from "../../test/support/smtp-capture.ts";
import { preparedDataDir } from "../../test/support/test-stack.ts";
import { typeScript } from "../../test/support/process.ts";

const ROOT = path.resolve(__dirname, "../..");
const SIGNUPS = 40;
/** The sender's batch: the most that can be in flight when the process dies. */
const BATCH = 10;

async function startStack(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, typeScript("server/main.ts"), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await eventually(
    () => {
      if (child.exitCode !== null) throw new Error(`The stack exited (${child.exitCode}):\n${output}`);
      return /Listening on/.test(output);
    },
    { what: "the stack to listen", timeoutMs: 60_000, intervalMs: 50 },
  );
  return { child, output: () => output };
}

const stopped = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", () => resolve())));

forEachBackend("kill -9 during delivery on %s", (backend, postgresUrl) => {
  let smtp: SmtpCapture;
  let dataDir: string;
  let database: TestDatabase | undefined;
  let running: ChildProcess | undefined;

  beforeAll(async () => {
    // Each mail is held a while before it is accepted, so the kill lands in the middle of a batch.
    smtp = await createSmtpCapture({ acceptDelayMs: 150 });
    dataDir = backend === "PGlite" ? await preparedDataDir() : mkdtempSync(path.join(tmpdir(), "crash-"));
    if (postgresUrl) database = await createTestDatabase(postgresUrl);
    mkdirSync(path.join(dataDir, "site"), { recursive: true });
    writeFileSync(path.join(dataDir, "site", "index.html"), "<!doctype html><p>Home</p>");
  });
  afterAll(async () => {
    if (running && running.exitCode === null) {
      running.kill("SIGKILL");
      await stopped(running);
    }
    await smtp?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("sends every signup's mail within seconds of the restart, at most one batch twice", async () => {
    const port = await freePort();
    const env = {
      HOST: "127.0.0.1",
      PORT: String(port),
      DATA_DIR: dataDir,
      PUBLIC_DIR: path.join(dataDir, "site"),
      SITE_URL: `http://127.0.0.1:${port}`,
      SMTP_URL: smtp.url,
      DATABASE_URL: database?.url ?? "",
      RATE_LIMIT_PER_MINUTE: "100000",
      CONFIRMATION_MAILS_PER_CLIENT_PER_DAY: "100000",
      MAIL_RETRY_BASE_SECONDS: "0.2",
      MAIL_RETRY_MAX_SECONDS: "1",
    };
    const first = await startStack(env);
    running = first.child;
    const addresses = Array.from(
      { length: SIGNUPS },
      (_, n) => `crash-${backend.toLowerCase()}-${n}@example.com`,
    );
    for (const email of addresses) {
      const response = await fetch(`http://127.0.0.1:${port}/functions/v1/send-confirmation`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: `http://127.0.0.1:${port}` },
        body: JSON.stringify({ email }),
      });
      expect(response.status).toBe(200);
    }
    await smtp.waitForMails(3, 30_000);
    first.child.kill("SIGKILL");
    await stopped(first.child);
    const beforeRestart = smtp.mails.length;
    expect(beforeRestart).toBeLessThan(SIGNUPS);

    running = (await startStack(env)).child;
    // From the moment the new process listens: its own start (PGlite's) is not the mail's delay.
    const restartedAt = performance.now();
    const received = () =>
      new Set(smtp.mails.flatMap((mail) => (mail.to && !Array.isArray(mail.to) ? [mail.to.text] : [])));
    await eventually(() => received().size, {
      what: `every one of the ${SIGNUPS} addresses mailed (distinct recipients so far)`,
      timeoutMs: 60_000,
      intervalMs: 50,
      until: (size) => size >= SIGNUPS,
    });
    const tookMs = performance.now() - restartedAt;

    expect([...received()].sort()).toEqual([...addresses].sort());
    // PGlite: at once; PostgreSQL: once the dead process's 10 s lease has run out.
    expect(tookMs).toBeLessThan(backend === "PGlite" ? 10_000 : 20_000);
    expect(smtp.mails.length - SIGNUPS).toBeLessThanOrEqual(BATCH);
  });
});
