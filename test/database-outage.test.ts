import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedDatabase, startEmbeddedDatabase } from '../adapters/database/embedded-postgres.ts';
import { createLogger } from '../adapters/logger/logger.ts';
import { freePort } from './helpers/free-port.ts';
import type { HttpClient, HttpResponse } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * The service on its own PostgreSQL cluster (the run's shared cluster must never be paused),
 * with the default timeouts: the cluster is stopped and restarted, then frozen with SIGSTOP
 * and thawed, under the running service.
 */
let dataDir: string;
let port: number;
let cluster: EmbeddedDatabase;
let testApp: TestApp;
let client: HttpClient & { organizationId: string };
let frozen: number[] = [];

const startCluster = () =>
  startEmbeddedDatabase({ dataDir, port, databaseName: 'deck_outage', logger: createLogger('warn') });

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'deck-outage-pg-'));
  port = await freePort();
  cluster = await startCluster();
  testApp = await startTestApp(
    { NOTIFICATIONS_POLL_INTERVAL_MS: '100', GENERATION_POLL_INTERVAL_MS: '100' },
    { databaseUrl: cluster.url },
  );
  client = await testApp.signedInClient();
  const subscription = await client.post('/api/notifications/subscriptions', {
    name: 'log',
    eventType: '*',
    channel: 'console',
  });
  expect(subscription.status).toBe(201);
});

afterAll(async () => {
  thaw();
  await testApp?.close();
  await cluster?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** The postmaster and every process it forked (backends, checkpointer, …). */
function clusterProcesses(): number[] {
  const postmaster = Number(
    readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0],
  );
  const children = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        // Fields after the parenthesised command: state, ppid, …
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

function freeze() {
  frozen = clusterProcesses();
  for (const pid of frozen) process.kill(pid, 'SIGSTOP');
}

function thaw() {
  for (const pid of frozen) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {}
  }
  frozen = [];
}

async function timed(request: () => Promise<HttpResponse>): Promise<HttpResponse & { ms: number }> {
  const started = performance.now();
  const response = await request();
  return { ...response, ms: performance.now() - started };
}

function expectUnavailable(response: HttpResponse & { ms: number }, withinMs: number) {
  expect(
    response.status,
    `${response.text}\n${testApp
      .logs()
      .split('\n')
      .filter((l) => l.includes('request failed'))
      .map((l) => JSON.parse(l).err.message)
      .join('\n')}`,
  ).toBe(503);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(response.ms).toBeLessThan(withinMs);
}

async function waitFor(condition: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const failedRounds = () => testApp.logs().match(/"msg":"work round failed"/g)?.length ?? 0;

/** After an outage: requests succeed again, and both background workers still do their work. */
async function expectRecovered(label: string) {
  await waitFor(async () => (await client.get('/api/decks')).status === 200);
  expect((await client.get('/readyz')).status).toBe(200);
  const deck = await client.post('/api/decks', { name: `After ${label}` });
  expect(deck.status).toBe(201);
  // The notification worker dispatches and delivers the new deck's event …
  await waitFor(
    () => testApp.logs().includes(`"msg":"event notification"`) && testApp.logs().includes(deck.body.id),
  );
  // … and the generation worker narrates it.
  await client.post(`/api/decks/${deck.body.id}/slides`, { narrationScript: 'Back again.' });
  const job = await client.post(`/api/decks/${deck.body.id}/generate`);
  expect(job.status).toBe(202);
  await waitFor(
    async () => (await client.get(`/api/decks/${deck.body.id}/generate/status`)).body?.status === 'completed',
  );
}

describe('a database outage under the running service', () => {
  it('stopped: 503 with Retry-After at once, /readyz 503, and recovery when it is back', async () => {
    expect((await client.get('/api/decks')).status).toBe(200);
    await cluster.stop();
    let restarted = false;
    try {
      const roundsBefore = failedRounds();
      const outageStarted = Date.now();

      expectUnavailable(await timed(() => client.get('/api/decks')), 5000);
      expectUnavailable(await timed(() => client.post('/api/decks', { name: 'During the outage' })), 5000);
      expectUnavailable(await timed(() => testApp.client().get('/readyz')), 2000);
      expect((await testApp.client().get('/healthz')).status).toBe(200);

      // The workers keep trying, backing off: not one failed round per 100 ms poll.
      await waitFor(() => Date.now() - outageStarted > 3000);
      const rounds = failedRounds() - roundsBefore;
      expect(rounds).toBeGreaterThan(0);
      expect(rounds).toBeLessThan(15);

      cluster = await startCluster();
      restarted = true;
    } finally {
      // The next test needs the cluster even when an assertion above failed.
      if (!restarted) cluster = await startCluster();
    }
    await expectRecovered('a restart');
  }, 60_000);

  it('frozen (SIGSTOP): 503 within 5 s, /readyz 503 within 2 s, and recovery on SIGCONT', async () => {
    expect((await client.get('/api/decks')).status).toBe(200);
    freeze();
    try {
      // Several at once: more than the pool would hold if stalled connections were kept.
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          timed(() =>
            i % 2 ? client.get('/api/decks') : client.post('/api/decks', { name: `Frozen ${i}` }),
          ),
        ),
      );
      for (const answer of answers) expectUnavailable(answer, 5000);
      expectUnavailable(await timed(() => testApp.client().get('/readyz')), 2000);
      expectUnavailable(await timed(() => client.get('/api/decks')), 5000);
    } finally {
      thaw();
    }
    await expectRecovered('SIGCONT');
    // Nothing that answered 503 was written.
    const names = (await client.get('/api/decks')).body.decks.map((deck: { name: string }) => deck.name);
    expect(names.filter((name: string) => name.startsWith('Frozen'))).toEqual([]);
  }, 60_000);
});
