import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import type { SecretBox } from './domain/ports/secret-box.ts';
import { entities } from './entities/index.ts';
import { migrationsFor } from './migrations/index.ts';

/**
 * The one place the ORM is configured. Entities and migrations are listed explicitly
 * (no folder scanning), so the same config works under Node's type stripping, vitest and
 * a bundler alike.
 */
/** Without a box the ORM works, but a migration that seals or opens stored secrets fails. */
const NO_BOX: SecretBox = {
  seal: () => {
    throw new Error(
      'This migration needs ENCRYPTION_KEY: run it with `npm run db:migrate` or by starting the service',
    );
  },
  open: () => {
    throw new Error(
      'This migration needs ENCRYPTION_KEY: run it with `npm run db:migrate` or by starting the service',
    );
  },
};

export function createOrmConfig(
  clientUrl: string,
  overrides: Partial<Options> = {},
  secretBox: SecretBox = NO_BOX,
): Options {
  return defineConfig({
    clientUrl,
    entities,
    extensions: [Migrator],
    migrations: {
      path: './migrations',
      migrationsList: migrationsFor(secretBox),
      snapshot: false,
      allOrNothing: true,
      transactional: true,
      silent: true,
    },
    // Each request works in its own forked EntityManager; the global one must never be used.
    allowGlobalContext: false,
    forceUtcTimezone: true,
    ...overrides,
  });
}

export default createOrmConfig(process.env.DATABASE_URL ?? 'postgresql://localhost:5432/deck_service');
