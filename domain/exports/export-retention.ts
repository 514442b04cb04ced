import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../services.ts';

/** Exports handled per transaction (their rows stay locked while their objects are deleted). */
const BATCH = 50;

/**
 * Deletes the files of exports kept past their `expiresAt` (EXPORT_RETENTION_DAYS after they
 * completed): the export stays and answers `file: null`. An export whose deck was deleted goes
 * altogether, its files first. Rows are claimed `for update skip locked`, so instances sweeping at
 * once never take the same export; an object that cannot be deleted now keeps its row for the next
 * sweep. Each batch is a transaction of its own (a fork of `em`). Returns how many exports it swept.
 */
export async function sweepExpiredExports(em: EntityManager, services: Services): Promise<number> {
  const { storage, logger } = services;
  let swept = 0;
  for (;;) {
    const round = await em.fork().transactional(async (tx) => {
      const rows = await tx.execute<
        { id: string; file_key: string | null; captions_key: string | null; orphaned: boolean }[]
      >(
        `select id, file_key, captions_key, deck_id is null as orphaned from export_job
          where deck_id is null or (file_key is not null and expires_at < now())
          order by expires_at limit ? for update skip locked`,
        [BATCH],
      );
      const done: { id: string; orphaned: boolean }[] = [];
      for (const row of rows) {
        try {
          for (const key of [row.file_key, row.captions_key]) if (key) await storage.delete(key);
        } catch (error) {
          logger.warn({ err: error, exportId: row.id }, 'expired export kept: its file could not be deleted');
          continue;
        }
        done.push(row);
      }
      const ids = (orphaned: boolean) =>
        `{${done.filter((row) => row.orphaned === orphaned).map((row) => row.id)}}`;
      await tx.execute('delete from export_job where id = any(cast(? as uuid[]))', [ids(true)]);
      await tx.execute(
        `update export_job set file_key = null, file_size = null, file_sha256 = null, file_content_type = null,
                file_name = null, captions_key = null, captions_size = null, captions_sha256 = null
          where id = any(cast(? as uuid[]))`,
        [ids(false)],
      );
      return { claimed: rows.length, swept: done.length };
    });
    swept += round.swept;
    if (round.claimed < BATCH || round.swept === 0) return swept;
  }
}
