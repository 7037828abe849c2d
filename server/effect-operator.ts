/**
 * How `npm run effect`, `npm run subscribers` and `npm run report` reach a running local stack on
 * PGlite, which only one process may open:
 * the stack listens on a Unix socket in its data folder, `$DATA_DIR/effect.sock`, and runs the
 * command itself. A socket rather than an HTTP route: it has no port to find or to guard, it is
 * never reachable from the network (even with HOST=0.0.0.0), and the folder's permissions decide
 * who may use it (the socket is made owner-only).
 */
import { chmodSync, existsSync, rmSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import path from "node:path";
import { EditionError, type Logger } from "../supabase/functions/_shared/hosts.ts";
import { type EffectCommand, effectCommandFromJson, EffectUsageError } from "./effect-commands.ts";
import { ImportFormatError } from "./import-formats.ts";
import { type ReportRequest, reportRequestFromJson, ReportUsageError } from "./report-command.ts";
import { type ReportMailCommand, reportMailCommandFromJson } from "./report-mail-command.ts";
import {
  type SubscribersCommand,
  subscribersCommandFromJson,
  UnknownAddress,
  UsageError,
} from "./subscriber-commands.ts";

export const operatorSocketPath = (dataDir: string) => path.join(dataDir, "effect.sock");
const MAX_SOCKET_PATH_BYTES = 107;

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** What the stack runs for the commands: an effect command, the subscriber commands, the report's numbers. */
export interface OperatorCommands {
  effect(command: EffectCommand, signal: AbortSignal): Promise<string>;
  subscribers(command: SubscribersCommand): Promise<string>;
  report(request: ReportRequest): Promise<string>;
  reportMail(command: ReportMailCommand): Promise<string>;
}

/**
 * Reads a command from the request body: the effect's at `/`, the subscribers' at `/subscribers`,
 * the report's at `/report`, the weekly report mail's (`report -- mail|preview`) at `/report-mail`.
 */
function commandOf(url: string | undefined, body: Buffer) {
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch {
    throw new EffectUsageError("The command is not JSON.");
  }
  if (url === "/report") return { kind: "report", command: reportRequestFromJson(value) } as const;
  if (url === "/report-mail")
    return { kind: "report-mail", command: reportMailCommandFromJson(value) } as const;
  return url === "/subscribers"
    ? ({ kind: "subscribers", command: subscribersCommandFromJson(value) } as const)
    : ({ kind: "effect", command: effectCommandFromJson(value) } as const);
}

export async function startOperatorSocket(
  dataDir: string,
  commands: OperatorCommands,
  log: Logger,
): Promise<{ close(): Promise<void> }> {
  const socketPath = operatorSocketPath(dataDir);
  // Linux keeps 107 bytes of a socket's path and quietly listens on the truncated one.
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES)
    throw new Error(`the path ${socketPath} is longer than a Unix socket's ${MAX_SOCKET_PATH_BYTES} bytes`);
  // Left by a stack that was killed: this process holds the folder now (the PGlite lock).
  rmSync(socketPath, { force: true });
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      // The operator pressed Ctrl-C: the send finishes its batch and stops.
      const cancel = new AbortController();
      response.on("close", () => {
        if (!response.writableFinished) cancel.abort();
      });
      let parsed: ReturnType<typeof commandOf>;
      try {
        parsed = commandOf(request.url, Buffer.concat(chunks));
      } catch (error) {
        const known =
          error instanceof EffectUsageError ||
          error instanceof UsageError ||
          error instanceof ReportUsageError;
        response.writeHead(400).end(`${known ? errorMessage(error) : "The command is not JSON."}\n`);
        return;
      }
      const name =
        parsed.kind === "effect"
          ? `effect ${parsed.command.action} ${parsed.command.date}`
          : parsed.kind === "report"
            ? "report"
            : parsed.kind === "report-mail"
              ? `report ${parsed.command.action}`
              : `subscribers ${parsed.command.action}`;
      log.info(`${name} (from npm run ${parsed.kind})`);
      const running =
        parsed.kind === "effect"
          ? commands.effect(parsed.command, cancel.signal)
          : parsed.kind === "report"
            ? commands.report(parsed.command)
            : parsed.kind === "report-mail"
              ? commands.reportMail(parsed.command)
              : commands.subscribers(parsed.command);
      running.then(
        (output) => response.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(output),
        (error: unknown) => {
          const expected =
            error instanceof EffectUsageError ||
            error instanceof EditionError ||
            error instanceof UnknownAddress ||
            error instanceof ImportFormatError ||
            error instanceof ReportUsageError;
          if (!expected) log.error(`${name}: ${errorMessage(error)}`);
          response.writeHead(expected ? 400 : 500).end(`${errorMessage(error)}\n`);
        },
      );
    });
  });
  // A send of a long list takes as long as it takes.
  server.requestTimeout = 0;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  const close = async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    rmSync(socketPath, { force: true });
  };
  try {
    chmodSync(socketPath, 0o600);
  } catch (error) {
    // Not left listening: an open socket would keep the process (and a test run) alive.
    await close();
    throw error;
  }
  return { close };
}

/** Runs `command` in the stack that holds `dataDir`; null when no stack listens there. */
export const handToStack = (dataDir: string, command: EffectCommand) => askStack(dataDir, "/", command);

/** Sends a command to the stack that holds `dataDir` at `path`; null when no stack listens there. */
export function askStack(
  dataDir: string,
  path: "/" | "/subscribers" | "/report" | "/report-mail",
  command: object,
): Promise<{ ok: boolean; usage: boolean; output: string } | null> {
  const socketPath = operatorSocketPath(dataDir);
  if (!existsSync(socketPath)) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(command);
    const request = httpRequest(
      { socketPath, method: "POST", path, headers: { "content-type": "application/json" } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            ok: response.statusCode === 200,
            usage: response.statusCode === 400,
            output: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", (error: NodeJS.ErrnoException) =>
      error.code === "ECONNREFUSED" || error.code === "ENOENT" ? resolve(null) : reject(error),
    );
    request.end(body);
  });
}
