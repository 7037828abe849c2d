/**
 * Sender names that break a `From` written carelessly, and the mailboxes a `From` value names as a
 * mail client reads them (mailparser: quotes, escapes and RFC 2047 words decoded), for the test of
 * each transport: whatever the name, one mailbox with our address.
 */
import { simpleParser } from "mailparser";

export const HOSTILE_SENDER_NAMES = [
  // Two mailboxes if written bare, the first someone else's.
  "CEO <ceo@bank.example>, x",
  'Ann "the boss" \\ Lee; team:',
  // A line break would start a header of its own.
  "Effect\r\nBcc: everyone@example.com",
  // Non-ASCII: RFC 2047 words, here with the same traps.
  "Zoë <ceo@bank.example>, Café",
  // Long enough to take several encoded-words.
  "新聞の効果、毎日".repeat(6),
] as const;

/** The name a mail client shows for one of them: control characters are spaces. */
export const shownName = (name: string): string => name.replace(/\s*[\r\n]+\s*/g, " ");

/** The mailboxes `value` names in a `From` header. */
export async function mailboxesOf(value: string): Promise<{ name: string; address: string }[]> {
  const parsed = await simpleParser(`From: ${value}\r\n\r\n`);
  return (parsed.from?.value ?? []).map(({ name, address }) => ({ name, address: address ?? "" }));
}
