/**
 * Before the backend tests: a PostgreSQL server for the integration suites. `TEST_DATABASE_URL`,
 * when set, names a server to use instead (each test file creates and drops its own database
 * there). Never `DATABASE_URL`: that is the list's own database, which a test run must not touch. Without PostgreSQL
 * binaries the suites are skipped with one line, except under CI, where that is an error.
 */
import { postgresAvailable, POSTGRES_BIN, startPostgres, type PostgresServer } from "../postgres-server.ts";
import { readVariable } from "../../../supabase/functions/_shared/contract/variables.ts";

declare global {
  // The teardown runs in the same process as the setup.
  var __newsletterPostgres: PostgresServer | undefined;
}

export default async function globalSetup(): Promise<void> {
  if (readVariable(process.env, "TEST_DATABASE_URL")) return;
  if (!postgresAvailable()) {
    const hint = `no PostgreSQL at ${POSTGRES_BIN} (apt-get install postgresql, or set TEST_DATABASE_URL)`;
    if (readVariable(process.env, "CI"))
      throw new Error(`The PostgreSQL integration tests need a server and CI is set: ${hint}.`);
    console.log(`\nPostgreSQL integration tests skipped: ${hint}.`);
    return;
  }
  globalThis.__newsletterPostgres = await startPostgres();
  process.env.TEST_DATABASE_URL = globalThis.__newsletterPostgres.url;
}
