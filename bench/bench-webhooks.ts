/**
 * `npm run bench:webhooks`: webhook delivery throughput and loss, end to end.
 *
 * Starts PostgreSQL (embedded, owned by this script so that it outlives the service; or
 * DATABASE_URL), the service as a child process (`app/main.ts`, loopback webhooks allowed)
 * and a loopback receiver here that verifies every signature with the `standardwebhooks`
 * library. Each run signs up a fresh organization, creates S webhook subscriptions to
 * `deck.created` and then E decks through the API (C requests at a time): every commit goes the
 * real way, event → outbox → dispatcher → delivery worker → signed POST → verified here.
 *
 * Run 1 is undisturbed. Run 2 kills the service with SIGKILL once half the deliveries are
 * verified (and every event is committed) and starts it again on the same database; claims
 * the dead process held come back when their lease lapses (NOTIFICATIONS_LEASE_SECONDS, 15 s).
 *
 * Counted at the receiver by subscription + webhook-id: lost = expected − distinct verified,
 * duplicates = verified − distinct. Latency: the event's `timestamp` (taken in the transaction
 * that commits it, so a little before the commit: a conservative figure) → signature verified.
 * Deliveries/s: distinct deliveries / (first request sent → last delivery verified). As the
 * events are created as fast as the API takes them, latency includes the queue behind them.
 * The last line: `webhooks: <n> deliveries/s, p99 <ms> ms, lost <k>, duplicates <d>`, with
 * the rate and p99 of run 1, and lost and duplicates of both runs together.
 *
 * BENCH_SUBSCRIPTIONS (10), BENCH_EVENTS (2000), BENCH_CLIENTS (16), BENCH_KILL=false (run 1
 * only), BENCH_TIMEOUT_SECONDS (240, per run), BENCH_CPU_PROF=<dir> (the service under
 * `node --cpu-prof`). NOTIFICATIONS_* and WEBHOOK_* are passed on to the service.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { cpuTimes, freePort, openBenchWorkspace, ROOT, signUp, waitForHttp } from './bench-service.ts';

const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 10);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const KILL = process.env.BENCH_KILL !== 'false';
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 240) * 1000;
const EXPECTED = SUBSCRIPTIONS * EVENTS;
// New users each time: a DATABASE_URL may hold those of an earlier run.
const SUFFIX = Date.now().toString(36);

/** What the receiver saw during one run. */
interface Tally {
  /** Secret of each subscription, by its receiver path. */
  secrets: Map<string, Webhook>;
  seen: Set<string>;
  verified: number;
  unverified: number;
  latenciesMs: number[];
  lastVerifiedAt: number;
  /** Resolves the waiter when `seen` reaches a size. */
  waiters: { size: number; resolve: () => void }[];
}

const newTally = (): Tally => ({
  secrets: new Map(),
  seen: new Set(),
  verified: 0,
  unverified: 0,
  latenciesMs: [],
  lastVerifiedAt: 0,
  waiters: [],
});
let tally = newTally();

/** Loopback receiver: verifies, counts, answers 204 (401 to a bad signature, which the service retries). */
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    const webhook = tally.secrets.get(req.url ?? '');
    const headers = {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    };
    let body: { timestamp: string };
    try {
      if (!webhook) throw new Error('unknown subscription');
      body = webhook.verify(raw, headers) as { timestamp: string };
    } catch {
      tally.unverified += 1;
      res.writeHead(401).end();
      return;
    }
    const now = Date.now();
    tally.verified += 1;
    const key = `${req.url} ${headers['webhook-id']}`;
    if (!tally.seen.has(key)) {
      tally.seen.add(key);
      tally.latenciesMs.push(now - Date.parse(body.timestamp));
      tally.lastVerifiedAt = now;
      tally.waiters = tally.waiters.filter((waiter) => {
        if (tally.seen.size < waiter.size) return true;
        waiter.resolve();
        return false;
      });
    }
    res.writeHead(204).end();
  });
});
const whenSeen = (size: number) =>
  new Promise<void>((resolve) => {
    if (tally.seen.size >= size) resolve();
    else tally.waiters.push({ size, resolve });
  });

