/**
 * The local stack keeps its data to its owner: the data folder, PGlite's files (write-ahead log
 * and catalog included) and the outbox are for the owner alone; a confirmation link reaches the
 * log only for a mail written to the outbox, never one sent over SMTP; the operator socket sits in
 * that private folder and refuses any command the command line would refuse.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { operatorSocketPath } from "../effect-operator.ts";
import { linkIn, waitForOutbox } from "../../test/support/outbox.ts";
import { createSmtpCapture } from "../../test/support/smtp-capture.ts";
import { startTestStack } from "../../test/support/test-stack.ts";

/** Every folder and file under `dir` (itself included) whose mode lets anyone but the owner in. */
function openToOthers(dir: string): string[] {
  const entries = [
    { name: dir, directory: true },
    ...readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((entry) => !entry.isSymbolicLink())
      .map((entry) => ({ name: path.join(entry.parentPath, entry.name), directory: entry.isDirectory() })),
  ];
  return entries.flatMap(({ name, directory }) => {
    const mode = statSync(name).mode & 0o777;
    const wanted = directory ? 0o700 : 0o600;
    return (mode & 0o077) !== 0 || (mode & wanted) !== wanted ? [`${name} ${mode.toString(8)}`] : [];
  });
}

/** Posts a raw body to the stack's operator socket, as `npm run effect` does. */
function postToSocket(socketPath: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const call = request(
      { socketPath, method: "POST", path: "/", headers: { "content-type": "application/json" } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    call.on("error", reject);
    call.end(body);
  });
}

/** What another local account gets when it reads `file` (the `nobody` user): null when it may read it. */
function readAsAnotherAccount(file: string): string | null {
  const run = spawnSync("runuser", ["-u", "nobody", "--", "cat", file], { encoding: "utf8" });
  return run.status === 0 ? null : run.stderr.trim();
}

const describeAsRoot = process.getuid?.() === 0 ? describe : describe.skip;

