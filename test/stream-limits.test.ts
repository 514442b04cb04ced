import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { environmentSchema } from '../app/config.ts';
import { STREAM_GOODBYE } from '../rest/event-stream.ts';
import { balancerConnectionsPerInstance, checkStreamCap } from '../scripts/cluster.ts';
import { openTransaction, waitForLockWaiters } from './helpers/blocking-transaction.ts';
import { StreamReader } from './helpers/event-stream.ts';
import type { HttpClient } from './helpers/http-client.ts';
import { startServerProcess } from './helpers/processes.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * The stream caps across instances (decision 063): STREAMS_PER_ORGANIZATION and STREAMS_PER_CALLER
 * counted in PostgreSQL by every instance, STREAMS_PER_INSTANCE below the balancer's connections;
 * a killed instance's streams stop counting; a graceful stop ends every stream cleanly; and a page
 * of large events does not cut off a client that reads.
 */

/** An open stream answer, read as it comes: its status, its text so far, and how it ended. */
function openRaw(url: string, headers: Record<string, string>) {
  const request = http.get(url, { headers, agent: false });
  let text = '';
  const answer = new Promise<http.IncomingMessage>((resolve, reject) => {
    request.on('response', resolve);
    request.on('error', reject);
  });
  // A stream cut before its answer (its caller revoked while it opened) ended with an error.
  answer.catch(() => {});
  const ended = answer.then(
    (response) =>
      new Promise<'end' | 'aborted' | 'error'>((resolve) => {
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on('end', () => resolve('end'));
        response.on('aborted', () => resolve('aborted'));
        response.on('error', () => resolve('error'));
      }),
    () => 'error' as const,
  );
  return {
    answer,
    ended,
    text: () => text,
    /** The answer's status once its head arrived; its body is read on (a refusal's problem too). */
    async status(): Promise<number> {
      return (await answer).statusCode ?? 0;
    },
    close: () => request.destroy(),
  };
}
type Raw = ReturnType<typeof openRaw>;

const STREAM = '/api/notifications/events/stream';
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

async function keys(owner: HttpClient, count: number): Promise<string[]> {
  const secrets: string[] = [];
  for (let n = 0; n < count; n += 1) {
    const created = await owner.post('/api/api-keys', { name: `Streams ${n}`, access: 'read' });
    expect(created.status, created.text).toBe(201);
    secrets.push(created.body.secret);
  }
  return secrets;
}

/** Waits until a refused stream's problem has been read, and answers it. */
async function problemOf(stream: Raw) {
  await stream.ended;
  return JSON.parse(stream.text()) as { status: number; code: string; detail: string };
}

