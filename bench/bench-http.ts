/**
 * `npm run bench:http`: the cost of a request, over HTTP, against the real service.
 *
 * Starts the service as `npm start` runs it (dist/, logging at `info` as JSON into a file: the
 * logger stays on) and, on the same database, a bare Koa + pg handler doing the naive two-query `me`
 * (`bench-http-bare.ts`, under the service's V8 settings), each in a child process. Drives both
 * with wrk at 64 connections, in alternating rounds, and prints req/s, p50 and p99 for each and
 * their ratio; then a mix against the service: a 50-slide deck's slides, a pricing slide's
 * product data, the event log's first page, and create-then-delete a slide, each but the product
 * data followed by the bare handler's naive version of the same route (its floor on this
 * machine), the two alternating for as many rounds as `me` (at least one). Each run also prints
 * the server's garbage collections (count, mean and longest pause of the young ones, and of the
 * full ones when there were any). The last line, for scripts: `ratios: me <r>, slides <r>,
 * events <r>, writes <r>` (service ÷ bare handler, req/s over all rounds; n/a when not run).
 *
 * DATABASE_URL: that database (migrated by the service); unset: a throw-away embedded PostgreSQL.
 * BENCH_ROUNDS (4), BENCH_SECONDS (10), BENCH_CONNECTIONS (64), BENCH_THREADS (2).
 * BENCH_CPU_PROF=<dir>: the service runs under `node --cpu-prof` and writes its profile there.
 * BENCH_MIX=false: `me` only; BENCH_MIX=<text>: the mix routes whose name holds it; BENCH_ROUNDS=0:
 * the mix only (e.g. for a profile of one route alone).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, openSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { V8_FLAGS } from '../app/v8-tuning.ts';
import type { GcPauses } from './bench-gc-probe.ts';
import {
  cpuTimes,
  freePort,
  openBenchWorkspace,
  ROOT,
  run,
  signUp,
  startCommand,
  waitForHttp,
} from './bench-service.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const THREADS = Number(process.env.BENCH_THREADS ?? 2);
/** The mix alternates service and bare handler too, as many rounds as `me` (at least one). */
const MIX_ROUNDS = Math.max(1, ROUNDS);
const WRK = '/usr/bin/wrk';
/** Both servers report their garbage-collection pauses (young collections decide the tail). */
const GC_PROBE = ['--import', './bench/bench-gc-probe.ts'];

if (!existsSync(WRK)) {
  console.error(
    `bench:http drives the servers with wrk, which is not installed (${WRK}).\n` +
      'Install it first: apt-get install -y wrk (Debian/Ubuntu), dnf install wrk (Fedora), brew install wrk (macOS).',
  );
  process.exit(2);
}

interface WrkResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  failures: number;
}