describeAsRoot("the local stack's data folder", () => {
  it("keeps another local account out while it runs: addresses, PGlite's log and the outbox", async () => {
    // As on a first `npm start`: the stack makes its data folder itself, in a folder anyone may enter.
    const home = mkdtempSync(path.join(tmpdir(), "home-"));
    chmodSync(home, 0o755);
    const dataDir = path.join(home, ".data");
    const stack = await startTestStack("PGlite", { DATA_DIR: dataDir });
    try {
      expect((await stack.post("send-confirmation", { email: "reader@example.com" })).status).toBe(200);
      await waitForOutbox(path.join(dataDir, "outbox"), 1);
      const files = readdirSync(dataDir, { recursive: true }).map(String);
      const wal = files.find((name) => name.startsWith("pglite/pg_wal/0"));
      const mail = files.find((name) => name.startsWith("outbox/") && name.endsWith(".eml"));
      expect([wal, mail]).toEqual([expect.any(String), expect.any(String)]);
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      for (const file of [wal, mail]) {
        expect(readAsAnotherAccount(path.join(dataDir, String(file)))).toMatch(/Permission denied/);
      }
      // The check itself can tell: a copy where anyone may read it is read.
      const open = path.join(mkdtempSync(path.join(tmpdir(), "readable-")), "mail.eml");
      writeFileSync(open, "To: reader@example.com\r\n\r\nhello\r\n");
      chmodSync(path.dirname(open), 0o755);
      chmodSync(open, 0o644);
      expect(readAsAnotherAccount(open)).toBeNull();
      rmSync(path.dirname(open), { recursive: true });
    } finally {
      await stack.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("leaves folders 0700 and files 0600 when it stops, PGlite's included", async () => {
    const stack = await startTestStack("PGlite");
    try {
      await stack.post("send-confirmation", { email: "reader@example.com" });
      await waitForOutbox(stack.outbox, 1);
      await stack.server.close();
      expect(openToOthers(stack.dataDir)).toEqual([]);
    } finally {
      await stack.close();
    }
  });

  it("tightens a folder an earlier version left open when the stack starts", async () => {
    const stack = await startTestStack("PGlite");
    const outbox = path.join(stack.dataDir, "outbox");
    try {
      mkdirSync(outbox, { recursive: true });
      writeFileSync(path.join(outbox, "old.eml"), "To: reader@example.com\r\n\r\nold mail\r\n");
      chmodSync(path.join(outbox, "old.eml"), 0o644);
      chmodSync(outbox, 0o755);
      chmodSync(stack.dataDir, 0o755);
      expect(readAsAnotherAccount(path.join(outbox, "old.eml"))).toBeNull();
      await stack.restart();
      expect(statSync(stack.dataDir).mode & 0o777).toBe(0o700);
      expect(statSync(outbox).mode & 0o777).toBe(0o700);
      expect(statSync(path.join(outbox, "old.eml")).mode & 0o777).toBe(0o600);
      expect(readAsAnotherAccount(path.join(outbox, "old.eml"))).toMatch(/Permission denied/);
    } finally {
      await stack.close();
    }
  });
});

describe("confirmation links in the log", () => {
  it("are printed for a mail written to the outbox, which the quick start relies on", async () => {
    const stack = await startTestStack("PGlite");
    try {
      await stack.post("send-confirmation", { email: "reader@example.com" });
      const [mail] = await waitForOutbox(stack.outbox, 1);
      expect(stack.logs.join("\n")).toContain(linkIn(mail, "confirm").href);
    } finally {
      await stack.close();
    }
  });

  it("are never printed for a mail sent over SMTP, nor any token of it", async () => {
    const smtp = await createSmtpCapture();
    const stack = await startTestStack("PGlite", { SMTP_URL: smtp.url });
    try {
      await stack.post("send-confirmation", { email: "reader@example.com" });
      const [mail] = await smtp.waitForMails(1);
      // A stopped stack has finished and logged the mail it was sending.
      await stack.close();
      const confirmToken = linkIn(mail, "confirm").searchParams.get("confirm") ?? "";
      const unsubscribeToken = linkIn(mail, "unsubscribe").searchParams.get("unsubscribe") ?? "";
      expect(confirmToken).toHaveLength(43);
      const log = stack.logs.join("\n");
      expect(log).toContain("mail sent to");
      expect(log).not.toContain(confirmToken);
      expect(log).not.toContain(unsubscribeToken);
      expect(log).not.toMatch(/[?&](confirm|unsubscribe)=/);
    } finally {
      await stack.close();
      await smtp.stop();
    }
  });
});

describe("the operator socket", () => {
  it("listens inside the owner's folder and refuses what the command line refuses, sending nothing", async () => {
    const smtp = await createSmtpCapture();
    const stack = await startTestStack("PGlite", { SMTP_URL: smtp.url });
    try {
      const socketPath = operatorSocketPath(stack.dataDir);
      expect(statSync(path.dirname(socketPath)).mode & 0o777).toBe(0o700);
      expect(statSync(socketPath).mode & 0o777).toBe(0o600);

      const refused = [
        ['{"action":"resend","date":"2026-11-23"}', /Unknown command "resend"/],
        ['{"action":"send","date":"yesterday"}', /date/i],
        ['{"action":"status","date":"2026-11-23","retryUnknown":true}', /options of send/],
        ['{"action":"send","date":"2026-11-23","everyone":true}', /Unknown field "everyone"/],
        ['{"action":"send","date":"2026-11-23","to":42}', /--to/],
        ['["send","2026-11-23"]', /not an object/],
        ["send 2026-11-23", /not JSON/],
      ] as const;
      for (const [body, message] of refused) {
        const answer = await postToSocket(socketPath, body);
        expect([body, answer.status]).toEqual([body, 400]);
        expect(answer.text).toMatch(message);
      }
      const status = await postToSocket(socketPath, '{"action":"status","date":"2026-11-23"}');
      expect(status.status).toBe(200);
      expect(status.text).toContain("not prepared");
      expect(smtp.mails).toEqual([]);
    } finally {
      await stack.close();
      await smtp.stop();
    }
  });
});
