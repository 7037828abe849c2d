/**
 * The same tests on every database the run has: `forEachBackend("... on %s", (backend, postgresUrl) => ...)`
 * is a `describe` per backend, PGlite always and PostgreSQL when there is a test server (the
 * backend project's global setup starts one, or TEST_DATABASE_URL names one); with `{ deno: true }`
 * also the functions' Deno host on that server, and with `{ deno: true, gateway: true }` that host
 * behind the stand-in for Supabase's gateway too. `%s` in the title is the backend's name.
 */
import { testPostgresUrl } from "./databases.ts";

/** The local stack's two databases. */
export type Database = "PGlite" | "PostgreSQL";
/** A database, or the functions' Deno host (on PostgreSQL), straight or behind Supabase's gateway. */
export type Host = Database | "Deno" | "Deno behind Supabase's gateway";

/** The backends of this run: PostgreSQL and Deno only with a test PostgreSQL server. */
export function backends(options: { deno?: boolean; gateway?: boolean } = {}): Host[] {
  if (!testPostgresUrl()) return ["PGlite"];
  if (!options.deno) return ["PGlite", "PostgreSQL"];
  return options.gateway
    ? ["PGlite", "PostgreSQL", "Deno", "Deno behind Supabase's gateway"]
    : ["PGlite", "PostgreSQL", "Deno"];
}

type Body<B> = (backend: B, postgresUrl: string | undefined) => void;

export function forEachBackend(title: string, body: Body<Database>): void;
export function forEachBackend(
  title: string,
  options: { deno: true; gateway?: boolean },
  body: Body<Host>,
): void;
export function forEachBackend(
  title: string,
  bodyOrOptions: Body<Database> | { deno: true; gateway?: boolean },
  withDeno?: Body<Host>,
): void {
  const [list, body] =
    typeof bodyOrOptions === "function"
      ? [backends(), bodyOrOptions as Body<Host>]
      : [backends(bodyOrOptions), withDeno as Body<Host>];
  // The server's address for the backends that use it, none for PGlite.
  describe.each(list)(title, (backend) =>
    body(backend, backend === "PGlite" ? undefined : testPostgresUrl()),
  );
}
