/**
 * An edition's state as the operator reads it (`npm run effect -- status`, and after each send):
 * counts per delivery state, bounces and complaints with their share of the mails sent, refusals
 * that were about the sender (RFC 3463 X.7.x) as a warning about the sending domain, and what to
 * do about mails in doubt.
 */
import { maskAddresses } from "../logger.ts";
import { DELIVERY_STATES, type DeliveryStore, type SendCall } from "./delivery-store.ts";

/** Gmail's and Yahoo's limit for bulk senders: complaints per mail delivered. */
const COMPLAINT_RATE_LIMIT = 0.003;

export async function statusText(store: DeliveryStore, date: string): Promise<string> {
  const status = await store.status(date);
  if (!status)
    return `The Effect of ${date} is not prepared: nothing is queued (run send to prepare and send it).\n`;
  const width = "complained".length;
  const lines = [
    `The Effect of ${date}: ${status.state}${status.state === "paused" ? ` after ${status.consecutiveFailures} temporary failures in a row (the next send resumes it)` : ""}`,
    ...DELIVERY_STATES.map((state) => `${state.padEnd(width)}  ${status.counts[state]}`),
  ];
  const share = (count: number) =>
    status.counts.sent > 0
      ? ` (${((100 * count) / status.counts.sent).toFixed(1)} % of the ${status.counts.sent} sent)`
      : "";
  const { bounced, softBounced, complained, senderRefused } = status.events;
  lines.push(
    `${"bounced".padEnd(width)}  ${bounced}${share(bounced)}${softBounced > 0 ? `; ${softBounced} more bounced for a while` : ""}`,
    `${"complained".padEnd(width)}  ${complained}${share(complained)}`,
  );
  if (senderRefused > 0)
    lines.push(
      `${"refused".padEnd(width)}  ${senderRefused}${share(senderRefused)} because of the sender, not the reader`,
      `Warning: receiving servers refused ${senderRefused === 1 ? "a mail" : `${senderRefused} mails`} of this edition over the sending domain (policy, reputation, SPF, DKIM or DMARC, reverse DNS): check the domain's DNS records and the relay's standing. The readers stay on the list.`,
    );
  if (status.counts.sent > 0 && complained / status.counts.sent >= COMPLAINT_RATE_LIMIT)
    lines.push(
      `The complaint rate is at or above 0.3 %, where Gmail and Yahoo start refusing a bulk sender's mail: check that every reader asked for it.`,
    );
  if (status.lastError) lines.push(`last error: ${maskAddresses(status.lastError)}`);
  if (status.lastCall) lines.push(lastCallText(status.lastCall));
  if (status.counts.unknown > 0)
    lines.push(
      `${status.counts.unknown} mails were being sent when a sender stopped: they may or may not have arrived. \`send ${date} --retry-unknown\` sends them again.`,
    );
  return `${lines.join("\n")}\n`;
}

const CLOCKS: Record<NonNullable<SendCall["clock"]>, string> = {
  process: "the runtime's CPU clock",
  estimate: "an estimate from the mails sent, as this runtime has no CPU clock",
};
const STOPS: Record<string, string> = {
  cpu: "stopped at the worker's CPU budget",
  time: "stopped at its time per call",
  signal: "stopped because the platform was about to stop the worker",
};

/** The last `send-effect` call: what it sent, the CPU it counted and with which clock, why it stopped. */
function lastCallText(call: SendCall): string {
  const cpu =
    call.clock && call.workerCpuMs !== null
      ? `; the worker's CPU ${call.workerCpuMs} ms of its ${call.budgetMs} ms budget (this call ${call.cpuMs} ms), counted by ${CLOCKS[call.clock]}`
      : "; no CPU budget";
  const stop = call.stoppedBy ? `; ${STOPS[call.stoppedBy] ?? call.stoppedBy}` : "";
  return `last send-effect call (${call.at}): ${call.sent} sent${stop}${cpu}`;
}
