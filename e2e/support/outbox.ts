import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { simpleParser, type ParsedMail } from "mailparser";

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: ParsedMail["headers"];
  /** The page links in the mail's text part: confirm and unsubscribe. */
  confirmUrl: string;
  unsubscribeUrl: string;
}

const linkWith = (text: string, param: string): string => {
  const match = new RegExp(`https?://[^\\s"<>]*[?&]${param}=[^\\s"<>]+`).exec(text);
  if (!match) throw new Error(`No ?${param}= link in the mail:\n${text}`);
  return match[0];
};

async function readMails(outbox: string): Promise<Mail[]> {
  if (!existsSync(outbox)) return [];
  const files = readdirSync(outbox).filter((name) => name.endsWith(".eml"));
  return Promise.all(
    files.map(async (name) => {
      const parsed = await simpleParser(readFileSync(path.join(outbox, name)));
      const text = parsed.text ?? "";
      const to = [parsed.to]
        .flat()
        .flatMap((entry) => entry?.value ?? [])
        .map((address) => address.address ?? "")
        .join(", ");
      return {
        to,
        subject: parsed.subject ?? "",
        text,
        html: typeof parsed.html === "string" ? parsed.html : "",
        headers: parsed.headers,
        get confirmUrl() {
          return linkWith(text, "confirm");
        },
        get unsubscribeUrl() {
          return linkWith(text, "unsubscribe");
        },
      };
    }),
  );
}

/** Every mail in the outbox addressed to `address`. */
export async function mailsTo(outbox: string, address: string): Promise<Mail[]> {
  return (await readMails(outbox)).filter((mail) => mail.to.toLowerCase() === address.toLowerCase());
}

/** Waits (bounded) for the first mail to `address`: the stack sends it just after answering. */
export async function waitForMail(outbox: string, address: string, timeoutMs = 10_000): Promise<Mail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [mail] = await mailsTo(outbox, address);
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`No mail to ${address} in ${outbox} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
