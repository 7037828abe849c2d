/**
 * `npm run report -- mail` and `npm run report -- preview`: the owner's weekly report (the last
 * full week, Monday to Sunday in the brand's time zone), sent to OWNER_EMAIL now through the
 * configured mail transport (the outbox folder when none is), or written under
 * `$DATA_DIR/preview/` to look at first (`.eml` as sent, `.html` with its chart in place, `.png`),
 * as `npm run effect -- preview` writes an Effect. Neither records anything: the week's scheduled
 * mail still goes on Monday (`weeklyReport().sendIfDue()`, on Supabase after send-effect, on the
 * local stack each minute). The same function runs in the `npm run report` process
 * (scripts/report-mail.ts) and, when a local stack holds the PGlite folder, inside that stack
 * (server/effect-operator.ts hands it over).
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import {
  chartTimes,
  type DraftedReport,
  maskEmail,
  type MailMessage,
  weekLabel,
  type WeeklyReport,
} from "../supabase/functions/_shared/hosts.ts";
import { composeMime, writeWhole } from "./outbox-mailer.ts";
import { ReportUsageError } from "./report-command.ts";

export type ReportMailCommand = { action: "mail" } | { action: "preview" };

/** The usage lines of the two subcommands, for `npm run report`'s usage text. */
export const REPORT_MAIL_USAGE = `  npm run report -- mail                  the last full week's report to OWNER_EMAIL, now
  npm run report -- preview               that mail under $DATA_DIR/preview/ (.eml, .html, .png)`;

/** `mail` or `preview` from the command line's first word; null for any other command line. */
export function parseReportMailCommand(args: readonly string[]): ReportMailCommand | null {
  const [first, ...rest] = args;
  if (first !== "mail" && first !== "preview") return null;
  if (rest.length > 0) throw new ReportUsageError(`${first} takes nothing more (got "${rest.join(" ")}").`);
  return { action: first };
}

/** A command that came over the operator socket, checked as the command line is. */
export function reportMailCommandFromJson(value: unknown): ReportMailCommand {
  const action = (value as { action?: unknown } | null)?.action;
  const command = typeof action === "string" ? parseReportMailCommand([action]) : null;
  if (!command || Object.keys(value as object).length !== 1)
    throw new ReportUsageError('The command must be {"action": "mail"} or {"action": "preview"}.');
  return command;
}

/** The HTML part with its pictures in place (data: URLs), for a browser, which has no `cid:`. */
export function htmlWithPictures(message: MailMessage): string {
  let html = message.html;
  for (const image of message.inlineImages ?? [])
    html = html.replaceAll(
      `cid:${image.contentId}`,
      `data:${image.contentType};base64,${Buffer.from(image.content).toString("base64")}`,
    );
  return html;
}

/** Writes the drafted mail as `.eml`, `.html` and `.png` in `dir`; their paths. */
function writePreview(drafted: DraftedReport, dir: string): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const base = path.join(dir, `weekly-report-${drafted.week.from}`);
  const files = { eml: `${base}.eml`, html: `${base}.html`, png: `${base}.png` };
  return composeMime(drafted.message).then((mime) => {
    writeWhole(files.eml, mime);
    writeWhole(files.html, htmlWithPictures(drafted.message));
    const [chart] = drafted.message.inlineImages ?? [];
    if (chart) writeWhole(files.png, chart.content);
    return chart ? [files.eml, files.html, files.png] : [files.eml, files.html];
  });
}

/** Runs one command with a backend's weekly report; the text to print. */
export async function runReportMailCommand(
  command: ReportMailCommand,
  ctx: { weeklyReport: WeeklyReport; dataDir: string; mailDescription: () => string },
): Promise<string> {
  if (command.action === "preview") {
    const drafted = await ctx.weeklyReport.preview();
    const files = await writePreview(drafted, path.join(ctx.dataDir, "preview"));
    return `Preview of the weekly report of ${weekLabel(drafted.week)} ("${drafted.message.subject}"; ${chartTimes(drafted.chart)}):\n${files.join("\n")}\n`;
  }
  const sent = await ctx.weeklyReport.sendNow();
  return `Weekly report of ${weekLabel(sent.week)} sent to ${maskEmail(sent.to)} through ${ctx.mailDescription()} (${chartTimes(sent.chart)}); the scheduled one still goes on Monday.\n`;
}
