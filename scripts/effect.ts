/**
 * `npm run effect -- preview|send|status YYYY-MM-DD [--to ADDRESS] [--retry-unknown]`: the
 * operator's commands for the Effect of the Day, against the same storage as the local stack
 * (DATABASE_URL, or PGlite in DATA_DIR). A local stack that holds the PGlite folder runs the
 * command itself (server/effect-operator.ts); otherwise this process opens the storage.
 */
import { parseArgs } from "node:util";
import { EditionError, maskingLogger } from "../supabase/functions/_shared/hosts.ts";
import { dataDirHolder } from "../server/data-dir-lock.ts";
import {
  type EffectCommand,
  effectContext,
  EffectUsageError,
  parseEffectCommand,
  runEffectCommand,
} from "../server/effect-commands.ts";
import { handToStack } from "../server/effect-operator.ts";
import { loadDotEnv, parseLocalEnv } from "../server/local-env.ts";
import { readSenderIdentity } from "../src/content/read-brand.ts";
import { stdoutLogger } from "../server/stdout-logger.ts";
import { openStorage } from "../server/storage.ts";

const USAGE = `Usage:
  npm run effect -- preview YYYY-MM-DD              write the mail as it will be sent under $DATA_DIR/preview/
  npm run effect -- send YYYY-MM-DD --to ADDRESS    one test mail; records nothing for the list
  npm run effect -- send YYYY-MM-DD [--retry-unknown]
                                                    send to the confirmed list (again: continues, mails nobody twice)
  npm run effect -- status YYYY-MM-DD               deliveries per state`;

export function parseCommandLine(args: string[]): EffectCommand {
  let parsed: ReturnType<
    typeof parseArgs<{
      options: { to: { type: "string" }; "retry-unknown": { type: "boolean" } };
      allowPositionals: true;
    }>
  >;
  try {
    parsed = parseArgs({
      args,
      options: { to: { type: "string" }, "retry-unknown": { type: "boolean" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new EffectUsageError((error as Error).message);
  }
  return parseEffectCommand(parsed.positionals, parsed.values);
}

export async function run(args: string[], env = process.env, signal?: AbortSignal): Promise<string> {
  const command = parseCommandLine(args);
  const { dataDir, databaseUrl, publicDir, port, contentDir } = parseLocalEnv(env);
  if (!databaseUrl && dataDirHolder(dataDir) !== null) {
    const answer = await handToStack(dataDir, command);
    if (!answer)
      throw new Error(
        `${dataDir} is held by process ${dataDirHolder(dataDir)}, which does not take effect commands (a local stack from before this version?). Restart it, or stop it first.`,
      );
    if (answer.usage) throw new EditionError(answer.output.trim());
    if (!answer.ok) throw new Error(answer.output.trim());
    return `(run by the local stack that holds ${dataDir})\n${answer.output}`;
  }
  const defaultSiteUrl = `http://localhost:${port}`;
  // status and preview only read: a PostgreSQL database is never migrated by them.
  const storage = await openStorage({ databaseUrl, dataDir, readOnly: command.action !== "send" });
  try {
    const log = maskingLogger(stdoutLogger);
    const ctx = effectContext(
      env,
      { db: storage.db, dataDir, publicDir, identity: readSenderIdentity(contentDir), log, signal },
      defaultSiteUrl,
    );
    if (!databaseUrl) {
      // This process holds the PGlite folder: anything still `sending` was a dead process's.
      const stale = await ctx.effects.markStaleAsUnknown(true);
      if (stale > 0) log.warn(`${stale} mails a stopped sender was sending are now unknown`);
    }
    return await runEffectCommand(command, ctx);
  } finally {
    await storage.close();
  }
}

if (require.main === module) {
  loadDotEnv();
  const stop = new AbortController();
  // Ctrl-C: the batch in hand is finished and recorded, the rest stays queued for the next run.
  process.once("SIGINT", () => stop.abort());
  process.once("SIGTERM", () => stop.abort());
  run(process.argv.slice(2), process.env, stop.signal).then(
    (output) => process.stdout.write(output),
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      console.error(error instanceof EffectUsageError ? `${message}\n\n${USAGE}` : `effect: ${message}`);
      process.exit(error instanceof EffectUsageError ? 2 : 1);
    },
  );
}
