/**
 * A real SMTP server on loopback (smtp-server) that parses what it receives (mailparser), for
 * mail tests. It can be stopped and started again on the same port to play an outage.
 */
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";
import { freePort } from "./postgres-server.ts";

export interface SmtpCapture {
  port: number;
  /** `smtp://127.0.0.1:PORT` (or `smtps://...` for an implicit-TLS server). */
  url: string;
  mails: ParsedMail[];
  start(): Promise<void>;
  stop(): Promise<void>;
  waitForMails(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
}

export interface SmtpCaptureOptions {
  secure?: boolean;
  /** Recipients this server refuses for good, as a mailbox that does not exist (550 5.1.1). */
  reject?: (address: string) => boolean;
  /** Milliseconds the server takes to accept each message (a slow provider). */
  delayMs?: number;
}

export async function createSmtpCapture(options: SmtpCaptureOptions = {}): Promise<SmtpCapture> {
  const port = await freePort();
  const mails: ParsedMail[] = [];
  let server: SMTPServer | null = null;
  const capture: SmtpCapture = {
    port,
    url: options.secure
      ? `smtps://127.0.0.1:${port}/?tls.rejectUnauthorized=false`
      : `smtp://127.0.0.1:${port}`,
    mails,
    async start() {
      server = new SMTPServer({
        // smtp-server's built-in self-signed certificate serves the implicit-TLS case.
        secure: options.secure ?? false,
        authOptional: true,
        disabledCommands: options.secure ? ["AUTH"] : ["STARTTLS", "AUTH"],
        logger: false,
        onRcptTo(address, _session, callback) {
          if (!options.reject?.(address.address)) return callback();
          const error = new Error(`5.1.1 <${address.address}>: Recipient address rejected: User unknown`);
          (error as Error & { responseCode: number }).responseCode = 550;
          callback(error);
        },
        onData(stream, _session, callback) {
          simpleParser(stream).then(
            (mail) => {
              setTimeout(() => {
                mails.push(mail);
                callback();
              }, options.delayMs ?? 0);
            },
            (error: Error) => callback(error),
          );
        },
      });
      await new Promise<void>((resolve, reject) => {
        server?.once("error", reject);
        server?.listen(port, "127.0.0.1", () => resolve());
      });
    },
    async stop() {
      const running = server;
      server = null;
      if (running) await new Promise<void>((resolve) => running.close(() => resolve()));
    },
    async waitForMails(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (mails.length < count) {
        if (Date.now() > deadline)
          throw new Error(`Expected ${count} mails, got ${mails.length} after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return mails;
    },
  };
  await capture.start();
  return capture;
}
