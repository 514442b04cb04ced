/**
 * `npm run cluster`: N instances of the service (CLUSTER_INSTANCES, default 3) behind HAProxy
 * (`deploy/haproxy.cfg`), on one PostgreSQL (DATABASE_URL, or the embedded one in DATA_DIR) and
 * one object store (local storage in the shared DATA_DIR; with STORAGE_DRIVER=s3 and no
 * S3_ENDPOINT, the Swift s3api the tests use, started here). Prints the balancer's address and
 * each instance's; Ctrl-C stops everything (instances with SIGTERM: they drain first).
 *
 * CLUSTER_PORT: the balancer's port (default 8080; 0: any free port). Each instance i listens on
 * 127.0.0.1, its metrics on another port (both printed). Other variables go to every instance.
 * Also used by `test/cluster.test.ts` (`startCluster`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freeLoopbackPort } from '../adapters/database/embedded-postgres.ts';
import { environmentSchema } from '../app/config.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const HAPROXY_CONFIG = path.join(ROOT, 'deploy/haproxy.cfg');
/** A little over HAProxy's 2 checks 0.5 s apart: SIGTERM'd instances are out of rotation before they stop accepting. */
const DRAIN_MS = 1500;
/**
 * Well over the time HAProxy keeps an idle connection to an instance (it closes half of them every
 * 5 s, `pool-purge-delay`): HAProxy, not the instance, closes it (`deploy/haproxy.cfg`).
 */
export const KEEP_ALIVE_MS = 120_000;

export interface ClusterInstance {
  name: string;
  /** http://127.0.0.1:<port> of the instance itself (not through the balancer). */
  url: string;
  metricsUrl: string;
  /** Everything it wrote since its latest start. */
  output(): string;
  /** Sends a signal; resolves when it has exited. */
  stop(signal: NodeJS.Signals): Promise<number | null>;
  /** Starts it again on the same ports; resolves when it listens. */
  start(): Promise<void>;
}

export interface Cluster {
  /** The balancer: what clients use. */
  url: string;
  instances: ClusterInstance[];
  close(): Promise<void>;
}

/** The connections HAProxy opens to one instance at most: `maxconn` of `default-server` in deploy/haproxy.cfg. */
export async function balancerConnectionsPerInstance(): Promise<number> {
  for (const line of (await readFile(HAPROXY_CONFIG, 'utf8')).split('\n')) {
    const words = line.trim().split(/\s+/);
    const at = words.indexOf('maxconn');
    if (words[0] === 'default-server' && at > 0) return Number(words[at + 1]);
  }
  throw new Error(`${HAPROXY_CONFIG} sets no maxconn on default-server`);
}

/**
 * The streams one instance may hold (STREAMS_PER_INSTANCE, as given or its default) must stay below
 * the connections the balancer opens to it: past them HAProxy queues every other request to that
 * instance, /readyz included, and answers 503 (decision 063).
 */
export function checkStreamCap(env: Record<string, string | undefined>, balancerConnections: number): void {
  const given = env.STREAMS_PER_INSTANCE;
  const streams =
    given === undefined ? environmentSchema.shape.STREAMS_PER_INSTANCE.parse(undefined) : Number(given);
  if (!(streams < balancerConnections)) {
    throw new Error(
      `STREAMS_PER_INSTANCE (${streams}) must be below HAProxy's maxconn per instance (${balancerConnections}, ${HAPROXY_CONFIG}): ordinary requests need room beside the streams`,
    );
  }
}

