import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';

/**
 * Reads on the hot request paths (the session lookup, lists) go straight to MikroORM's own pg
 * pool (`getNativeClient`, public API) as named, prepared statements: PostgreSQL parses and
 * plans each once per connection, and nothing builds SQL or hydrates entities per request.
 * Most writes go through the unit of work; the hot ones (a slide's create and delete) are
 * statements sent in one round trip (`inOneTrip` below). Parameters are `$1, $2, …`.
 */
export interface SqlQueryable {
  query<R extends object>(config: SqlQuery): Promise<{ rows: R[]; rowCount: number | null }>;
}

export interface SqlQuery {
  /** Named: prepared once per connection; unnamed: parsed and planned on every call. */
  name?: string;
  text: string;
  values: unknown[];
  /**
   * How many statements `text` holds, when more than one (`inOneTrip`). PostgreSQL applies
   * `statement_timeout` to each statement of such a message, so the client's deadline for the
   * call (`app/database.ts`, which reads this; pg ignores it) must allow that much for each.
   */
  statements?: number;
}

/**
 * Statements on a pg pool, each on a client checked out for it. Not `pool.query`: that passes
 * pg a callback, which would escape the per-statement deadline of the pool's clients
 * (`app/database.ts`), and a frozen database would then hold requests forever.
 */
export function pooledQueries(pool: Pool): SqlQueryable {
  return {
    async query(config) {
      const client = await pool.connect();
      try {
        return (await client.query(config)) as never;
      } finally {
        client.release();
      }
    },
  };
}

const pools = new WeakMap<object, Promise<SqlQueryable>>();

/** The pool behind `em`, wrapped once per connection object. */
export function preparedQueries(em: EntityManager): Promise<SqlQueryable> {
  const connection = em.getConnection();
  let pool = pools.get(connection);
  if (!pool) {
    pool = connection.getNativeClient().then(pooledQueries, (error: unknown) => {
      pools.delete(connection); // asked again by the next call
      throw error;
    });
    pools.set(connection, pool);
  }
  return pool;
}

// A statement's name follows from its text, so two texts never share a name on one connection.
const names = new Map<string, string>();
function nameOf(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `q_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Rows of one read-only statement, prepared once per connection. Outside transactions only:
 * the pool's connection is not the one a transaction of `em` holds. Statement texts must be
 * fixed (or drawn from a small fixed set): each distinct text is prepared on every connection.
 *
 * `planEachCall`: for statements whose best plan depends on the values (a `LIMIT`, or how many
 * rows a filter matches). A prepared statement may switch to a generic plan after five runs,
 * one chosen without the values: for the event log's page that was a sort of a million rows
 * instead of a walk down an index (`npm run bench:events`: 540 ms instead of 2). Such statements
 * go unnamed, planned with their values every time, like the ORM's.
 */
export async function readRows<R extends object>(
  em: EntityManager,
  text: string,
  values: unknown[],
  options: { planEachCall?: boolean } = {},
): Promise<R[]> {
  if (em.isInTransaction()) throw new Error('readRows reads outside transactions only');
  const queries = await preparedQueries(em);
  const name = options.planEachCall ? undefined : nameOf(text);
  const { rows } = await queries.query<R>({ name, text, values });
  return rows;
}

/**
 * Statements sent as one message (PostgreSQL's simple query protocol): one round trip, run as one
 * implicit transaction (all of them or none, no BEGIN or COMMIT of their own), each statement with
 * a snapshot of its own, so one that follows a `for update` sees everything the lock's previous
 * holder committed. The hot writes use it (a slide's create and delete: `npm run bench:http`).
 * Values are written into the text as literals (`?`), escaped by MikroORM's platform as
 * `em.execute` does; a failure is MikroORM's exception of its kind (a unique violation is a
 * `UniqueConstraintViolationException`). Outside transactions only. Answers the rows of the last
 * statement. The client waits for the message as long as the server may legitimately take: the
 * statement timeout for each statement (`SqlQuery.statements`), so a lock wait followed by a write
 * is never abandoned as unanswered (a 503) while the server goes on to commit it.
 */
export async function inOneTrip<R extends object>(
  em: EntityManager,
  statements: [text: string, values: unknown[]][],
): Promise<R[]> {
  if (em.isInTransaction()) throw new Error('inOneTrip writes outside transactions only');
  const platform = em.getPlatform();
  const text = statements.map(([sql, values]) => platform.formatQuery(sql, values)).join(';\n');
  const queries = await preparedQueries(em);
  let results: { rows: R[] } | { rows: R[] }[];
  try {
    // No values: pg sends the text as one simple query, and answers each statement's result.
    results = (await queries.query<R>({ text, values: [], statements: statements.length })) as
      | { rows: R[] }
      | { rows: R[] }[];
  } catch (error) {
    throw em.getDriver().convertException(error as Error);
  }
  return (Array.isArray(results) ? results.at(-1)! : results).rows;
}
