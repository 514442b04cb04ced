/**
 * What the benchmarks that run the service as a child process share: a work folder with a
 * database, a free port, waiting for an address to answer, running a command to completion,
 * and signing in.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbeddedDatabase } from '../adapters/database/embedded-postgres.ts';
import { createLogger } from '../adapters/logger/logger.ts';

export const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/**
 * What `npm start` runs after it builds: the arguments of package.json's `start` script after its
 * last `&&` and `node`, for this Node, once the build has run. The benchmarks measure the service
 * as it runs.
 */
export async function startCommand(): Promise<string[]> {
  const script: string = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start;
  const [node, ...args] = (script.split('&&').at(-1) ?? '').trim().split(/\s+/);
  if (node !== 'node')
    throw new Error(`a start script ending in a node command was expected, not: ${script}`);
  await run('npm', ['run', '-s', 'build']);
  return args;
}

export interface BenchWorkspace {
  /** A fresh folder, removed by `close`. */
  work: string;
  /** The service's environment: DATABASE_URL, its own DATA_DIR, loopback, logging on as in production. */
  serviceEnv: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/**
 * A work folder and a database: DATABASE_URL, or a throw-away embedded PostgreSQL owned by the
 * script (so that it outlives a killed service).
 */
export async function openBenchWorkspace(name: string): Promise<BenchWorkspace> {
  const work = await mkdtemp(path.join(os.tmpdir(), `deck-bench-${name}-`));
  // Run as root, the embedded PostgreSQL runs as `postgres` and must be able to enter it.
  await chmod(work, 0o711);
  const dataDir = path.join(work, 'data');
  let databaseUrl = process.env.DATABASE_URL;
  let stopDatabase: (() => Promise<void>) | undefined;
  try {
    if (!databaseUrl) {
      const embedded = await startEmbeddedDatabase({
        dataDir,
        databaseName: 'deck_service',
        logger: createLogger('warn'),
      });
      databaseUrl = embedded.url;
      stopDatabase = () => embedded.stop();
    }
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    throw error;
  }
  return {
    work,
    serviceEnv: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      SEED_DEMO: 'false',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      LOG_FORMAT: 'json',
      // The limiter runs on every request, but a benchmark's thousands a second must not be refused.
      RATE_LIMIT_PER_MINUTE: process.env.RATE_LIMIT_PER_MINUTE ?? '1000000000',
      HEAVY_LIMIT_PER_MINUTE: process.env.HEAVY_LIMIT_PER_MINUTE ?? '1000000000',
    },
    async close() {
      await stopDatabase?.();
      await rm(work, { recursive: true, force: true });
    },
  };
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function waitForHttp(url: string, child: ChildProcess, headers: Record<string, string> = {}) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`);
    try {
      const response = await fetch(url, { headers });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer within 2 minutes`);
}

export function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  input?: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'inherit'],
    });
    child.stdin?.end(input);
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`)),
    );
  });
}

/** Creates a user with the admin CLI, the password on its standard input (it takes none on its command line). */
export function createUser(
  env: NodeJS.ProcessEnv,
  user: { organization: string; email: string; password: string },
): Promise<string> {
  const args = [
    'scripts/admin.ts',
    'create-user',
    '--organization',
    user.organization,
    '--email',
    user.email,
  ];
  return run(process.execPath, args, env, `${user.password}\n`);
}

/** Signs in over HTTP; returns the `session=…` cookie pair. */
export async function login(url: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 200) throw new Error(`login answered ${response.status}: ${await response.text()}`);
  const session = response.headers.getSetCookie().find((c) => c.startsWith('session='));
  return session!.split(';')[0]!;
}

/** Creates the user with the admin CLI and signs them in over HTTP; returns the `session=…` cookie pair. */
export async function signUp(
  env: NodeJS.ProcessEnv,
  url: string,
  user: { organization: string; email: string; password: string },
): Promise<string> {
  await createUser(env, user);
  return login(url, user.email, user.password);
}

/** CPU time (ms) of every process, by pid and command name, from /proc (Linux); undefined elsewhere. */
export function cpuTimes(): Map<number, { name: string; ms: number; parent: number }> | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux
  const times = new Map<number, { name: string; ms: number; parent: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      times.set(Number(entry), {
        name,
        ms: (Number(fields[11]) + Number(fields[12])) / ticksPerMs,
        parent: Number(fields[1]),
      });
    } catch {
      // gone meanwhile
    }
  }
  return times;
}
