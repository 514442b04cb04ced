import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedDatabase } from '../../adapters/database/embedded-postgres.ts';
import { createLogger } from '../../adapters/logger/logger.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A URL for a role that may create databases; its database part is replaced per test file. */
    databaseServerUrl: string;
  }
}

/**
 * Starts one real PostgreSQL for the whole run: `TEST_DATABASE_URL` when set, otherwise
 * an embedded server in a temporary directory (under /tmp: PostgreSQL runs as `postgres`
 * and must be able to reach it).
 */
export default async function setup(project: TestProject) {
  if (process.env.TEST_DATABASE_URL) {
    project.provide('databaseServerUrl', process.env.TEST_DATABASE_URL);
    return;
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'deck-test-pg-'));
  const database = await startEmbeddedDatabase({
    dataDir,
    databaseName: 'postgres',
    logger: createLogger('warn'),
  });
  project.provide('databaseServerUrl', database.url);
  return async () => {
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}