describe('the caps, across two instances on one database', () => {
  let a: TestApp;
  let b: TestApp;
  const open: Raw[] = [];
  const caps = {
    STREAMS_PER_CALLER: '2',
    STREAMS_PER_ORGANIZATION: '4',
    STREAMS_PER_INSTANCE: '6',
    STREAM_LEASE_SECONDS: '2',
    // The callers' check ends a revoked caller's streams within a second, even one being counted.
    STREAM_AUTH_CHECK_SECONDS: '1',
  };

  beforeAll(async () => {
    a = await startTestApp(caps);
    b = await startTestApp(caps, { databaseUrl: a.databaseUrl });
  });
  /** Closes every stream opened so far, and waits until both instances hold none. */
  async function closeAll() {
    for (const stream of open.splice(0)) stream.close();
    await eventually(() => a.app.edge.liveEvents!.openStreams + b.app.edge.liveEvents!.openStreams === 0);
  }
  afterAll(async () => {
    for (const stream of open) stream.close();
    await b?.close();
    await a?.close();
  });

  const follow = (app: { url: string }, headers: Record<string, string>) => {
    const stream = openRaw(`${app.url}${STREAM}`, headers);
    open.push(stream);
    return stream;
  };

  it('STREAMS_PER_ORGANIZATION holds on all instances together, even for opens at the same moment', async () => {
    const owner = await a.signedInClient();
    const secrets = await keys(owner, 6);
    // Twelve opens at once, two per key, half through each instance: four may be open.
    const streams = secrets.flatMap((secret, n) => [
      follow(n % 2 ? a : b, bearer(secret)),
      follow(n % 2 ? b : a, bearer(secret)),
    ]);
    const statuses = await Promise.all(streams.map((stream) => stream.status()));
    expect(statuses.filter((status) => status === 200)).toHaveLength(4);
    expect(statuses.filter((status) => status === 429)).toHaveLength(8);
    const refused = streams.find((_, n) => statuses[n] === 429)!;
    expect((await refused.answer).headers['retry-after']).toBe('5');
    const problem = await problemOf(refused);
    expect(problem).toMatchObject({ status: 429, code: 'TOO_MANY_REQUESTS' });
    expect(problem.detail).toMatch(/At most 4 streams .* per organization/);

    // Another organization is not counted with this one.
    const other = await b.signedInClient();
    expect(await follow(a, { cookie: other.cookieHeader }).status()).toBe(200);

    // One closed: a new one opens, on either instance.
    const opened = streams.filter((_, n) => statuses[n] === 200);
    opened[0]!.close();
    const again = await eventually(async () => {
      const stream = follow(opened.length % 2 ? a : b, { cookie: owner.cookieHeader });
      if ((await stream.status()) === 200) return stream;
      stream.close();
      return null;
    });
    expect(await again.status()).toBe(200);
    for (const stream of [...opened, again]) stream.close();
  });

  it('STREAMS_PER_CALLER holds on all instances together', async () => {
    const user = await a.signedInClient();
    const headers = { cookie: user.cookieHeader };
    expect(await follow(a, headers).status()).toBe(200);
    expect(await follow(b, headers).status()).toBe(200);
    const third = follow(a, headers);
    expect(await third.status()).toBe(429);
    expect((await problemOf(third)).detail).toMatch(/At most 2 streams .* per caller/);
    const fourth = follow(b, headers);
    expect(await fourth.status()).toBe(429);
  });

  it('a tRPC subscription past the organization’s cap is refused TOO_MANY_REQUESTS', async () => {
    const owner = await a.signedInClient();
    const secrets = await keys(owner, 3);
    for (const secret of secrets.slice(0, 2)) {
      expect(await follow(a, bearer(secret)).status()).toBe(200);
      expect(await follow(b, bearer(secret)).status()).toBe(200);
    }
    const subscription = follow(a, bearer(secrets[2]!));
    // The same procedure over /trpc: its refusal is tRPC's error message on the event stream.
    const trpc = openRaw(
      `${a.url}/trpc/events.onEvent?input=${encodeURIComponent('{}')}`,
      bearer(secrets[2]!),
    );
    open.push(trpc);
    expect(await subscription.status()).toBe(429);
    await eventually(() => trpc.text().includes('TOO_MANY_REQUESTS'));
    expect(trpc.text()).toMatch(/per organization/);
  });

  it('STREAMS_PER_INSTANCE: past it 503 with Retry-After, whoever asks; another instance still takes streams', async () => {
    await closeAll();
    // Two organizations' streams fill instance a to its six.
    const first = await a.signedInClient();
    const second = await a.signedInClient();
    const firstKeys = await keys(first, 2);
    const secondKeys = await keys(second, 2);
    for (const secret of [...firstKeys, ...secondKeys]) {
      expect(await follow(a, bearer(secret)).status()).toBe(200);
    }
    for (const secret of secondKeys.slice(0, 1)) expect(await follow(a, bearer(secret)).status()).toBe(200);
    expect(await follow(a, bearer(firstKeys[0]!)).status()).toBe(200);
    expect(a.app.edge.liveEvents!.openStreams).toBe(6);
    const third = await a.signedInClient();
    const refused = follow(a, { cookie: third.cookieHeader });
    expect(await refused.status()).toBe(503);
    expect((await refused.answer).headers['retry-after']).toBe('5');
    expect(await problemOf(refused)).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    // Ordinary requests are not streams: served as ever.
    expect((await third.get('/api/decks')).status).toBe(200);
    expect(await follow(b, { cookie: third.cookieHeader }).status()).toBe(200);
    await closeAll();
  });

  it('a stream refused by the shared count stops no other organization’s events on its instance', async () => {
    await closeAll();
    const watcher = await a.signedInClient();
    const watching = follow(a, { cookie: watcher.cookieHeader });
    expect(await watching.status()).toBe(200);
    // Another organization's user holds its two streams on b: its open on a is refused by the shared count.
    const user = await b.signedInClient();
    const headers = { cookie: user.cookieHeader };
    expect(await follow(b, headers).status()).toBe(200);
    expect(await follow(b, headers).status()).toBe(200);
    expect(await follow(a, headers).status()).toBe(429);
    expect(a.app.edge.liveEvents!.openStreams).toBe(1);
    // The watcher's events still reach it, and nothing but it is registered.
    const deck = (await watcher.post('/api/decks', { name: 'Still live' })).body;
    await eventually(() => watching.text().includes(deck.id), 5_000);
    expect(a.app.edge.liveEvents!.reachedStreams).toBe(1);
    // A later open of either organization loses nothing.
    const again = follow(a, { cookie: watcher.cookieHeader });
    expect(await again.status()).toBe(200);
    const next = (await watcher.post('/api/decks', { name: 'Later' })).body;
    await eventually(() => watching.text().includes(next.id) && again.text().includes(next.id), 5_000);
    expect(a.app.edge.liveEvents!.reachedStreams).toBe(2);
    await closeAll();
  });

  it('streams ended while they are counted (an event stream, a generation’s progress) stay unregistered and stop no other stream', async () => {
    await closeAll();
    const watcher = await a.signedInClient();
    const watching = follow(a, { cookie: watcher.cookieHeader });
    expect(await watching.status()).toBe(200);
    const owner = await a.signedInClient();
    const key = (await owner.post('/api/api-keys', { name: 'Revoked while counted', access: 'read' })).body;
    const ofKey = (await owner.post('/api/decks', { name: 'Generated' })).body;
    // The owner's organization is counted behind this lock: both its key's opens wait there…
    const blocker = await openTransaction(a.databaseUrl);
    let deck: { id: string };
    try {
      await blocker.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `open_stream:${owner.organizationId}`,
      ]);
      follow(a, bearer(key.secret));
      const input = encodeURIComponent(JSON.stringify({ deckId: ofKey.id }));
      open.push(openRaw(`${a.url}/trpc/generation.onProgress?input=${input}`, bearer(key.secret)));
      await waitForLockWaiters(a.databaseUrl, 2);
      expect(a.app.edge.liveEvents!.openStreams).toBe(3);
      // …while the key is revoked: the callers' check ends both.
      expect((await owner.delete(`/api/api-keys/${key.apiKey.id}`)).status).toBe(200);
      await eventually(() => a.app.edge.liveEvents!.openStreams === 1);
      deck = (await watcher.post('/api/decks', { name: 'Meanwhile' })).body;
    } finally {
      await blocker.commit();
    }
    // Counted once the lock is gone, then uncounted at once.
    await eventually(async () => {
      const rows = await a.app.database.orm.em
        .getConnection()
        .execute<{ n: number }[]>('select count(*)::int as n from open_stream where organization_id = ?', [
          owner.organizationId,
        ]);
      return rows[0]!.n === 0;
    });
    await eventually(() => watching.text().includes(deck.id), 5_000);
    expect(a.app.edge.liveEvents!.openStreams).toBe(1);
    expect(a.app.edge.liveEvents!.reachedStreams).toBe(1);
    await closeAll();
  });

  it('a stream whose row the database would not delete at its close stops counting within a lease', async () => {
    await closeAll();
    const user = await a.signedInClient();
    const headers = { cookie: user.cookieHeader };
    const first = follow(a, headers);
    const second = follow(a, headers);
    expect(await first.status()).toBe(200);
    expect(await second.status()).toBe(200);
    // The database refuses to delete this caller's rows (and counts each refusal: a sequence is not rolled back).
    const db = a.app.database.orm.em.getConnection();
    await db.execute('create sequence refused_deletes');
    await db.execute(`create function refuse_delete() returns trigger language plpgsql as $$
      begin perform nextval('refused_deletes'); raise exception 'refused'; end $$`);
    await db.execute(`create trigger refuse_delete before delete on open_stream for each row
      when (old.caller_key = 'user:${user.userId}') execute function refuse_delete()`);
    try {
      first.close();
      await eventually(async () => {
        const [row] = await db.execute<{ is_called: boolean }[]>('select is_called from refused_deletes');
        return row!.is_called;
      });
    } finally {
      await db.execute('drop trigger refuse_delete on open_stream');
      await db.execute('drop function refuse_delete');
      await db.execute('drop sequence refused_deletes');
    }
    // Its row counts still (`second` keeps a renewing its leases)…
    expect(await follow(b, headers).status()).toBe(429);
    // …until its lease (2 s) lapses: it is never renewed again.
    const started = Date.now();
    const opened = await eventually(async () => {
      const stream = follow(b, headers);
      if ((await stream.status()) === 200) return stream;
      stream.close();
      return null;
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await opened.status()).toBe(200);
    await closeAll();
  });

  it('an instance killed with SIGKILL: its streams count until their lease lapses, then no more', {
    timeout: 90_000,
  }, async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'deck-streams-killed-'));
    const killed = await startServerProcess({
      DATABASE_URL: a.databaseUrl,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      SEED_DEMO: 'false',
      LOG_FORMAT: 'json',
      ...caps,
    });
    try {
      const owner = await a.signedInClient();
      const secrets = await keys(owner, 3);
      for (const secret of secrets.slice(0, 2)) {
        expect(await follow(killed, bearer(secret)).status()).toBe(200);
        expect(await follow(killed, bearer(secret)).status()).toBe(200);
      }
      killed.child.kill('SIGKILL');
      await killed.exited;
      // Counted still: the instance cannot say it is gone.
      const refused = follow(a, bearer(secrets[2]!));
      expect(await refused.status()).toBe(429);
      // Within the lease (2 s) and a renewal, they count no more.
      const started = Date.now();
      const opened = await eventually(async () => {
        const stream = follow(a, bearer(secrets[2]!));
        if ((await stream.status()) === 200) return stream;
        stream.close();
        return null;
      });
      expect(Date.now() - started).toBeLessThan(5_000);
      opened.close();
    } finally {
      killed.child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the instance cap and the balancer', () => {
  it('STREAMS_PER_INSTANCE’s default leaves a quarter of HAProxy’s connections to each instance for other requests', async () => {
    const balancer = await balancerConnectionsPerInstance();
    const streams = environmentSchema.shape.STREAMS_PER_INSTANCE.parse(undefined);
    const organization = environmentSchema.shape.STREAMS_PER_ORGANIZATION.parse(undefined);
    expect(streams).toBeLessThanOrEqual(balancer * 0.75);
    expect(organization).toBeLessThan(streams);
    // `npm run cluster` refuses a cap that would fill the balancer's connections.
    expect(() => checkStreamCap({}, balancer)).not.toThrow();
    expect(() => checkStreamCap({ STREAMS_PER_INSTANCE: String(balancer) }, balancer)).toThrow(
      /must be below HAProxy's maxconn/,
    );
  });

  it('a configuration in which one organization could fill an instance is refused', async () => {
    await expect(
      startTestApp({ STREAMS_PER_ORGANIZATION: '50', STREAMS_PER_INSTANCE: '50' }),
    ).rejects.toThrow(/STREAMS_PER_ORGANIZATION/);
  });
});

