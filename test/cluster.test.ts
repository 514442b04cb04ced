import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, KEEP_ALIVE_MS, startCluster } from '../scripts/cluster.ts';
import { HttpClient } from './helpers/http-client.ts';
import { everyTargetUp, startPrometheus } from './helpers/prometheus.ts';
import { createTestDatabase } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';
import { subscribe } from './helpers/webhook-scenario.ts';

/**
 * api.md, "Running as many instances" and "Delivery guarantee (correction)": three instances
 * started by `npm run cluster`'s own code behind HAProxy (`deploy/haproxy.cfg`), on one
 * PostgreSQL, every request through the balancer. Sessions, Idempotency-Keys and rate limits
 * hold across instances; one instance killed with SIGKILL under load loses no acknowledged
 * write and no event, repeats only webhooks in flight at the kill (same webhook-id), and its
 * generation job finishes on another instance.
 */
/** Steps that drive many requests or start programs, with other test files running beside this one. */
const HEAVY_STEP_MS = 60_000;
const DEMO_PASSWORD = `demo-${randomBytes(8).toString('hex')}`;
let cluster: Cluster;
let db: pg.Client;
let dataDir: string;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'deck-cluster-'));
  cluster = await startCluster({
    instances: 3,
    port: 0,
    workDir: path.join(dataDir, 'cluster'),
    env: {
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
      STORAGE_SIGNING_SECRET: randomBytes(32).toString('base64url'),
      SEED_DEMO: 'true',
      DEMO_PASSWORD,
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: '600',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      NOTIFICATIONS_POLL_INTERVAL_MS: '100',
      // A dead instance's claims are taken over in seconds, not minutes.
      NOTIFICATIONS_LEASE_SECONDS: '3',
      GENERATION_LEASE_SECONDS: '3',
      GENERATION_POLL_INTERVAL_MS: '200',
    },
  });
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
}, 90_000);
afterAll(async () => {
  await db?.end();
  await cluster?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function signIn(): Promise<HttpClient> {
  const client = new HttpClient(cluster.url);
  const answer = await client.post('/api/auth/login', { email: 'demo@example.com', password: DEMO_PASSWORD });
  expect(answer.status, answer.text).toBe(200);
  return client;
}

/** A new caller: an API key of the demo organization that may write (its own 600 a minute). */
async function writerKey(owner: HttpClient, name: string): Promise<string> {
  const created = await owner.post('/api/api-keys', { name, access: 'write' });
  expect(created.status, created.text).toBe(201);
  return `Bearer ${created.body.secret}`;
}

const servedBy = (answer: { headers: Headers }) => answer.headers.get('x-served-by');

describe('a cluster of three instances behind HAProxy', () => {
  it('a session made on one instance works on the others, and its logout ends it on all', async () => {
    const user = await signIn();
    const answers = await Promise.all(Array.from({ length: 6 }, () => user.get('/api/auth/me')));
    for (const answer of answers) expect(answer.status).toBe(200);
    expect(new Set(answers.map(servedBy))).toEqual(new Set(['deck1', 'deck2', 'deck3']));
    expect((await user.post('/api/auth/logout')).status).toBe(200);
    const after = await Promise.all(Array.from({ length: 6 }, () => user.get('/api/auth/me')));
    for (const answer of after) expect(answer.status).toBe(401);
    expect(new Set(after.map(servedBy))).toEqual(new Set(['deck1', 'deck2', 'deck3']));
  });

  it('the balancer, not an instance, closes the idle connections between them; clients get no instance hint', async () => {
    // An instance closing an idle connection just as HAProxy reuses it would cut that request
    // with no answer (deploy/haproxy.cfg): each keeps them open far longer than HAProxy does.
    for (const instance of cluster.instances) {
      const direct = await fetch(`${instance.url}/readyz`);
      await direct.arrayBuffer();
      expect(direct.headers.get('keep-alive')).toBe(`timeout=${KEEP_ALIVE_MS / 1000}`);
    }
    // That idle time is the instance's, not the balancer's (timeout http-keep-alive).
    const answer = await fetch(`${cluster.url}/readyz`);
    await answer.arrayBuffer();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('keep-alive')).toBeNull();
  });

  it('an Idempotency-Key retried on other instances replays the first answer', async () => {
    const user = await signIn();
    const key = `cluster-${randomBytes(6).toString('hex')}`;
    const name = `Once ${key}`;
    const post = () =>
      user.request('POST', '/api/decks', { json: { name }, headers: { 'idempotency-key': key } });
    const first = await post();
    expect(first.status).toBe(201);
    const retries = [await post(), await post(), await post()];
    for (const retry of retries) {
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body.id).toBe(first.body.id);
    }
    // Round robin: the retries reached the other instances too.
    expect(new Set([first, ...retries].map(servedBy)).size).toBe(3);
    const { rows } = await db.query('select count(*)::int as n from deck where name = $1', [name]);
    expect(rows[0].n).toBe(1);
  });

  it(
    "a caller's limit holds across instances: 600 a minute in all",
    async () => {
      const owner = await signIn();
      const created = await owner.post('/api/api-keys', { name: 'Limited', access: 'read' });
      expect(created.status, created.text).toBe(201);
      const authorization = `Bearer ${created.body.secret}`;
      const statuses: number[] = [];
      const servers = new Set<string | null>();
      let next = 0;
      // 650 requests, 16 at a time, spread by the balancer over the three instances.
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < 650) {
            next += 1;
            const answer = await fetch(`${cluster.url}/api/decks`, { headers: { authorization } });
            await answer.arrayBuffer();
            statuses.push(answer.status);
            servers.add(servedBy(answer));
          }
        }),
      );
      expect(servers).toEqual(new Set(['deck1', 'deck2', 'deck3']));
      expect(statuses.filter((status) => status === 200)).toHaveLength(600);
      expect(statuses.filter((status) => status === 429)).toHaveLength(50);
    },
    HEAVY_STEP_MS,
  );

  it(
    'an instance stopped with SIGTERM drains: the balancer moves on and no request fails',
    async () => {
      const owner = await signIn();
      const failures: string[] = [];
      let answered = 0;
      let loading = true;
      // Each loop a caller of its own (an API key): the demo user's minute is spent elsewhere.
      const keys = await Promise.all(Array.from({ length: 4 }, (_, w) => writerKey(owner, `Drain ${w}`)));
      const loops = keys.map(async (authorization, w) => {
        for (let n = 0; loading; n += 1) {
          try {
            const answer = await fetch(`${cluster.url}/api/decks`, {
              method: n % 2 ? 'GET' : 'POST',
              headers: { authorization, 'content-type': 'application/json' },
              ...(n % 2 ? {} : { body: JSON.stringify({ name: `drain ${w}-${n}` }) }),
            });
            const text = await answer.text();
            if (answer.status >= 300) failures.push(`${answer.status} ${text}`);
            answered += 1;
          } catch (error) {
            failures.push(String(error));
          }
        }
      });
      await eventually(() => answered >= 20);
      const victim = cluster.instances[1]!;
      expect(await victim.stop('SIGTERM')).toBe(0);
      const duringAndAfter = answered;
      await victim.start();
      await eventually(() => answered >= duringAndAfter + 50);
      loading = false;
      await Promise.all(loops);
      expect(failures).toEqual([]);
    },
    HEAVY_STEP_MS,
  );

  it(
    'a real Prometheus scrapes every instance',
    async () => {
      const targets = cluster.instances.map((instance) => new URL(instance.metricsUrl).host);
      const prometheus = await startPrometheus(targets);
      try {
        const up = await everyTargetUp(prometheus, 3);
        expect(up.map((target) => new URL(target.scrapeUrl).host).sort()).toEqual([...targets].sort());
      } finally {
        await prometheus.close();
      }
    },
    HEAVY_STEP_MS,
  );

  it('kill -9 under load: no acknowledged write lost, every event delivered, repeats only of what was in flight, the job finishes elsewhere', async () => {
    const owner = await signIn();

    // A receiver that takes 50 ms to answer, so that deliveries are in flight when the kill comes.
    const arrivals: { id: string; at: number }[] = [];
    const receiver = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        arrivals.push({ id: String(request.headers['webhook-id']), at: Date.now() });
        setTimeout(() => response.writeHead(204).end(), 50);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    try {
      await subscribe(owner, receiverUrl, { eventType: 'deck.*' });

      // A narration job long enough to be under way at the kill.
      const story = await owner.post('/api/decks', { name: 'Narrated' });
      for (let i = 0; i < 24; i += 1) {
        const slide = await owner.post(`/api/decks/${story.body.id}/slides`, {
          title: `Slide ${i}`,
          narrationScript: `This is slide number ${i} of the cluster test, spoken by a local voice.`,
        });
        expect(slide.status).toBe(201);
      }
      const job = await owner.post(`/api/decks/${story.body.id}/generate`);
      expect(job.status).toBe(202);
      const jobId: string = job.body.jobId;
      const claimedBy = (fromSlideAbove = -1) =>
        cluster.instances.filter((instance) =>
          instance
            .output()
            .split('\n')
            .some((line) => {
              if (!line.includes('generation job claimed') || !line.includes(jobId)) return false;
              return (JSON.parse(line) as { fromSlide: number }).fromSlide > fromSlideAbove;
            }),
        );
      const victim = (await eventually(() => claimedBy()[0], 20_000))!;
      await eventually(async () => {
        const { rows } = await db.query('select current_slide from generation_job where id = $1', [jobId]);
        return rows[0].current_slide >= 1;
      }, 20_000);

      // Steady load: writers creating decks and renaming them (each a deck.* event and webhook).
      const acknowledged = new Map<string, string>(); // deck id → its acknowledged name
      const unanswered = new Map<string, string>(); // deck id → a later name sent, its answer lost
      const outcomes = {
        writes: 0,
        cut: [] as number[],
        balancerErrors: [] as number[],
        instanceErrors: [] as string[],
      };
      let loading = true;
      const write = async (authorization: string, method: string, url: string, body: unknown) => {
        outcomes.writes += 1;
        let answer: Response;
        let text: string;
        try {
          answer = await fetch(`${cluster.url}${url}`, {
            method,
            headers: { authorization, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          text = await answer.text();
        } catch {
          outcomes.cut.push(Date.now()); // the connection itself failed
          return undefined;
        }
        if (answer.status >= 500) {
          // The service's own answers carry X-Request-Id; HAProxy's (a connection cut) do not.
          if (answer.headers.get('x-request-id')) outcomes.instanceErrors.push(`${answer.status} ${text}`);
          else outcomes.balancerErrors.push(Date.now());
          return undefined;
        }
        expect(answer.status, text).toBeLessThan(300);
        return JSON.parse(text) as { id: string; name: string };
      };
      // Each writer is a caller of its own (an API key), well within its 600 a minute.
      const keys = await Promise.all(Array.from({ length: 4 }, (_, w) => writerKey(owner, `Writer ${w}`)));
      const writers = keys.map(async (key, w) => {
        for (let n = 0; loading; n += 1) {
          const deck = await write(key, 'POST', '/api/decks', { name: `load ${w}-${n}` });
          if (!deck) continue;
          acknowledged.set(deck.id, deck.name);
          const renamed = await write(key, 'PATCH', `/api/decks/${deck.id}`, {
            name: `load ${w}-${n} renamed`,
          });
          if (renamed) acknowledged.set(deck.id, renamed.name);
          // A rename whose answer the kill cut may have been done or not: either name is right.
          else unanswered.set(deck.id, `load ${w}-${n} renamed`);
        }
      });

      await eventually(() => acknowledged.size >= 30, 20_000);
      const killedAt = Date.now();
      await victim.stop('SIGKILL');
      // Its exit seen: whatever it sent before this, it may have sent without recording it.
      const diedAt = Date.now();
      // Another instance takes the job over once its lease lapses, from where it got to.
      const successor = await eventually(() => claimedBy(0).find((instance) => instance !== victim), 20_000);
      expect(successor).toBeDefined();
      await victim.start();
      await eventually(() => acknowledged.size >= 150, 30_000);
      loading = false;
      await Promise.all(writers);

      // No acknowledged write lost: every deck is there, with its acknowledged name.
      const ids = [...acknowledged.keys()];
      const { rows: found } = await db.query<{ id: string; name: string }>(
        'select id, name from deck where id = any($1::uuid[])',
        [ids],
      );
      expect(found).toHaveLength(acknowledged.size);
      for (const row of found) {
        expect([acknowledged.get(row.id), unanswered.get(row.id)]).toContain(row.name);
      }

      // The job finished.
      await eventually(async () => {
        const { rows } = await db.query('select status from generation_job where id = $1', [jobId]);
        return rows[0].status === 'completed';
      }, 30_000);

      // Every deck.* event of the load (those of writes cut by the kill that committed included)
      // reaches the receiver at least once.
      const { rows: events } = await db.query<{ id: string }>(
        `select e.id from event e join deck d on d.id::text = e.aggregate_id
          where d.name like 'load %' and e.event_type like 'deck.%'`,
      );
      await eventually(() => {
        const received = new Set(arrivals.map((arrival) => arrival.id));
        return events.every((event) => received.has(event.id));
      }, 40_000);
      const byId = new Map<string, number[]>();
      for (const arrival of arrivals) byId.set(arrival.id, [...(byId.get(arrival.id) ?? []), arrival.at]);
      const repeated = [...byId].filter(([, times]) => times.length > 1);
      // A repeat only of a delivery in flight at the kill: first sent before it, again after it.
      for (const [id, times] of repeated) {
        const seen = `${id} at ${times.map((at) => at - killedAt)} ms from the kill (died at ${diedAt - killedAt} ms)`;
        expect(times, seen).toHaveLength(2);
        expect(times[0], seen).toBeLessThanOrEqual(diedAt);
        expect(times[1], seen).toBeGreaterThan(killedAt);
      }
      // No 5xx from an instance; only requests the kill cut failed, all within moments of it
      // (HAProxy takes a dead instance out after two failed checks 0.5 s apart).
      expect(outcomes.instanceErrors).toEqual([]);
      for (const at of [...outcomes.cut, ...outcomes.balancerErrors]) {
        const seen = `a failure ${at - killedAt} ms from the kill (died at ${diedAt - killedAt} ms)`;
        expect(at, seen).toBeGreaterThanOrEqual(killedAt);
        expect(at - diedAt, seen).toBeLessThan(3000);
      }
      console.log(
        `kill -9 figures: ${outcomes.writes} writes sent, ${acknowledged.size} decks acknowledged and ${found.length} found (${unanswered.size} renames unanswered); ` +
          `${events.length} events, ${byId.size} delivered (${arrivals.length} arrivals, ${repeated.length} repeated, all in flight at the kill); ` +
          `5xx from instances ${outcomes.instanceErrors.length}, cut by the kill ${outcomes.balancerErrors.length} (HAProxy 5xx) + ${outcomes.cut.length} (connection closed); ` +
          `generation job claimed by ${victim.name}, finished by ${successor!.name}`,
      );
    } finally {
      receiver.closeAllConnections();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  }, 120_000);
});

describe('npm run cluster with a log level above info', () => {
  it(
    'starts and answers through the balancer, though no instance logs that it listens',
    async () => {
      const quietDir = await mkdtemp(path.join(os.tmpdir(), 'deck-cluster-quiet-'));
      const quiet = await startCluster({
        instances: 1,
        port: 0,
        workDir: path.join(quietDir, 'cluster'),
        env: {
          DATABASE_URL: await createTestDatabase(),
          DATA_DIR: quietDir,
          ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
          STORAGE_SIGNING_SECRET: randomBytes(32).toString('base64url'),
          SEED_DEMO: 'false',
          LOG_LEVEL: 'warn',
        },
      });
      try {
        expect(quiet.instances[0]!.output()).not.toContain('"deck service listening"');
        expect((await fetch(`${quiet.url}/readyz`)).status).toBe(200);
      } finally {
        await quiet.close();
        await rm(quietDir, { recursive: true, force: true });
      }
    },
    HEAVY_STEP_MS,
  );
});
