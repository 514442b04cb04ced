import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import pino from 'pino';
import { createProcessLogger } from '../adapters/logger/logger.ts';
import { type RunningApp, startApp } from '../app/app.ts';
import { loadConfig } from '../app/config.ts';
import { openDatabase } from '../app/database.ts';
import { createInProcessCaller } from '../app/in-process.ts';
import { loadSecrets } from '../app/secrets.ts';
import { createServices } from '../app/services.ts';
import { findAuth } from '../domain/auth/callers.ts';
import type { Services } from '../domain/services.ts';

export interface Bench {
  orm: MikroORM;
  services: Services;
  /**
   * Creates an organization with an owner. `caller()` gives a fresh caller acting as them,
   * one per operation, as the server gives each request its own EntityManager.
   */
  newOrganization(
    name: string,
  ): Promise<{ organizationId: string; caller: () => ReturnType<typeof createInProcessCaller> }>;
}

/**
 * Runs a benchmark on DATABASE_URL when set, otherwise on a throw-away embedded PostgreSQL
 * (removed afterwards). The notification worker stays off: it would
 * compete with what is measured.
 */
export async function withBenchDatabase(run: (bench: Bench) => Promise<void>): Promise<void> {
  const dataDir = process.env.DATABASE_URL ? undefined : await mkdtemp(path.join(os.tmpdir(), 'deck-bench-'));
  const config = loadConfig({
    // Loading a million rows is one long statement: no statement bound unless one is asked for.
    DATABASE_STATEMENT_TIMEOUT_MS: '0',
    ...process.env,
    NOTIFICATIONS_ENABLED: 'false',
    ...(dataDir ? { DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: '' } : {}),
  });
  const logger = createProcessLogger(config, { level: 'warn' });
  const secrets = await loadSecrets(config, logger);
  const database = await openDatabase(config, logger, secrets);
  const services = await createServices(config, logger, secrets);
  const suffix = Date.now().toString(36);
  try {
    await run({
      orm: database.orm,
      services,
      async newOrganization(name) {
        const ids = await createInProcessCaller(database.orm, services).admin.createUser({
          organization: `${name} ${suffix}`,
          email: `${name.toLowerCase()}-${suffix}@bench.test`,
          password: 'bench-password',
        });
        const auth = await findAuth(database.orm.em.fork(), ids.userId);
        return {
          organizationId: ids.organizationId,
          caller: () => createInProcessCaller(database.orm, services, auth),
        };
      },
    });
  } finally {
    services.mailer?.close();
    await database.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

/** `min / median / p95 / max` of a list of milliseconds. */
export function summarise(timings: number[]): Record<'min' | 'median' | 'p95' | 'max', string> {
  const sorted = [...timings].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
  return { min: at(0), median: at(0.5), p95: at(0.95), max: at(1) };
}

/**
 * The real service listening on loopback, in this process, with its own throw-away DATA_DIR
 * (and an embedded PostgreSQL unless DATABASE_URL is set), background workers off. `close`
 * stops it and removes the folder.
 */
export async function startScratchApp(env: Record<string, string> = {}): Promise<{
  app: RunningApp;
  close(): Promise<void>;
}> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'deck-scratch-'));
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    SEED_DEMO: 'false',
    NOTIFICATIONS_ENABLED: 'false',
    GENERATION_ENABLED: 'false',
    EXPORTS_ENABLED: 'false',
    ...(process.env.DATABASE_URL ? {} : { EMBEDDED_POSTGRES_PORT: '' }),
    ...env,
  });
  const app = await startApp(config, pino({ level: 'warn' }));
  return {
    app,
    async close() {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A new user of a new organization on the running service, signed in: its session cookie. */
export async function signedInCookie(app: RunningApp, organization: string): Promise<string> {
  const email = `bench-${Date.now()}-${Math.random().toString(36).slice(2)}@bench.test`;
  const password = 'bench-password';
  await createInProcessCaller(app.database.orm, app.services).admin.createUser({
    organization,
    email,
    password,
  });
  const login = await fetch(`${app.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (!login.ok) throw new Error(`sign-in failed: ${login.status}`);
  return login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}
