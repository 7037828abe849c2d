/**
 * `npm run subscribers -- stats`, `export [--status confirmed] [--output file.csv]`, `show EMAIL`,
 * `forget EMAIL` and `import FILE --from PROVIDER [--welcome]`: the operator's view of the list, a
 * reader's rights and a list brought from another provider, against the same storage as the local
 * stack (DATABASE_URL, or PGlite in DATA_DIR). A local stack that holds the PGlite folder answers
 * it itself, over its operator socket, so the site need not stop; an import reads its file here
 * and sends the text (the stack may run as another user, or elsewhere in the tree), after checking
 * that it is the provider's export. CSV goes to standard output unless --output is given.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dataDirHolder } from "../server/data-dir-lock.ts";
import { askStack } from "../server/effect-operator.ts";
import { loadDotEnv, parseLocalEnv } from "../server/local-env.ts";
import { openStorage } from "../server/storage.ts";
import { importFileName, readExport } from "../server/subscriber-import.ts";
import type { Provider } from "../server/import-formats.ts";
import {
  parseCommand,
  type SubscribersCommand,
  subscribersText,
  UsageError,
} from "../server/subscriber-commands.ts";

const USAGE = `Usage:
  npm run subscribers -- stats
  npm run subscribers -- export [--status pending|confirmed|unsubscribed] [--output file.csv]
  npm run subscribers -- show EMAIL
  npm run subscribers -- forget EMAIL
  npm run subscribers -- import FILE --from mailchimp|substack|kit|buttondown|ghost [--welcome]`;

/** An import's file, read and checked before any storage is opened: a wrong file changes nothing. */
function withFile(command: SubscribersCommand): SubscribersCommand {
  if (command.action !== "import") return command;
  const file = command.file as string;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(code === "ENOENT" ? `${file} does not exist.` : `${file} cannot be read (${code}).`);
  }
  const fileName = importFileName(file);
  readExport(command.provider as Provider, fileName, text);
  return { ...command, fileName, text };
}

async function textOf(command: SubscribersCommand, env: NodeJS.ProcessEnv): Promise<string> {
  const { databaseUrl, dataDir, forgetKey } = parseLocalEnv(env);
  const request: SubscribersCommand = {
    action: command.action,
    ...(command.status ? { status: command.status } : {}),
    ...(command.email ? { email: command.email } : {}),
    ...(command.action === "import"
      ? {
          provider: command.provider,
          fileName: command.fileName,
          text: command.text,
          welcome: command.welcome,
        }
      : {}),
  };
  if (!databaseUrl && dataDirHolder(dataDir) !== null) {
    const answer = await askStack(dataDir, "/subscribers", request);
    if (!answer)
      throw new Error(
        `${dataDir} is held by process ${dataDirHolder(dataDir)}, which does not answer subscriber commands (a local stack from before this version?). Restart it, or stop it first.`,
      );
    if (!answer.ok) throw new Error(answer.output.trim());
    return answer.output;
  }
  // All but forget and import only read: a PostgreSQL database is never migrated by them.
  const writes = command.action === "forget" || command.action === "import";
  const storage = await openStorage({ databaseUrl, dataDir, readOnly: !writes });
  try {
    return await subscribersText(request, storage.db, storage.description, forgetKey);
  } finally {
    await storage.close();
  }
}

export async function run(args: string[], env = process.env): Promise<string> {
  const command = withFile(parseCommand(args));
  const text = await textOf(command, env);
  if (!command.output) return text;
  writeFileSync(command.output, text);
  return `${text.split("\r\n").length - 2} rows written to ${command.output}\n`;
}

if (require.main === module) {
  loadDotEnv();
  run(process.argv.slice(2)).then(
    (output) => process.stdout.write(output),
    (error: unknown) => {
      console.error(
        error instanceof UsageError
          ? `${error.message}\n\n${USAGE}`
          : `subscribers: ${error instanceof Error ? error.message : String(error)}`,
      );
      process.exit(error instanceof UsageError ? 2 : 1);
    },
  );
}
