/**
 * Before the backend tests: a PostgreSQL server for the integration suites. `DATABASE_URL`, when
 * set, is used instead (each test file creates its own database there). Without PostgreSQL
 * binaries the suites are skipped with one line, except under CI, where that is an error.
 */
import {
  postgresAvailable,
  POSTGRES_BIN,
  startPostgres,
  type PostgresServer,
} from "../../toolkit/postgres-server.ts";

declare global {
  // The teardown runs in the same process as the setup.
  var __newsletterPostgres: PostgresServer | undefined;
}

export default async function globalSetup(): Promise<void> {
  if (process.env.DATABASE_URL) {
    process.env.TEST_DATABASE_URL = process.env.DATABASE_URL;
    return;
  }
  if (!postgresAvailable()) {
    const hint = `no PostgreSQL at ${POSTGRES_BIN} (apt-get install postgresql, or set DATABASE_URL)`;
    if (process.env.CI)
      throw new Error(`The PostgreSQL integration tests need a server and CI is set: ${hint}.`);
    console.log(`\nPostgreSQL integration tests skipped: ${hint}.`);
    return;
  }
  globalThis.__newsletterPostgres = await startPostgres();
  process.env.TEST_DATABASE_URL = globalThis.__newsletterPostgres.url;
}
