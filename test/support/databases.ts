/**
 * One fresh database per test file on the test PostgreSQL server, so files run in parallel
 * without seeing each other's rows.
 */
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { readVariable } from "../../supabase/functions/_shared/contract/variables";

/** The server the global setup started (or TEST_DATABASE_URL); undefined when PostgreSQL is skipped. */
export const testPostgresUrl = (): string | undefined => readVariable(process.env, "TEST_DATABASE_URL");

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(serverUrl: string): Promise<TestDatabase> {
  const name = `newsletter_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const dropper = postgres(serverUrl, { max: 1, onnotice: () => undefined });
      try {
        await dropper.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
