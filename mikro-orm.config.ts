import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { entities } from './entities/index.ts';
import { migrations } from './migrations/index.ts';

/**
 * The one place the ORM is configured. Entities and migrations are listed explicitly
 * (no folder scanning), so the same config works under Node's type stripping, vitest and
 * a bundler alike.
 */
export function createOrmConfig(clientUrl: string, overrides: Partial<Options> = {}): Options {
  return defineConfig({
    clientUrl,
    entities,
    extensions: [Migrator],
    migrations: {
      path: './migrations',
      migrationsList: migrations,
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
