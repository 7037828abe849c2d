/**
 * An Effect's outcomes in `npm run report` once readers it reached have been forgotten
 * (`npm run subscribers -- forget EMAIL`): the mail sent to them and the refusals stay counted,
 * each once, without the readers. On PGlite, migrated as the local stack's.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { createPgliteExecutor } from "../../../../../server/pglite-executor.ts";
import { preparedDataDir } from "../../../../../test/support/test-stack.ts";
import type { SqlExecutor } from "../../db/sql-executor.ts";
import { createReadersRights } from "../../subscriptions/readers-rights.ts";
import { readEffectOutcomes } from "../effect-outcomes.ts";

const DAY = "2026-11-23";
const RANGE = { from: DAY, to: DAY };
const FORGET_KEY = "a-key-of-thirty-two-characters-or-more";

describe("an Effect's outcomes after its readers were forgotten", () => {
  let dataDir: string;
  let db: SqlExecutor;

  beforeAll(async () => {
    dataDir = await preparedDataDir();
    db = await createPgliteExecutor(path.join(dataDir, "pglite"));
    await db.query(
      `insert into effect_editions (edition_date, subject, html, text, url, prepared_at)
       values ($1::date, 'The Effect', '<p>x</p>', 'x', 'https://example.com/', $1::date)`,
      [DAY],
    );
    // Two readers the mail server refused for good at the send, one who got the Effect.
    for (const [email, status, error] of [
      ["refused.one@example.com", "failed", "550 refused.one@example.com: no such user"],
      ["refused.two@example.com", "failed", "550 refused.two@example.com: no such user"],
      ["reader@example.com", "sent", null],
    ]) {
      const [row] = await db.query<{ id: string }>(
        `insert into subscribers (email, status, confirmed_at) values ($1, 'confirmed', now()) returning id`,
        [email],
      );
      await db.query(
        `insert into effect_deliveries (edition_date, subscriber_id, recipient, status, last_error, sent_at)
         values ($1::date, $2, $3, $4, $5, case when $4 = 'sent' then now() end)`,
        [DAY, row.id, email, status, error],
      );
    }
  });
  afterAll(async () => {
    await db?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("counts the same mailed, bounced and lost, and keeps no address", async () => {
    const before = await readEffectOutcomes(db, RANGE);
    expect(before).toEqual([
      { date: DAY, subject: "The Effect", mailed: 1, bounced: 2, complained: 0, unsubscribed: 0, lost: 2 },
    ]);
    const rights = createReadersRights(db, FORGET_KEY);
    const now = new Date();
    for (const email of ["refused.one@example.com", "refused.two@example.com", "reader@example.com"])
      await rights.forget(email, now);

    expect(await readEffectOutcomes(db, RANGE)).toEqual(before);
    expect(
      await db.query(
        `select subscriber_id, recipient, last_error, status from effect_deliveries order by status`,
      ),
    ).toEqual([
      { subscriber_id: null, recipient: null, last_error: null, status: "failed" },
      { subscriber_id: null, recipient: null, last_error: null, status: "failed" },
      { subscriber_id: null, recipient: null, last_error: null, status: "sent" },
    ]);
  });
});