describe('a page of large events', () => {
  let t: TestApp;
  const readers: StreamReader[] = [];
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    for (const reader of readers) reader.close();
    await t?.close();
  });

  /** Ten events of about 91 KB each, in one transaction: one page for the reader, 910 KB against a 256 KB buffer. */
  async function tenLargeEvents(organizationId: string): Promise<string[]> {
    const rows = await t.app.database.orm.em.getConnection().execute<{ id: string }[]>(
      `insert into event (id, organization_id, event_type, aggregate_type, aggregate_id, occurred_at, payload)
       select gen_random_uuid(), ?, 'deck.updated', 'deck', gen_random_uuid()::text, now(),
              jsonb_build_object('name', repeat('x', 91000), 'n', n)
         from generate_series(1, 10) n
       returning id`,
      [organizationId],
    );
    return rows.map((row) => row.id);
  }

  it('reaches a client that reads, live or resuming, without cutting it off', async () => {
    const user = await t.signedInClient();
    const live = new StreamReader(t.url, '', { cookie: user.cookieHeader });
    readers.push(live);
    await live.opened();
    const first = await tenLargeEvents(user.organizationId);
    await eventually(() => live.messages.length >= 10);
    expect(live.ids).toEqual(first);
    const second = await tenLargeEvents(user.organizationId);
    await eventually(() => live.messages.length >= 20);
    expect(live.ids).toEqual([...first, ...second]);
    // Never cut off: it opened once.
    expect(live.opens).toBe(1);

    // Resuming from before them: all twenty, and then what comes live.
    const resumed = new StreamReader(t.url, `?lastEventId=${first[0]}`, { cookie: user.cookieHeader });
    readers.push(resumed);
    await eventually(() => resumed.messages.length >= 19);
    const third = await tenLargeEvents(user.organizationId);
    await eventually(() => resumed.messages.length >= 29 && live.messages.length >= 30);
    expect(resumed.ids).toEqual([...first.slice(1), ...second, ...third]);
    expect(live.ids).toEqual([...first, ...second, ...third]);
    expect(resumed.opens).toBe(1);
    expect(live.opens).toBe(1);
  }, 30_000);
});

