import { MikroORM } from '@mikro-orm/postgresql';
import { createOrmConfig } from '../mikro-orm.config.ts';
import type { AppConfig } from './config.ts';
import { startEmbeddedDatabase } from './embedded-database.ts';
import type { Logger } from './logger.ts';
import { logEachMigration } from './migration-log.ts';

export interface Database {
  orm: MikroORM;
  /** Closes the pool, then stops the embedded server if this process started it. */
  close(): Promise<void>;
}

/**
 * Connects to `DATABASE_URL`, or starts the embedded PostgreSQL when it is unset, and
 * applies pending migrations (idempotent: they are recorded in `mikro_orm_migrations`,
 * and concurrent starts serialise on the migration transaction's locks).
 */
export async function openDatabase(config: AppConfig, logger: Logger): Promise<Database> {
  const embedded = config.database.url
    ? undefined
    : await startEmbeddedDatabase({
        dataDir: config.dataDir,
        port: config.database.embeddedPort,
        databaseName: 'deck_service',
        logger,
      });
  const url = config.database.url ?? embedded!.url;
  try {
    const orm = await MikroORM.init(
      createOrmConfig(url, {
        pool: { max: config.database.poolMax },
        debug: false,
      }),
    );
    await migrate(orm, logger);
    return {
      orm,
      async close() {
        await orm.close(true);
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
