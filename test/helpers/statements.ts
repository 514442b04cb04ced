import type { TestApp } from './test-app.ts';

/**
 * The SQL statements the app sends while `run` runs (`name: text` for named, prepared ones).
 * Every statement of the app passes through a client of MikroORM's one pg pool; start the app
 * without background workers, so that every statement counted is the requests'.
 */
export async function statementsDuring(app: TestApp, run: () => Promise<void>): Promise<string[]> {
  const pool = await app.app.database.orm.em.getConnection().getNativeClient();
  const statements: string[] = [];
  let counting = true;
  const watched = new WeakSet<object>();
  pool.on('acquire', (client) => {
    if (watched.has(client)) return;
    watched.add(client);
    const query = client.query as (...args: unknown[]) => unknown;
    (client as unknown as { query: typeof query }).query = (...args) => {
      const [first] = args as [string | { name?: string; text: string }];
      if (counting) statements.push(typeof first === 'string' ? first : `${first.name}: ${first.text}`);
      return query.apply(client, args);
    };
  });
  try {
    await run();
  } finally {
    counting = false;
  }
  return statements;
}

const isRateLimitCount = (statement: string) => statement.startsWith('rate_limit_add_counts: ');

/**
 * `statements` without the shared rate limit's counts, and those counts: every request is
 * counted in PostgreSQL (the limit holds across instances), at most one statement a request
 * (requests in flight together share one).
 */
export function apartFromRateLimitCounts(statements: string[]): { own: string[]; counts: string[] } {
  return {
    own: statements.filter((s) => !isRateLimitCount(s)),
    counts: statements.filter(isRateLimitCount),
  };
}