describe('a graceful stop', () => {
  it('ends every open stream, REST’s and tRPC’s, with a `retry:` and the answer’s end', async () => {
    const t = await startTestApp();
    let closed = false;
    try {
      const user = await t.signedInClient();
      const secret = (await keys(user, 1))[0]!;
      const rest = openRaw(`${t.url}${STREAM}`, bearer(secret));
      const trpc = openRaw(`${t.url}/trpc/events.onEvent?input=${encodeURIComponent('{}')}`, bearer(secret));
      expect(await rest.status()).toBe(200);
      expect(await trpc.status()).toBe(200);
      await eventually(() => rest.text().includes(': stream open') && trpc.text().length > 0);
      await eventually(() => t.app.edge.liveEvents!.openStreams === 2);
      await t.close();
      closed = true;
      expect(await rest.ended).toBe('end');
      expect(await trpc.ended).toBe('end');
      expect((await rest.answer).complete).toBe(true);
      expect((await trpc.answer).complete).toBe(true);
      expect(rest.text().endsWith(STREAM_GOODBYE)).toBe(true);
      expect(trpc.text().endsWith(STREAM_GOODBYE)).toBe(true);
      expect(STREAM_GOODBYE).toMatch(/^retry: \d+$/m);
      // Not tRPC's `return`: the client reconnects, its subscription is not completed.
      expect(trpc.text()).not.toMatch(/^event: return$/m);
    } finally {
      if (!closed) await t.close();
    }
  });
});