const workspace = await openBenchWorkspace('webhooks');
const { work } = workspace;
let service: ChildProcess | undefined;
try {
  const childEnv = { ...workspace.serviceEnv, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiver.keepAliveTimeout = 30_000;
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  const servicePort = await freePort();
  const serviceUrl = `http://127.0.0.1:${servicePort}`;
  const logFile = path.join(work, 'service.log');
  const profileDir = process.env.BENCH_CPU_PROF;
  const startService = async () => {
    service = spawn(
      process.execPath,
      [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profileDir)}`] : []), 'app/main.ts'],
      {
        cwd: ROOT,
        env: { ...childEnv, PORT: String(servicePort) },
        stdio: ['ignore', openSync(logFile, 'a'), 'inherit'],
      },
    );
    await waitForHttp(`${serviceUrl}/healthz`, service);
  };
  await startService();

  console.log(
    `bench:webhooks — ${SUBSCRIPTIONS} subscriptions × ${EVENTS} events = ${EXPECTED} deliveries a run, ` +
      `${CLIENTS} API clients; load average ${loadAverage()}; service log: ${logFile}`,
  );

  const runOnce = async (label: string, kill: boolean) => {
    tally = newTally();
    const email = `bench-${label}-${SUFFIX}@bench.test`;
    const password = 'bench-password';
    const cookie = await signUp(childEnv, serviceUrl, {
      organization: `Bench ${label} ${SUFFIX}`,
      email: email,
      password: password,
    });
    const post = async (route: string, body: unknown) => {
      const response = await fetch(`${serviceUrl}/api${route}`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (response.status !== 201)
        throw new Error(`POST ${route}: ${response.status} ${await response.text()}`);
      return (await response.json()) as { id: string; secret?: string };
    };
    for (let n = 0; n < SUBSCRIPTIONS; n++) {
      const hookPath = `/hooks/${label}/${n}`;
      const subscription = await post('/notifications/subscriptions', {
        name: `Bench ${n}`,
        eventType: 'deck.created',
        channel: 'webhook',
        channelConfig: { url: `${receiverUrl}${hookPath}` },
      });
      tally.secrets.set(hookPath, new Webhook(subscription.secret!));
    }

    const cpuBefore = cpuTimes();
    const started = Date.now();
    let created = 0;
    const createEvents = async () => {
      while (created < EVENTS) {
        created += 1;
        await post('/decks', { name: `Bench deck ${created}` });
      }
    };
    const allCreated = Promise.all(Array.from({ length: CLIENTS }, createEvents));
    let restart: Promise<{ killedAt: number; upAt: number }> | undefined;
    if (kill) {
      restart = (async () => {
        await Promise.all([allCreated, whenSeen(Math.ceil(EXPECTED / 2))]);
        const exited = new Promise((resolve) => service!.once('exit', resolve));
        service!.kill('SIGKILL');
        await exited;
        const killedAt = Date.now();
        console.log(`  ${label}: SIGKILL at ${tally.seen.size}/${EXPECTED} verified; starting again`);
        await startService();
        return { killedAt, upAt: Date.now() };
      })();
    }
    await allCreated;
    const createdIn = Date.now() - started;
    const timedOut = await Promise.race([
      whenSeen(EXPECTED).then(() => false),
      new Promise<boolean>((resolve) => setTimeout(resolve, TIMEOUT_MS, true).unref()),
    ]);
    const restarted = await restart;
    const cpuAfter = cpuTimes();
    const distinct = tally.seen.size;
    const seconds = (tally.lastVerifiedAt - started) / 1000;
    const result = {
      rate: distinct / seconds,
      p50: percentile(tally.latenciesMs, 0.5),
      p99: percentile(tally.latenciesMs, 0.99),
      lost: EXPECTED - distinct,
      duplicates: tally.verified - distinct,
    };
    console.log(
      `  ${label}: ${distinct}/${EXPECTED} delivered in ${seconds.toFixed(1)} s = ${result.rate.toFixed(0)} deliveries/s; ` +
        `latency p50 ${result.p50.toFixed(0)} ms, p99 ${result.p99.toFixed(0)} ms; ` +
        `lost ${result.lost}, duplicates ${result.duplicates}, bad signatures ${tally.unverified}` +
        `${timedOut ? ` (gave up after ${TIMEOUT_MS / 1000} s)` : ''}`,
    );
    console.log(
      `    events created in ${(createdIn / 1000).toFixed(1)} s` +
        (restarted
          ? `; down for ${((restarted.upAt - restarted.killedAt) / 1000).toFixed(1)} s, ` +
            `last delivery ${((tally.lastVerifiedAt - restarted.upAt) / 1000).toFixed(1)} s after the restart`
          : '') +
        (cpuBefore && cpuAfter && !restarted
          ? `; CPU ms per 1,000 deliveries: ${cpuShare(cpuBefore, cpuAfter)}`
          : ''),
    );
    return result;
  };

  const first = await runOnce('run1', false);
  const second = KILL ? await runOnce('run2-sigkill', true) : undefined;
  const lost = first.lost + (second?.lost ?? 0);
  const duplicates = first.duplicates + (second?.duplicates ?? 0);
  console.log(`load average at the end ${loadAverage()}`);
  console.log(
    `webhooks: ${first.rate.toFixed(0)} deliveries/s, p99 ${first.p99.toFixed(0)} ms, lost ${lost}, duplicates ${duplicates}`,
  );
  if (lost > 0) process.exitCode = 1;
} finally {
  if (service && service.exitCode === null) {
    const exited = new Promise((resolve) => service!.once('exit', resolve));
    service.kill('SIGTERM');
    await exited;
  }
  receiver.closeAllConnections();
  receiver.close();
  await workspace.close();
}

function percentile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
}

/**
 * CPU spent per 1,000 deliveries by the service, PostgreSQL and this process (API clients +
 * receiver). PostgreSQL counts only when this script started it (other clusters on the machine
 * are not ours): its server and the backends under it.
 */
function cpuShare(
  before: NonNullable<ReturnType<typeof cpuTimes>>,
  after: NonNullable<ReturnType<typeof cpuTimes>>,
): string {
  const sums = { service: 0, postgres: 0, bench: 0 };
  const ours = (pid: number) => pid === process.pid || after.get(pid)?.parent === process.pid;
  for (const [pid, { name, ms, parent }] of after) {
    const group =
      pid === service?.pid
        ? 'service'
        : pid === process.pid
          ? 'bench'
          : name === 'postgres' && ours(parent)
            ? 'postgres'
            : undefined;
    if (group) sums[group] += ms - (before.get(pid)?.ms ?? 0);
  }
  return Object.entries(sums)
    .map(([group, ms]) => `${group} ${((ms * 1000) / EXPECTED).toFixed(0)}`)
    .join(', ');
}
