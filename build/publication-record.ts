/**
 * The build's last step: which day and which Effects it published, kept beside Gatsby's cache, so
 * a test or `npm start` can tell a build made for another day from a current one
 * (scripts/site-build.ts reads it).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { effectsDir, PUBLICATION_RECORD, type PublicationRecord } from "../src/effects/effects";

export async function writePublicationRecord(today: string): Promise<void> {
  const record: PublicationRecord = { today, effectsDir: effectsDir() };
  await mkdir(path.dirname(PUBLICATION_RECORD), { recursive: true });
  await writeFile(PUBLICATION_RECORD, `${JSON.stringify(record)}\n`);
}
