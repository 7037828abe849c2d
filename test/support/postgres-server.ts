/**
 * A throwaway PostgreSQL server for tests and benchmarks: initdb in a temporary folder, started on
 * a free loopback port with pg_ctl, removed on stop. PostgreSQL refuses to run as root, so as
 * root it runs as the `postgres` user (runuser), which owns the folder.
 */
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./free-port.ts";
import { readTextVariable } from "../../supabase/functions/_shared/contract/variables.ts";

export const POSTGRES_BIN = readTextVariable(process.env, "POSTGRES_BIN");
export const postgresAvailable = (): boolean => existsSync(path.join(POSTGRES_BIN, "initdb"));

export interface PostgresServer {
  url: string;
  /** Stops the server and removes its files. */
  stop(): void;
  /** Stops the server (fast shutdown: open sessions are cut off), keeping its data and port. */
  halt(): void;
  /** Starts a halted server again on the same port. */
  resume(): void;
}

function postgresUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

export async function startPostgres(): Promise<PostgresServer> {
  const dir = mkdtempSync(path.join(tmpdir(), "newsletter-pg-"));
  const owner = postgresUser();
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const run = (binary: string, args: string[]) => {
    const command = path.join(POSTGRES_BIN, binary);
    const [file, argv] = owner ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
    return execFileSync(file, argv, { stdio: "pipe", encoding: "utf8", timeout: 60_000 });
  };
  const data = path.join(dir, "data");
  const port = await freePort();
  const start = () =>
    run("pg_ctl", [
      "-D",
      data,
      "-l",
      path.join(dir, "server.log"),
      "-w",
      "-t",
      "30",
      "-o",
      // Durability off: a test database that is thrown away needs no fsync.
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`,
      "start",
    ]);

  try {
    run("initdb", [
      "-D",
      data,
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
      "--no-sync",
      "--no-instructions",
    ]);
    start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const output =
      error instanceof Error && "stderr" in error ? String((error as { stderr: unknown }).stderr) : "";
    throw new Error(
      `PostgreSQL did not start: ${error instanceof Error ? error.message : String(error)}\n${output}`,
    );
  }
  const halt = () => run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        halt();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    halt,
    resume: start,
  };
}