const workspace = await openBenchWorkspace('http');
const { work } = workspace;
const children: ChildProcess[] = [];
try {
  const childEnv = workspace.serviceEnv;
  const servicePort = await freePort();
  const logFile = path.join(work, 'service.log');
  const profileDir = process.env.BENCH_CPU_PROF;
  const service = spawn(
    process.execPath,
    [
      ...GC_PROBE,
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profileDir)}`] : []),
      ...(await startCommand()),
    ],
    {
      cwd: ROOT,
      env: { ...childEnv, PORT: String(servicePort) },
      stdio: ['ignore', openSync(logFile, 'a'), 'inherit', 'ipc'],
    },
  );
  children.push(service);
  const serviceUrl = `http://127.0.0.1:${servicePort}`;
  await waitForHttp(`${serviceUrl}/healthz`, service);

  const cookie = await signUp(childEnv, serviceUrl, {
    organization: 'Bench',
    email: 'bench@bench.test',
    password: 'bench-password',
  });
  const setup = await createData(serviceUrl, cookie);

  const barePort = await freePort();
  const bareProfile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profileDir, 'bare')}`] : [];
  // The service's V8 settings too, so that the two differ in code only.
  const bareFlags = [...GC_PROBE, ...V8_FLAGS, ...bareProfile];
  const bare = spawn(process.execPath, [...bareFlags, 'bench/bench-http-bare.ts'], {
    cwd: ROOT,
    env: { ...childEnv, PORT: String(barePort) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.push(bare);
  const bareUrl = `http://127.0.0.1:${barePort}`;
  await waitForHttp(`${bareUrl}/api/auth/me`, bare, { cookie });

  console.log(
    `bench:http — wrk -t${THREADS} -c${CONNECTIONS} -d${SECONDS}s, ${ROUNDS} alternating rounds; service log: ${logFile}`,
  );
  const headers = { Cookie: cookie };
  // Warm-up (JIT, pools, plans), not counted.
  await wrk(`${serviceUrl}/api/auth/me`, headers, { seconds: 3 });
  await wrk(`${bareUrl}/api/auth/me`, headers, { seconds: 3 });

  /** Service ÷ bare handler, req/s over all rounds, by route: the last line. */
  const ratios: Record<string, number> = {};
  const serviceRounds: WrkResult[] = [];
  const bareRounds: WrkResult[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const s = await measuredRun(service, () => wrk(`${serviceUrl}/api/auth/me`, headers));
    const b = await measuredRun(bare, () => wrk(`${bareUrl}/api/auth/me`, headers));
    serviceRounds.push(s.result);
    bareRounds.push(b.result);
    console.log(`  round ${round}: service ${line(s.result)} | bare ${line(b.result)}`);
    if (s.cpu && b.cpu) console.log(`           CPU µs per request: service ${s.cpu} | bare ${b.cpu}`);
    console.log(`           GC pauses: service ${gcLine(s.gc)} | bare ${gcLine(b.gc)}`);
  }
  if (ROUNDS > 0) {
    const s = combine(serviceRounds);
    const b = combine(bareRounds);
    console.log('\nGET /api/auth/me (all rounds):');
    console.log(`  service  ${line(s)}`);
    console.log(`  bare     ${line(b)}`);
    ratios.me = s.requestsPerSecond / b.requestsPerSecond;
    console.log(`  ratio    ${ratios.me.toFixed(2)}× the bare handler (goal ≥ 1.2×; p99 no worse than its)`);
  }

  console.log(`\nmix against the service (p99 goal < 50 ms each), ${MIX_ROUNDS} alternating round(s):`);
  // [ratio key, name, the service's run, whether the bare handler has the same route]
  const mix: [string | null, string, (url: string) => Promise<WrkResult>, boolean][] = [
    [
      'slides',
      `GET  /api/decks/{id}/slides (50 slides)`,
      (url) => wrk(`${url}/api/decks/${setup.deckId}/slides`, headers),
      true,
    ],
    [
      null,
      `GET  /api/slides/{id}/product-data`,
      (url) => wrk(`${url}/api/slides/${setup.pricingSlideId}/product-data`, headers),
      false,
    ],
    [
      'events',
      `GET  /api/notifications/events`,
      (url) => wrk(`${url}/api/notifications/events`, headers),
      true,
    ],
    [
      'writes',
      `POST /api/decks/{id}/slides + DELETE /api/slides/{id} (a deck per connection)`,
      async (url) =>
        wrk(url, headers, {
          script: await createThenDeleteScript(setup.scratchDeckIds),
        }),
      true,
    ],
    [
      null,
      `  … the same, all ${CONNECTIONS} connections in one deck (serialised)`,
      async (url) =>
        wrk(url, headers, {
          script: await createThenDeleteScript(setup.scratchDeckIds.slice(0, 1)),
        }),
      false,
    ],
  ];
  const only = process.env.BENCH_MIX;
  const chosen = only === 'false' ? [] : only ? mix.filter(([, name]) => name.includes(only)) : mix;
  for (const [key, name, measure, hasBare] of chosen) {
    const runs: [string, string, ChildProcess, WrkResult[]][] = [[name, serviceUrl, service, []]];
    if (hasBare) runs.push(['    … the bare handler, the same route', bareUrl, bare, []]);
    for (let round = 1; round <= MIX_ROUNDS; round++) {
      for (const [label, url, server, results] of runs) {
        const { result, cpu, gc } = await measuredRun(server, () => measure(url));
        results.push(result);
        console.log(
          `  ${label.padEnd(70)} ${line(result)}${cpu ? `  CPU µs/req: ${cpu}` : ''}  GC ${gcLine(gc)}`,
        );
      }
    }
    if (key && hasBare) {
      const s = combine(runs[0]![3]);
      const b = combine(runs[1]![3]);
      ratios[key] = s.requestsPerSecond / b.requestsPerSecond;
      if (MIX_ROUNDS > 1) console.log(`    all rounds: service ${line(s)} | bare ${line(b)}`);
      console.log(
        `    ratio ${ratios[key].toFixed(2)}× the bare handler (goal ≥ 1.0×, p99 no worse than its)`,
      );
    }
  }
  // For scripts: service ÷ bare handler, req/s over all rounds (n/a: the route was not run).
  const ratio = (key: string) => (ratios[key] === undefined ? 'n/a' : `${ratios[key].toFixed(2)}`);
  console.log(
    `\nratios: me ${ratio('me')}, slides ${ratio('slides')}, events ${ratio('events')}, writes ${ratio('writes')}`,
  );
} finally {
  for (const child of children) {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
  await workspace.close();
}

/**
 * One wrk run against `server`, bracketed: the CPU it and PostgreSQL spent per request (when
 * /proc can be read) and its garbage-collection pauses during the run.
 */
async function measuredRun(
  server: ChildProcess,
  run: () => Promise<WrkResult>,
): Promise<{ result: WrkResult; cpu: string | undefined; gc: GcPauses }> {
  await gcPauses(server);
  const before = cpuTimes();
  const result = await run();
  const after = cpuTimes();
  const gc = await gcPauses(server);
  const cpu = before && after ? cpuPerRequest(before, after, result, { [server.pid!]: 'node' }) : undefined;
  return { result, cpu, gc };
}

/** The server's garbage-collection pauses since it was last asked (bench/bench-gc-probe.ts). */
function gcPauses(server: ChildProcess): Promise<GcPauses> {
  return new Promise((resolve, reject) => {
    if (!server.connected || server.exitCode !== null) {
      reject(new Error(`a server (pid ${server.pid}) is gone: its GC pauses cannot be asked for`));
      return;
    }
    const onExit = () => reject(new Error('a server exited while its GC pauses were asked for'));
    server.once('exit', onExit);
    server.once('message', (message) => {
      server.off('exit', onExit);
      resolve(message as GcPauses);
    });
    server.send('gc-pauses', (error) => {
      if (error) reject(error);
    });
  });
}

/** Collections during one run: how many, and how long they held every request in flight. */
function gcLine({ young, full }: GcPauses): string {
  const summary = (pauses: number[]) => {
    const mean = pauses.reduce((sum, ms) => sum + ms, 0) / pauses.length;
    return `${pauses.length}× mean ${mean.toFixed(1)} max ${Math.max(...pauses).toFixed(1)} ms`;
  };
  const youngPart = `young ${young.length > 0 ? summary(young) : 'none'}`;
  return full.length > 0 ? `${youngPart}, full ${summary(full)}` : youngPart;
}

/** Where the CPU went during one wrk run, per request: the server process and PostgreSQL (wrk exits before it can be read). */
function cpuPerRequest(
  before: Map<number, { name: string; ms: number }>,
  after: Map<number, { name: string; ms: number }>,
  result: WrkResult,
  servers: Record<number, string>,
): string {
  const sums: Record<string, number> = { node: 0, postgres: 0 };
  for (const [pid, { name, ms }] of after) {
    const group = servers[pid] ?? (name === 'postgres' ? 'postgres' : undefined);
    if (!group || (group === 'node' && !(pid in servers))) continue;
    sums[group] = (sums[group] ?? 0) + ms - (before.get(pid)?.ms ?? 0);
  }
  // Only the measured server's process counts as "node": the other sat idle.
  return Object.entries(sums)
    .map(([group, ms]) => `${group} ${((ms * 1000) / Math.max(1, result.requests)).toFixed(0)}`)
    .join(' ');
}

function line(r: WrkResult): string {
  const failed = r.failures > 0 ? `  (${r.failures} non-2xx or failed!)` : '';
  return `${r.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${r.p50Ms.toFixed(2)} ms  p99 ${r.p99Ms.toFixed(2)} ms${failed}`;
}

/** Throughput over all rounds; latency as the median of the rounds' percentiles. */
function combine(results: WrkResult[]): WrkResult {
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
  return {
    requestsPerSecond: results.reduce((sum, r) => sum + r.requestsPerSecond, 0) / results.length,
    p50Ms: median(results.map((r) => r.p50Ms)),
    p99Ms: median(results.map((r) => r.p99Ms)),
    requests: results.reduce((sum, r) => sum + r.requests, 0),
    failures: results.reduce((sum, r) => sum + r.failures, 0),
  };
}

async function wrk(
  url: string,
  headers: Record<string, string>,
  options: { seconds?: number; script?: string } = {},
): Promise<WrkResult> {
  const args = [
    `-t${THREADS}`,
    `-c${CONNECTIONS}`,
    `-d${options.seconds ?? SECONDS}s`,
    '--latency',
    ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
    ...(options.script ? ['-s', options.script] : []),
    url,
  ];
  const output = await run(WRK, args);
  // Line by line, each pattern anchored: linear however long wrk's output is.
  const lines = output.split('\n').map((line) => line.trim());
  const firstMatch = (pattern: RegExp) => lines.map((line) => pattern.exec(line)).find((match) => match);
  const latency = (label: string) => {
    const match = firstMatch(new RegExp(`^${label}%\\s+([\\d.]+)(us|ms|s)$`));
    if (!match) throw new Error(`wrk printed no ${label}th percentile:\n${output}`);
    return Number(match[1]) * ({ us: 0.001, ms: 1, s: 1000 } as const)[match[2] as 'us' | 'ms' | 's'];
  };
  const number = (pattern: RegExp) => Number(firstMatch(pattern)?.[1] ?? 0);
  const socketErrors = firstMatch(/^Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/);
  return {
    requestsPerSecond: number(/^Requests\/sec:\s+([\d.]+)$/),
    p50Ms: latency('50'),
    p99Ms: latency('99'),
    requests: number(/^(\d+) requests in/),
    failures:
      number(/^Non-2xx or 3xx responses: (\d+)$/) +
      (socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
  };
}

/**
 * wrk's Lua: each thread creates a slide in the next of its share of `deckIds`, then deletes one
 * it created, and so on. A deck's slide order is changed by one writer at a time (its row lock), so
 * with one deck the 64 connections queue behind each other; with one deck per connection they
 * edit side by side, as separate editors of separate decks do.
 */
async function createThenDeleteScript(deckIds: string[]): Promise<string> {
  const file = path.join(work, `create-delete-${deckIds.length}.lua`);
  await writeFile(
    file,
    `local ids = {}
local decks = { ${deckIds.map((id) => `"${id}"`).join(', ')} }
local created = 0
local threads = 0
-- Each thread takes every ${THREADS}th deck in turn, so its requests in flight are in different decks.
function setup(thread)
  thread:set("first", threads)
  threads = threads + 1
end
wrk.headers["Content-Type"] = "application/json"
request = function()
  local id = table.remove(ids)
  if id then return wrk.format("DELETE", "/api/slides/" .. id, nil, nil) end
  created = created + 1
  local deck = decks[((created * ${THREADS} + first) % #decks) + 1]
  return wrk.format("POST", "/api/decks/" .. deck .. "/slides", nil, '{"title":"Bench slide","bullets":["one","two"]}')
end
response = function(status, headers, body)
  if status == 201 then
    local id = body:match('"id":"([0-9a-f-]+)"')
    if id then table.insert(ids, id) end
  end
end
`,
  );
  return file;
}

/** A deck of 50 slides (the 10th a pricing slide) and an empty scratch deck per connection for create/delete. */
async function createData(url: string, cookie: string) {
  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${url}/api${route}`, {
      method,
      headers: { cookie, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (response.status >= 300)
      throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: string };
  };
  const tier = (name: string, price: number) => ({
    name,
    price,
    currency: 'USD',
    billingPeriod: 'month',
    features: ['Decks', 'Narration', 'Analytics'],
  });
  const deck = await call('POST', '/decks', { name: 'Bench deck' });
  let pricingSlideId = '';
  for (let n = 1; n <= 50; n++) {
    const slide = await call('POST', `/decks/${deck.id}/slides`, {
      title: `Slide ${n}`,
      bullets: ['First point', 'Second point', 'Third point'],
      narrationScript: 'A few sentences the narrator reads aloud over this slide. '.repeat(4),
      ...(n === 10
        ? {
            slideType: 'product_pricing_v1',
            productData: { good: tier('Good', 10), better: tier('Better', 20), best: tier('Best', 30) },
          }
        : {}),
    });
    if (n === 10) pricingSlideId = slide.id;
  }
  const scratchDeckIds: string[] = [];
  for (let n = 1; n <= CONNECTIONS; n++) {
    scratchDeckIds.push((await call('POST', '/decks', { name: `Scratch deck ${n}` })).id);
  }
  return { deckId: deck.id, pricingSlideId, scratchDeckIds };
}
