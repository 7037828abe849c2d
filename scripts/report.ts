/**
 * `npm run report -- [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--output FILE] [--json]`: the owner's
 * growth report, from the same storage as the local stack (DATABASE_URL, or PGlite in DATA_DIR),
 * only read: a PostgreSQL database is never migrated by it. A local stack that holds the PGlite
 * folder reads the numbers itself, over its operator socket. Writes one self-contained HTML page
 * (named report, in the folder the command was typed in, unless --output) and prints its path;
 * --json prints the numbers instead.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { OwnerReport } from "../supabase/functions/_shared/hosts.ts";
import { dataDirHolder } from "../server/data-dir-lock.ts";
import { askStack } from "../server/effect-operator.ts";
import { loadDotEnv, parseLocalEnv, ROOT } from "../server/local-env.ts";
import {
  parseReportCommand,
  type ReportCommand,
  reportJson,
  ReportUsageError,
} from "../server/report-command.ts";
import { reportPage } from "../server/report-page.ts";
import { openStorage } from "../server/storage.ts";
import { readSenderIdentity } from "../src/content/read-brand.ts";
import { readVariable } from "../supabase/functions/_shared/contract/variables.ts";
import { REPORT_MAIL_USAGE, reportMailText } from "./report-mail.ts";

const USAGE = `Usage:
  npm run report                          the last 365 days as one HTML page: ./report.html
  npm run report -- --from YYYY-MM-DD --to YYYY-MM-DD
  npm run report -- --output FILE         the page (or with --json, the numbers) to FILE
  npm run report -- --json                the numbers as JSON on standard output
${REPORT_MAIL_USAGE}`;

/** The brand's display face, inlined into the page's headings. */
const DISPLAY_FONT = path.join(ROOT, "src/fonts/anton-basic-400-normal.woff2");

/** The numbers as JSON text, and where they were read. */
async function numbersOf(
  command: ReportCommand,
  env: NodeJS.ProcessEnv,
  timeZone: string,
): Promise<{ json: string; where: string }> {
  const { databaseUrl, dataDir } = parseLocalEnv(env);
  const request = {
    ...(command.from ? { from: command.from } : {}),
    ...(command.to ? { to: command.to } : {}),
  };
  if (!databaseUrl && dataDirHolder(dataDir) !== null) {
    const answer = await askStack(dataDir, "/report", request);
    if (!answer)
      throw new Error(
        `${dataDir} is held by process ${dataDirHolder(dataDir)}, which does not answer npm run report (a local stack from before this version?). Restart it, or stop it first.`,
      );
    if (answer.usage) throw new ReportUsageError(answer.output.trim());
    if (!answer.ok) throw new Error(answer.output.trim());
    return { json: answer.output, where: `${dataDir} (the running local stack)` };
  }
  const storage = await openStorage({ databaseUrl, dataDir, readOnly: true });
  try {
    return { json: await reportJson(request, storage.db, timeZone), where: storage.description };
  } finally {
    await storage.close();
  }
}

/** Runs the command; the result is what to print. */
export async function run(args: string[], env = process.env): Promise<string> {
  const mailed = await reportMailText(args, env);
  if (mailed !== null) return mailed;
  const command = parseReportCommand(args);
  const { contentDir } = parseLocalEnv(env);
  const identity = readSenderIdentity(contentDir);
  const { json, where } = await numbersOf(command, env, identity.timeZone);
  if (command.json && command.output === undefined) return json;
  // npm runs the script in the project's folder; INIT_CWD is where the owner typed the command.
  const file = path.resolve(readVariable(env, "INIT_CWD") ?? process.cwd(), command.output ?? "report.html");
  const text = command.json
    ? json
    : reportPage(JSON.parse(json) as OwnerReport, {
        brandName: identity.brandName,
        newsletterName: identity.newsletterName,
        where,
        displayFont: readFileSync(DISPLAY_FONT),
      });
  writeFileSync(file, text);
  return `${file}\n`;
}

if (require.main === module) {
  loadDotEnv();
  run(process.argv.slice(2)).then(
    (output) => process.stdout.write(output),
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      console.error(error instanceof ReportUsageError ? `${message}\n\n${USAGE}` : `report: ${message}`);
      process.exit(error instanceof ReportUsageError ? 2 : 1);
    },
  );
}
