import type { MikroORM } from '@mikro-orm/postgresql';

/**
 * koa-session's external store, in PostgreSQL: the cookie holds only a signed random key,
 * the session lives in `session`. Logout deletes the row, so it is revoked everywhere, and
 * every instance of the service sees the same sessions.
 */
export function createSessionStore(orm: MikroORM) {
  const connection = () => orm.em.getConnection();
  return {
    async get(key: string): Promise<Record<string, unknown> | undefined> {
      const rows: { data: Record<string, unknown> }[] = await connection().execute(
        'select data from session where id = ? and expires_at > now()',
        [key],
      );
      return rows[0]?.data;
    },
    async set(key: string, session: Record<string, unknown>, maxAge: number | 'session'): Promise<void> {
      // Only signed-in sessions are stored; there is nothing else to keep.
      if (typeof session.userId !== 'string') return;
      const ttlMs = typeof maxAge === 'number' ? maxAge : 24 * 3600 * 1000;
      await connection().execute(
        `insert into session (id, user_id, data, expires_at, created_at)
         values (?, ?, ?, now() + make_interval(secs => ?), now())
         on conflict (id) do update set data = excluded.data, expires_at = excluded.expires_at`,
        [key, session.userId, JSON.stringify(session), ttlMs / 1000],
      );
    },
    async destroy(key: string): Promise<void> {
      await connection().execute('delete from session where id = ?', [key]);
    },
  };
}

/** Expired rows are never read (see `get`); this keeps the table small. */
export async function deleteExpiredSessions(orm: MikroORM): Promise<void> {
  await orm.em.getConnection().execute('delete from session where expires_at <= now()');
}
