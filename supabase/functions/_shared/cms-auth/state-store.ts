/**
 * That a cms-auth state is used once: the callback claims its id, and a second claim of the same
 * id (a replayed callback address) finds it taken. Expired ids are deleted as new ones are claimed;
 * after its expiry a state is refused by its signature's expiry anyway.
 */
import type { SqlExecutor } from "../db/sql-executor.ts";

export interface StateStore {
  /** True the first time `id` is claimed; false ever after, while its row lives. */
  claim(id: string, expiresAt: Date, now: Date): Promise<boolean>;
}

export function createStateStore(db: SqlExecutor): StateStore {
  return {
    async claim(id, expiresAt, now) {
      return db.transaction(async (tx) => {
        await tx.query("delete from cms_auth_states where expires_at < $1", [now]);
        const rows = await tx.query(
          "insert into cms_auth_states (id, expires_at) values ($1, $2) on conflict (id) do nothing returning id",
          [id, expiresAt],
        );
        return rows.length === 1;
      });
    },
  };
}