/** Where HAProxy is: on PATH, or in /usr/sbin (Debian; not on a normal user's PATH). */
export function haproxyPath(): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin']) {
    const candidate = path.join(dir, 'haproxy');
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Starts the instances (the first alone: it migrates, seeds demo data on an empty database and
 * writes DATA_DIR's generated secrets, which the others then read), then HAProxy, and waits
 * until the balancer answers /readyz through every instance.
 */
export async function startCluster(options: {
  instances: number;
  /** Balancer port; 0: a free one. */
  port: number;
  /** For every instance: DATABASE_URL, DATA_DIR, storage, limits… */
  env: Record<string, string>;
  /** Where logs and HAProxy's generated server list go. */
  workDir: string;
  /** Instances' output also to files in workDir (the CLI), or only in memory (the test). */
  logFiles?: boolean;
}): Promise<Cluster> {
  checkStreamCap({ ...process.env, ...options.env }, await balancerConnectionsPerInstance());
  const haproxy = haproxyPath();
  if (!haproxy) {
    throw new Error(
      "HAProxy is not installed. Install Debian's package: apt-get install -y haproxy (as root; `npm test`'s pretest step does it)",
    );
  }
  await mkdir(options.workDir, { recursive: true });
  const balancerPort = options.port || (await freeLoopbackPort());
  const balancerUrl = `http://127.0.0.1:${balancerPort}`;
  const children = new Set<ChildProcess>();

  const level = options.env.LOG_LEVEL ?? process.env.LOG_LEVEL ?? 'info';
  const hidesInfo = ['warn', 'error', 'fatal', 'silent'].includes(level);
  const instances: ClusterInstance[] = [];
  for (let i = 1; i <= options.instances; i += 1) {
    const name = `deck${i}`;
    const port = await freeLoopbackPort();
    const metricsPort = await freeLoopbackPort();
    let child: ChildProcess | undefined;
    let output = '';
    const env = {
      ...childEnvironment(),
      NODE_ENV: 'development',
      LOG_FORMAT: 'json',
      PUBLIC_URL: balancerUrl,
      TRUST_PROXY: 'true',
      SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
      ...options.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      // Only the first start may seed (on an empty database); the others find it done.
      ...(i > 1 ? { SEED_DEMO: 'false' } : {}),
    };
    const instance: ClusterInstance = {
      name,
      url: `http://127.0.0.1:${port}`,
      metricsUrl: `http://127.0.0.1:${metricsPort}`,
      output: () => output,
      async stop(signal) {
        const running = child;
        if (!running || running.exitCode !== null) return running?.exitCode ?? null;
        const exited = new Promise<number | null>((resolve) => running.once('exit', (code) => resolve(code)));
        running.kill(signal);
        return exited;
      },
      async start() {
        output = '';
        const started = spawn(process.execPath, ['app/main.ts'], {
          cwd: ROOT,
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child = started;
        children.add(started);
        started.once('exit', () => children.delete(started));
        const file = options.logFiles
          ? createWriteStream(path.join(options.workDir, `${name}.log`))
          : undefined;
        const collect = (chunk: Buffer) => {
          output += chunk.toString();
          file?.write(chunk);
        };
        started.stdout!.on('data', collect);
        started.stderr!.on('data', collect);
        await waitFor(`${name} to listen`, async () => {
          if (started.exitCode !== null)
            throw new Error(`${name} exited with ${started.exitCode}:\n${output}`);
          if (output.includes('"deck service listening"')) return true;
          // A level above info hides that line: then up is when it answers /readyz (its demo
          // notice, printed just before the line, may then come a moment later).
          return hidesInfo && (await answersReady(instance.url));
        });
      },
    };
    instances.push(instance);
  }

  const stopAll = async () => {
    await Promise.all(instances.map((instance) => instance.stop('SIGTERM')));
    for (const child of children) child.kill('SIGKILL');
  };
  try {
    await instances[0]!.start();
    await Promise.all(instances.slice(1).map((instance) => instance.start()));

    const servers = path.join(options.workDir, 'servers.cfg');
    await writeFile(
      servers,
      [
        'backend deck',
        ...instances.map((instance) => `  server ${instance.name} ${new URL(instance.url).host}`),
        '',
      ].join('\n'),
    );
    const balancer = spawn(haproxy, ['-db', '-f', HAPROXY_CONFIG, '-f', servers], {
      env: { ...process.env, CLUSTER_BIND: `127.0.0.1:${balancerPort}` },
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    children.add(balancer);
    let balancerOutput = '';
    balancer.stderr!.on('data', (chunk: Buffer) => {
      balancerOutput += chunk.toString();
    });
    const balancerExited = new Promise<void>((resolve) => balancer.once('exit', () => resolve()));
    // Up when a request through it reaches every instance.
    await waitFor('HAProxy to reach every instance', async () => {
      if (balancer.exitCode !== null)
        throw new Error(`haproxy exited with ${balancer.exitCode}:\n${balancerOutput}`);
      const served = new Set<string>();
      for (let n = 0; n < instances.length * 2; n += 1) {
        const answer = await fetch(`${balancerUrl}/readyz`).catch(() => undefined);
        if (answer?.status === 200) served.add(answer.headers.get('x-served-by') ?? '');
      }
      return served.size === instances.length;
    });

    return {
      url: balancerUrl,
      instances,
      async close() {
        await stopAll();
        balancer.kill('SIGTERM');
        await balancerExited;
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** This Node first on PATH (the instances run on it), no inherited listen settings. */
function childEnvironment(): NodeJS.ProcessEnv {
  const { PORT: _p, METRICS_PORT: _m, CLUSTER_PORT: _c, CLUSTER_INSTANCES: _i, ...rest } = process.env;
  return { ...rest, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` };
}

async function answersReady(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/readyz`)).ok;
  } catch {
    return false;
  }
}

async function waitFor(what: string, condition: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The CLI: shared database and store, then the cluster, until Ctrl-C. */
async function main() {
  const { createLogger } = await import('../adapters/logger/logger.ts');
  const { startEmbeddedDatabase } = await import('../adapters/database/embedded-postgres.ts');
  const logger = createLogger('warn');
  const dataDir = path.resolve(process.env.DATA_DIR ?? './.data');
  const env: Record<string, string> = { DATA_DIR: dataDir };
  const cleanups: (() => Promise<void>)[] = [];

  // One PostgreSQL for all: the embedded one (in DATA_DIR, as `npm start` uses) unless DATABASE_URL.
  if (!process.env.DATABASE_URL) {
    const database = await startEmbeddedDatabase({ dataDir, databaseName: 'deck_service', logger });
    env.DATABASE_URL = database.url;
    cleanups.push(() => database.stop());
  }
  // One object store for all: with STORAGE_DRIVER=s3 and no endpoint, Swift's s3api as the tests run it.
  if (process.env.STORAGE_DRIVER === 's3' && !process.env.S3_ENDPOINT) {
    const { startSwiftS3 } = await import('./swift-s3.ts');
    const swift = await startSwiftS3();
    cleanups.push(() => swift.stop());
    const bucket = process.env.S3_BUCKET ?? 'deck-objects';
    await swift.createBucket(bucket);
    Object.assign(env, {
      S3_ENDPOINT: swift.endpoint,
      S3_ACCESS_KEY_ID: swift.accessKeyId,
      S3_SECRET_ACCESS_KEY: swift.secretAccessKey,
      S3_BUCKET: bucket,
      S3_FORCE_PATH_STYLE: 'true',
    });
  }

  const workDir = path.join(dataDir, 'cluster');
  let cluster: Cluster;
  try {
    cluster = await startCluster({
      instances: Number(process.env.CLUSTER_INSTANCES ?? 3),
      port: Number(process.env.CLUSTER_PORT ?? 8080),
      env,
      workDir,
      logFiles: true,
    });
  } catch (error) {
    for (const cleanup of cleanups.reverse()) await cleanup();
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
  // The first instance's demo notice, from its first line to its last (indexOf: linear).
  const output = cluster.instances[0]!.output();
  const demoStart = output.indexOf('Demo data created');
  const demoEndMark = 'npm run admin -- create-user --help)';
  const demoEnd = demoStart < 0 ? -1 : output.indexOf(demoEndMark, demoStart);
  const demo = demoEnd < 0 ? null : output.slice(demoStart, demoEnd + demoEndMark.length);
  process.stdout.write(
    [
      '',
      `Balancer (HAProxy, ${HAPROXY_CONFIG}): ${cluster.url}`,
      ...cluster.instances.map(
        (instance) =>
          `  ${instance.name}: ${instance.url}  metrics ${instance.metricsUrl}/metrics  log ${path.join(workDir, `${instance.name}.log`)}`,
      ),
      ...(demo ? ['', demo.replaceAll(cluster.instances[0]!.url, cluster.url)] : []),
      '',
      'Ctrl-C stops the cluster.',
      '',
    ].join('\n'),
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, async () => {
      await cluster.close();
      for (const cleanup of cleanups.reverse()) await cleanup();
      process.exit(0);
    });
  }
}

if (import.meta.main) await main();
