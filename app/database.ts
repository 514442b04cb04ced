import type { Socket } from 'node:net';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import pg from 'pg';
import { startEmbeddedDatabase } from '../adapters/database/embedded-postgres.ts';
import { createSecretBox } from '../adapters/secret-box.ts';
import type { Logger } from '../domain/ports/logger.ts';
import type { SqlQuery } from '../domain/prepared-statements.ts';
import { createOrmConfig } from '../mikro-orm.config.ts';
import type { AppConfig } from './config.ts';
import { logEachMigration } from './migration-log.ts';
import type { Secrets } from './secrets.ts';

export interface Database {
  orm: MikroORM;
  /** The connection URL (the embedded server's when none was configured): for LISTEN. */
  url: string;
  /** True when the database answers `select 1` within `timeoutMs` (for /readyz). */
  ping(timeoutMs: number): Promise<boolean>;
  /** Closes the pool, then stops the embedded server if this process started it. */
  close(): Promise<void>;
}

export interface DatabaseTimeouts {
  /** Opening a connection (TCP, startup, authentication). */
  connectMs: number;
  /** Waiting for a pooled connection, opening one included. */
  acquireMs: number;
  /** One statement; 0: no limit. */
  statementMs: number;
}

/**
 * How long past `statement_timeout` the client waits for the server's own cancellation
 * before it gives up on the connection: a server that does not answer at all (stopped,
 * partitioned) never sends one.
 */
const UNANSWERED_GRACE_MS = 500;

/** How long closing the pool may take before the process goes on without it. */
const CLOSE_TIMEOUT_MS = 2000;

/** A statement the server did not answer in time; its connection has been dropped. */
export class DatabaseTimeout extends Error {
  // The code `isDependencyDown` (domain/errors.ts) already reads as "unavailable": a 503.
  readonly code = 'ETIMEDOUT';
  constructor(ms: number) {
    super(`The database did not answer within ${ms} ms`);
    this.name = 'DatabaseTimeout';
  }
}

/**
 * `pg` options (MikroORM passes `driverOptions` to the pool) that bound every wait on the
 * database, so a stalled server makes requests fail fast (503) instead of hanging:
 * `connectionTimeoutMillis` bounds acquiring (pg-pool) and connecting (pg), the server's
 * `statement_timeout` bounds slow statements, and a client-side deadline bounds statements
 * the server never answers. That deadline destroys the connection: pg-pool then discards it
 * on release, so a stalled query cannot be handed to the next request (no poisoned pool).
 */
export function timeoutDriverOptions(timeouts: DatabaseTimeouts): Record<string, unknown> {
  class DeadlineClient extends pg.Client {
    constructor(config: pg.ClientConfig) {
      // pg-pool hides the password as a non-enumerable property: a spread would drop it.
      super({ ...config, password: config.password, connectionTimeoutMillis: timeouts.connectMs });
      if (timeouts.statementMs === 0) return;
      const query = this.query.bind(this) as (...args: unknown[]) => unknown;
      const self = this as unknown as { connection: { stream: Socket }; query: typeof query };
      self.query = (...args) => {
        const result = query(...args);
        if (!(result instanceof Promise)) return result;
        // PostgreSQL times each statement of a message separately: a message of several
        // (`SqlQuery.statements`, sent by `inOneTrip`) may take the timeout for each before it
        // commits, and a deadline shorter than that would answer 503 for a committed write.
        const { statements = 1 } = (typeof args[0] === 'object' ? args[0] : {}) as Partial<SqlQuery>;
        const deadlineMs = timeouts.statementMs * statements + UNANSWERED_GRACE_MS;
        const timer = setTimeout(
          () => self.connection.stream.destroy(new DatabaseTimeout(deadlineMs)),
          deadlineMs,
        );
        const clear = () => clearTimeout(timer);
        result.then(clear, clear);
        return result;
      };
    }
  }
  return {
    Client: DeadlineClient,
    connectionTimeoutMillis: timeouts.acquireMs,
    ...(timeouts.statementMs > 0 ? { statement_timeout: timeouts.statementMs } : {}),
  };
}

/**
 * Connects to `DATABASE_URL`, or starts the embedded PostgreSQL when it is unset, and
 * applies pending migrations (idempotent: they are recorded in `mikro_orm_migrations`,
 * and concurrent starts serialise on the migration transaction's locks).
 */
export async function openDatabase(config: AppConfig, logger: Logger, secrets: Secrets): Promise<Database> {
  const embedded = config.database.url
    ? undefined
    : await startEmbeddedDatabase({
        dataDir: config.dataDir,
        port: config.database.embeddedPort,
        databaseName: 'deck_service',
        logger,
      });
  const url = config.database.url ?? embedded!.url;
  const { timeouts } = config.database;
  try {
    // Migrations may take as long as they take; requests may not. They get their own pool.
    const migrating = await MikroORM.init(
      createOrmConfig(
        url,
        {
          pool: { max: 1 },
          driverOptions: timeoutDriverOptions({ ...timeouts, statementMs: 0 }),
          debug: false,
        } satisfies Partial<Options>,
        // Migrations that seal stored secrets need the key.
        createSecretBox(secrets.get('encryption'), config.previousEncryptionKeys),
      ),
    );
    try {
      await migrate(migrating, logger);
    } finally {
      await migrating.close(true);
    }
    const orm = await MikroORM.init(
      createOrmConfig(url, {
        pool: { max: config.database.poolMax },
        driverOptions: timeoutDriverOptions(timeouts),
        debug: false,
      }),
    );
    return {
      orm,
      url,
      async ping(timeoutMs) {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, timeoutMs, false)));
        const answered = orm.em
          .getConnection()
          .execute('select 1')
          .then(
            () => true,
            () => false,
          );
        try {
          return await Promise.race([answered, late]);
        } finally {
          clearTimeout(timer);
        }
      },
      async close() {
        // Ending a connection waits for the server's goodbye, which a frozen server never sends.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          orm.close(true),
          new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS).unref())),
        ]);
        clearTimeout(timer);
        await embedded?.stop();
      },
    };
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
}

export async function migrate(orm: MikroORM, logger: Logger): Promise<void> {
  const detach = logEachMigration(orm.migrator, logger);
  const applied = await orm.migrator.up().finally(detach);
  if (applied.length > 0) {
    logger.info({ migrations: applied.map((m) => m.name) }, 'migrations applied');
  }
}
