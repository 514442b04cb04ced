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
export async function waitForLockWaiters(databaseUrl: string, count: number, timeoutMs = 10_000) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await client.query(
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`,
      );
      if (rows[0].n >= count) return;
      if (Date.now() > deadline) throw new Error(`${rows[0].n} of ${count} lock waiters in time`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await client.end();
  }
}
