import pg from 'pg';

/**
 * A transaction on its own connection, for staging a concurrent change: what it changes or
 * locks makes a request wait at exactly that row until `commit()`, so a test can let a
 * request in flight meet a change committed "meanwhile" deterministically.
 */
export async function openTransaction(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('begin');
  let open = true;
  return {
    query: (sql: string, params: unknown[] = []) => client.query(sql, params),
    async commit() {
      if (!open) return;
      open = false;
      await client.query('commit');
      await client.end();
    },
    async rollback() {
      if (!open) return;
      open = false;
      await client.query('rollback').catch(() => {});
      await client.end();
    },
  };
}

/** Waits until `count` sessions of the database wait for a lock (the requests reached the row). */
export function waitForLockWaiters(databaseUrl: string, count: number, timeoutMs = 10_000) {
  return waitUntil(
    databaseUrl,
    `select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`,
    [],
    (n) => n >= count,
    (n) => `${n} of ${count} lock waiters in time`,
    timeoutMs,
  );
}

/**
 * Waits until a session waits for a lock on `table` itself (a write behind a `lock table … in share
 * mode`). Read from pg_locks: unlike a session's wait event, it is never a wait that just ended.
 */
export function waitForTableLockWaiter(databaseUrl: string, table: string, timeoutMs = 10_000) {
  return waitUntil(
    databaseUrl,
    `select count(*)::int as n from pg_locks
      where locktype = 'relation' and relation = $1::regclass and not granted`,
    [table],
    (n) => n >= 1,
    () => `no session waited for a lock on ${table} in time`,
    timeoutMs,
  );
}

/** Polls a count until it meets `done`. */
async function waitUntil(
  databaseUrl: string,
  countSql: string,
  values: unknown[],
  done: (n: number) => boolean,
  failure: (n: number) => string,
  timeoutMs: number,
) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await client.query(countSql, values);
      if (done(rows[0].n)) return;
      if (Date.now() > deadline) throw new Error(failure(rows[0].n));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await client.end();
  }
}
