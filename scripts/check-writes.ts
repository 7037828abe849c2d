/**
 * `npm run check:writes` (part of `npm run check`): each table of the database has one module
 * that writes it. Every `insert into`, `update`, `delete from`, `truncate` or `merge into` of a
 * table the migrations create, in the project's code (not its tests, migrations or scheduled
 * SQL), must be in that table's owner, listed in TABLE_OWNERS; a write from anywhere else, or to
 * a table with no owner, fails the check with its file and line. Another module that needs a
 * table changed calls its owner's named statement in its own transaction, so what a write
 * records is decided in one place (docs/architecture.md, "What may import what").
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(__dirname, "..");

const CORE = "supabase/functions/_shared";

/** Each table and the one module that writes it. */
export const TABLE_OWNERS: Record<string, string> = {
  subscribers: `${CORE}/subscriptions/subscriber-rows.ts`,
  mailbox_mail_limits: `${CORE}/subscriptions/subscriber-store.ts`,
  forgotten_readers: `${CORE}/subscriptions/readers-rights.ts`,
  rate_limits: `${CORE}/subscriptions/rate-limit.ts`,
  mail_jobs: `${CORE}/mail/mail-queue.ts`,
  mail_pace: `${CORE}/mail/shared-pace.ts`,
  mail_events: `${CORE}/mail-events/event-store.ts`,
  effect_editions: `${CORE}/effect-sending/delivery-store.ts`,
  effect_deliveries: `${CORE}/effect-sending/delivery-store.ts`,
  effect_unsubscribe_tokens: `${CORE}/effect-sending/delivery-store.ts`,
  cms_auth_states: `${CORE}/cms-auth/state-store.ts`,
  cms_auth_handoffs: `${CORE}/cms-auth/handoff-store.ts`,
  owner_reports: `${CORE}/report/owner-report-store.ts`,
};

/** The code that runs: its tests, migrations and one-off SQL are not owners of anything. */
const CODE = /\.(ts|tsx|js|mjs|cjs)$/;
const NOT_CODE = /(^|\/)(__tests__|__mocks__)\/|^(test|e2e)\/|^supabase\/(migrations|sql)\//;

const WRITE =
  /\b(insert\s+into|update|delete\s+from|truncate(?:\s+table)?|merge\s+into)\s+(?:only\s+)?(?:public\.)?"?([a-z_][a-z0-9_]*)"?/gi;

/** The tables the migrations create. */
export function tablesOf(root: string): string[] {
  const folder = path.join(root, "supabase/migrations");
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*.sql"], {
    cwd: folder,
    encoding: "utf8",
  })
    .split("\n")
    .filter(Boolean);
  const tables = new Set<string>();
  for (const file of files)
    for (const [, name] of readFileSync(path.join(folder, file), "utf8").matchAll(
      /create\s+table\s+(?:if\s+not\s+exists\s+)?(?:public\.)?"?([a-z_][a-z0-9_]*)/gi,
    ))
      tables.add(name.toLowerCase());
  return [...tables].sort();
}

export interface WriteOutsideOwner {
  file: string;
  line: number;
  table: string;
  /** The table's owner, or null when it has none. */
  owner: string | null;
}

/** Every write to a table from a module that does not own it, in the tracked code of `root`. */
export function writesOutsideOwners(
  root: string,
  owners: Record<string, string> = TABLE_OWNERS,
): WriteOutsideOwner[] {
  const tables = new Set(tablesOf(root));
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\n")
    .filter((file) => CODE.test(file) && !NOT_CODE.test(file) && !file.startsWith("node_modules/"));
  const found: WriteOutsideOwner[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(path.join(root, file), "utf8");
    } catch {
      continue; // deleted in the work tree, still in the index
    }
    for (const match of text.matchAll(WRITE)) {
      const table = match[2].toLowerCase();
      if (!tables.has(table) || owners[table] === file) continue;
      const line = text.slice(0, match.index).split("\n").length;
      found.push({ file, line, table, owner: owners[table] ?? null });
    }
  }
  return found;
}

/** Checks this repository, or the one whose root is the first argument. */
function main(): void {
  const found = writesOutsideOwners(process.argv[2] ?? ROOT);
  for (const { file, line, table, owner } of found)
    console.error(
      owner
        ? `${file}:${line}: writes ${table}, which only ${owner} writes; call its statement instead`
        : `${file}:${line}: writes ${table}, which has no owner in scripts/check-writes.ts's TABLE_OWNERS`,
    );
  if (found.length > 0) process.exit(1);
}

if (require.main === module) main();
