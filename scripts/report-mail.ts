/**
 * The Node side of `npm run report -- mail|preview` (server/report-mail-command.ts): against the
 * same storage as the local stack (DATABASE_URL, or PGlite in DATA_DIR), only read; a local stack
 * that holds the PGlite folder runs the command itself, over its operator socket. scripts/report.ts
 * hands its command line here first.
 */
import { maskingLogger } from "../supabase/functions/_shared/hosts.ts";
import { dataDirHolder } from "../server/data-dir-lock.ts";
import { askStack } from "../server/effect-operator.ts";
import { parseLocalEnv } from "../server/local-env.ts";
import { createNodeBackend } from "../server/node-backend.ts";
import { ReportUsageError } from "../server/report-command.ts";
import { parseReportMailCommand, runReportMailCommand } from "../server/report-mail-command.ts";
import { stdoutLogger } from "../server/stdout-logger.ts";
import { openStorage } from "../server/storage.ts";
import { readSenderIdentity } from "../src/content/read-brand.ts";

export { REPORT_MAIL_USAGE } from "../server/report-mail-command.ts";

/**
 * The command from its first word on (`mail` or `preview`), against the same storage as the local
 * stack (DATABASE_URL, or PGlite in DATA_DIR), only read; null when the first word is neither.
 */
export async function reportMailText(args: readonly string[], env = process.env): Promise<string | null> {
  const command = parseReportMailCommand(args);
  if (!command) return null;
  const { dataDir, databaseUrl, publicDir, port, contentDir } = parseLocalEnv(env);
  if (!databaseUrl && dataDirHolder(dataDir) !== null) {
    const answer = await askStack(dataDir, "/report-mail", command);
    if (!answer)
      throw new Error(
        `${dataDir} is held by process ${dataDirHolder(dataDir)}, which does not answer npm run report -- ${command.action} (a local stack from before this version?). Restart it, or stop it first.`,
      );
    if (answer.usage) throw new ReportUsageError(answer.output.trim());
    if (!answer.ok) throw new Error(answer.output.trim());
    return `(run by the local stack that holds ${dataDir})\n${answer.output}`;
  }
  const storage = await openStorage({ databaseUrl, dataDir, readOnly: true });
  const backend = createNodeBackend(env, {
    db: storage.db,
    log: maskingLogger(stdoutLogger),
    identity: readSenderIdentity(contentDir),
    dataDir,
    publicDir,
    defaultSiteUrl: `http://localhost:${port}`,
    features: [],
  });
  try {
    return await runReportMailCommand(command, {
      weeklyReport: backend.weeklyReport(),
      dataDir,
      mailDescription: backend.mailDescription,
    });
  } finally {
    await backend.closeMail();
    await storage.close();
  }
}
