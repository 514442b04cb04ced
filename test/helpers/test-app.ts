import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { inject } from 'vitest';
import { createDatabaseIfMissing } from '../../adapters/database/embedded-postgres.ts';
import { type RunningApp, startApp } from '../../app/app.ts';
import { loadConfig } from '../../app/config.ts';
import { createInProcessCaller } from '../../app/in-process.ts';
import { HttpClient } from './http-client.ts';

export interface TestApp {
  app: RunningApp;
  url: string;
  databaseUrl: string;
  /** Every log line the app wrote, as text. */
  logs: () => string;
  /** Creates a user (and its organization when new) through the admin procedure. */
  createUser(input: {
    organization: string;
    email: string;
    password: string;
    name?: string;
    role?: 'owner' | 'admin' | 'member';
  }): Promise<{
    organizationId: string;
    userId: string;
  }>;
  /** The event types written for one aggregate, oldest first. */
  eventTypes(aggregateId: string): Promise<string[]>;
  /** A client with its own cookie jar. */
  client(): HttpClient;
  /**
   * Creates a user (by default in a new organization, whose first user is its owner) and returns
   * a client signed in as them.
   */
  signedInClient(
    organization?: string,
    role?: 'owner' | 'admin' | 'member',
  ): Promise<HttpClient & { organizationId: string; userId: string; email: string; password: string }>;
  close(): Promise<void>;
}

/** A fresh, empty database on the run's PostgreSQL server. */
export async function createTestDatabase(): Promise<string> {
  const serverUrl = new URL(inject('databaseServerUrl'));
  const name = `test_${randomBytes(6).toString('hex')}`;
  await createDatabaseIfMissing(serverUrl.toString(), name);
  serverUrl.pathname = `/${name}`;
  return serverUrl.toString();
}

/**
 * One encryption key for every app of this test process, made at random here: a second instance
 * or a restart on the same database (with its own DATA_DIR) must open the secrets the first sealed.
 */
const ENCRYPTION_KEY = randomBytes(32).toString('base64url');

/** The real app, on a fresh database, listening on an ephemeral loopback port. */
export async function startTestApp(
  env: Record<string, string> = {},
  options: { databaseUrl?: string } = {},
): Promise<TestApp> {
  // An existing database: a second instance, or a restart of the service on the same data.
  const databaseUrl = options.databaseUrl ?? (await createTestDatabase());
  // Its own DATA_DIR: local objects and generated secrets (app/secrets.ts) of this app only.
  const ownDataDir = !env.DATA_DIR;
  const dataDir = env.DATA_DIR ?? (await mkdtemp(path.join(os.tmpdir(), 'deck-test-data-')));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    SEED_DEMO: 'false',
    LOG_LEVEL: 'info',
    ENCRYPTION_KEY,
    // Suites drive far more than a person would in a minute; test/rate-limits.test.ts sets low limits.
    RATE_LIMIT_PER_MINUTE: '1000000',
    HEAVY_LIMIT_PER_MINUTE: '1000000',
    ...env,
  });
  let logText = '';
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      logText += chunk.toString();
      callback();
    },
  });
  const app = await startApp(config, pino({ level: config.logLevel }, sink));
  let users = 0;

  const testApp: TestApp = {
    app,
    url: app.url,
    databaseUrl,
    logs: () => logText,
    createUser: (input) => createInProcessCaller(app.database.orm, app.services).admin.createUser(input),
    client: () => new HttpClient(app.url),
    async eventTypes(aggregateId) {
      const rows = await app.database.orm.em
        .getConnection()
        .execute<{ event_type: string }[]>(
          'select event_type from event where aggregate_id = ? order by occurred_at, id',
          [aggregateId],
        );
      return rows.map((row) => row.event_type);
    },
    async signedInClient(organization = `Org ${randomBytes(4).toString('hex')}`, role) {
      users += 1;
      const email = `user${users}-${randomBytes(4).toString('hex')}@example.test`;
      const password = `pw-${randomBytes(8).toString('hex')}`;
      const ids = await testApp.createUser({ organization, email, password, ...(role ? { role } : {}) });
      const client = testApp.client();
      const response = await client.post('/api/auth/login', { email, password });
      if (response.status !== 200) throw new Error(`login failed: ${response.status} ${response.text}`);
      return Object.assign(client, ids, { email, password });
    },
    async close() {
      await app.close();
      // A DATA_DIR passed in belongs to the caller (e.g. a restart on the same data).
      if (ownDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
  return testApp;
}

/** Upload memory of three callers' shares in all, two per organization, one per caller; no idle cut-off. */
export function uploadBudgetEnv(share: number): Record<string, string> {
  return {
    UPLOAD_MEMORY_BUDGET_BYTES: String(3 * share),
    UPLOAD_MEMORY_PER_ORGANIZATION_BYTES: String(2 * share),
    UPLOAD_MEMORY_PER_CALLER_BYTES: String(share),
    UPLOAD_IDLE_TIMEOUT_MS: '600000',
  };
}
