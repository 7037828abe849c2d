/** After the backend tests: stops the PostgreSQL server the setup started. */
export default function globalTeardown(): void {
  globalThis.__newsletterPostgres?.stop();
  globalThis.__newsletterPostgres = undefined;
}
