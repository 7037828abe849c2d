/**
 * The pinned Supabase CLI (the `supabase` devDependency: what `npx supabase` runs in the
 * repository), for tests that run it for real: in a folder laid out as the repository is, against
 * a throwaway PostgreSQL, offline.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./stack.ts";

const execFileAsync = promisify(execFile);

export const SUPABASE_CLI = path.join(ROOT, "node_modules/.bin/supabase");

/** Lays out `dir` as the CLI expects a project: `supabase/config.toml` and these migrations. */
export function layCliProject(dir: string, migrations: string): string {
  mkdirSync(path.join(dir, "supabase"), { recursive: true });
  symlinkSync(migrations, path.join(dir, "supabase/migrations"));
  copyFileSync(path.join(ROOT, "supabase/config.toml"), path.join(dir, "supabase/config.toml"));
  return dir;
}

/** `supabase ARGS --db-url URL` run in `project`; the test server speaks no TLS. */
export async function supabaseOnDatabase(project: string, args: string[], url: string) {
  const dbUrl = new URL(url);
  dbUrl.searchParams.set("sslmode", "disable");
  return execFileAsync(SUPABASE_CLI, [...args, "--db-url", dbUrl.toString()], {
    cwd: project,
    encoding: "utf8",
  });
}
