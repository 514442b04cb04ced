import type { IMigrator, MigrationInfo } from '@mikro-orm/core';
import type { Logger } from '../domain/ports/logger.ts';

/**
 * One line when each migration starts and one with its duration when it is done: on a large
 * database a migration can take minutes, and the operator should see which one is running.
 * Returns the function that stops listening.
 */
export function logEachMigration(migrator: IMigrator, logger: Logger): () => void {
  const started = new Map<string, number>();
  const migrating = ({ name }: MigrationInfo) => {
    started.set(name, performance.now());
    logger.info({ migration: name }, 'applying migration');
  };
  const migrated = ({ name }: MigrationInfo) => {
    const ms = Math.round(performance.now() - (started.get(name) ?? performance.now()));
    logger.info({ migration: name, ms }, 'migration applied');
  };
  migrator.on('migrating', migrating).on('migrated', migrated);
  return () => {
    migrator.off('migrating', migrating).off('migrated', migrated);
  };
}
