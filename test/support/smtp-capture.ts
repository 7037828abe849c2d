/**
 * A real SMTP server on loopback (smtp-server) that parses what it receives (mailparser), for
 * mail tests, with each mail's envelope (`MAIL FROM`, `RCPT TO`). It can be stopped and started again on the same port to play an outage.
 */
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";
import { eventually } from "./eventually.ts";
import { freePort } from "./free-port.ts";

/** A received mail with the envelope it came in: `MAIL FROM` and the `RCPT TO`s. */
export type CapturedMail = ParsedMail & { envelope: { from: string; to: string[] } };

export interface SmtpCapture {
  port: number;
  /** `smtp://127.0.0.1:PORT` (or `smtps://...` for an implicit-TLS server). */
  url: string;
  mails: CapturedMail[];
  start(): Promise<void>;
  stop(): Promise<void>;
  waitForMails(count: number, timeoutMs?: number): Promise<CapturedMail[]>;
}

export interface SmtpCaptureOptions {
  /** Implicit TLS (smtps) with smtp-server's self-signed certificate. */
  secure?: boolean;
  /** Refuses these recipients at RCPT TO with the given reply, e.g. `550 5.1.1 <x@y> unknown`. */
  rejectRecipient?: (address: string) => string | undefined;
  /** Holds each message this long before accepting it, so a test can stop a sender mid-batch. */
  acceptDelayMs?: number;
}

/** smtp-server answers a callback's error with its `responseCode` and message. */
function smtpReply(reply: string): Error {
  const error = new Error(reply.replace(/^\d{3}\s*/, "")) as Error & { responseCode: number };
  error.responseCode = Number(reply.slice(0, 3));
  return error;
}

export async function createSmtpCapture(options: SmtpCaptureOptions = {}): Promise<SmtpCapture> {
  const port = await freePort();
  const mails: CapturedMail[] = [];
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
          const refusal = options.rejectRecipient?.(address.address);
          callback(refusal ? smtpReply(refusal) : undefined);
        },
        onData(stream, session, callback) {
          const { mailFrom, rcptTo } = session.envelope;
          const envelope = {
            from: mailFrom ? mailFrom.address : "",
            to: rcptTo.map((recipient) => recipient.address),
          };
          simpleParser(stream).then(
            (mail) =>
              setTimeout(() => {
                mails.push(Object.assign(mail, { envelope }));
                callback();
              }, options.acceptDelayMs ?? 0),
            (error: Error) => callback(error),
          );
        },
      });
      await new Promise<void>((resolve, reject) => {
        server?.once("error", reject);
        server?.listen(port, "127.0.0.1", () => resolve());
      });
      // A client killed mid-session (the tests' kill -9) resets its connection: smtp-server reports
      // it as the server's error, which without a listener would end the test process.
      server.on("error", (error: Error & { code?: string }) => {
        if (error.code !== "ECONNRESET" && error.code !== "EPIPE")
          console.warn(`SMTP capture: ${error.message}`);
      });
    },
    async stop() {
      const running = server;
      server = null;
      if (running) await new Promise<void>((resolve) => running.close(() => resolve()));
    },
    async waitForMails(count, timeoutMs = 10_000) {
      await eventually(() => mails.length, {
        what: `${count} mails on the SMTP server`,
        timeoutMs,
        until: (received) => received >= count,
      });
      return mails;
    },
  };
  await capture.start();
  return capture;
}
