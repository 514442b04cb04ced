import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeckClient, type TRPCClientError } from '../client/src/index.ts';
import { openTransaction, waitForTableLockWaiter } from './helpers/blocking-transaction.ts';
import { StreamReader } from './helpers/event-stream.ts';
import * as fixtures from './helpers/fixtures.ts';
import { type HttpClient, keyClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * Deck export as jobs (api.md, "Deck export"; decisions 070–072), over HTTP on the real app: the
 * routes, tenancy, access levels, the 200-slide bound, idempotency, the subscription; and the work
 * in PostgreSQL: cancel, EXPORTS_PER_ORGANIZATION and EXPORT_CONCURRENCY at and past their bounds,
 * a deck grown past 200 slides, an export whose instance died three times, the retention sweep.
 * Whether a render completes is the renderers' (test/exports-complete.test.ts): nothing here
 * depends on how an export's rendering ends.
 *
 * An export is held `processing` by a test transaction that locks `deck_branding` (the snapshot reads
 * it): the worker has claimed it and waits there until the test commits (test/helpers/blocking-transaction.ts).
 */
/** Routes only: no worker takes exports, so each stays `pending` as created. */
let q: TestApp;
/** The worker: fast polls and sweeps, no statement deadline (a held snapshot waits on the test's lock). */
let w: TestApp;
const WORKER_ENV = {
  EXPORT_POLL_INTERVAL_MS: '50',
  EXPORT_SWEEP_INTERVAL_MS: '100',
  EXPORTS_PER_ORGANIZATION: '2',
  EXPORT_CONCURRENCY: '4',
  DATABASE_STATEMENT_TIMEOUT_MS: '60000',
  GENERATION_ENABLED: 'false',
};

beforeAll(async () => {
  [q, w] = await Promise.all([
    startTestApp({ EXPORTS_ENABLED: 'false', GENERATION_ENABLED: 'false', STREAMS_PER_CALLER: '2' }),
    startTestApp(WORKER_ENV),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([q?.close(), w?.close()]);
});

/** A deck with branding, an intro, `slides` slides with narration scripts, and a FAQ. */
async function deckOf(client: HttpClient, slides = 3): Promise<string> {
  const deckId = (await client.post('/api/decks', { name: 'Q4 pitch' })).body.id as string;
  expect((await client.put(`/api/decks/${deckId}/branding`, fixtures.branding)).status).toBe(200);
  expect((await client.put(`/api/decks/${deckId}/intro`, fixtures.intro)).status).toBe(200);
  for (let i = 1; i <= slides; i++) {
    const slide = await client.post(`/api/decks/${deckId}/slides`, {
      title: `Slide ${i}`,
      bullets: [`Point ${i}`],
      narrationScript: `This is slide ${i}.`,
    });
    expect(slide.status).toBe(201);
  }
  const faq = await client.post(
    `/api/decks/${deckId}/faqs`,
    fixtures.validBodies['POST /decks/{deckId}/faqs'],
  );
  expect(faq.status).toBe(201);
  return deckId;
}

async function sql<T>(t: TestApp, text: string, params: unknown[] = []): Promise<T[]> {
  return t.app.database.orm.em.getConnection().execute<T[]>(text, params);
}

/** The export's row as the worker left it. */
async function rowOf(t: TestApp, exportId: string) {
  const [row] = await sql<{
    status: string;
    attempt: number;
    locked_until: Date | null;
    file_key: string | null;
  }>(t, 'select status, attempt, locked_until, file_key from export_job where id = ?', [exportId]);
  return row!;
}

/** Adds slides to a deck by SQL (fast), after its last one. */
async function addSlides(t: TestApp, deckId: string, count: number): Promise<void> {
  await sql(
    t,
    `insert into slide (id, deck_id, slide_id, title, bullets, order_index)
     select gen_random_uuid(), d.id, 'bulk-' || (n + i), 'Bulk ' || (n + i), '[]'::jsonb, n + i - 1
       from deck d, (select count(*)::int as n from slide where deck_id = ?) existing, generate_series(1, ?) i
      where d.id = ?`,
    [deckId, count, deckId],
  );
}

/** Holds every export's snapshot at its read of the branding, until `commit()`. */
async function holdSnapshots(t: TestApp) {
  const tx = await openTransaction(t.databaseUrl);
  await tx.query('lock table deck_branding in access exclusive mode');
  return tx;
}

const FINAL = new Set(['completed', 'failed', 'canceled']);
async function ended(client: HttpClient, exportId: string, timeoutMs = 60_000) {
  return eventually(async () => {
    const answer = await client.get(`/api/exports/${exportId}`);
    return FINAL.has(answer.body.status) ? answer.body : null;
  }, timeoutMs);
}

/** Whether this instance logged that it claimed the export. */
function claimed(t: TestApp, exportId: string): boolean {
  return t
    .logs()
    .split('\n')
    .some((line) => line.includes(exportId) && line.includes('"msg":"export claimed"'));
}

/** Whether this instance logged that it is done with the export's claim (ended it, or stopped it). */
function doneWith(t: TestApp, exportId: string, attempt: number): boolean {
  return t
    .logs()
    .split('\n')
    .some(
      (line) =>
        line.includes(exportId) &&
        line.includes(`"attempt":${attempt}`) &&
        (line.includes('"msg":"export ended"') || line.includes('no longer this instance')),
    );
}

describe('the routes', () => {
  it('queues an export: 202, its Location, the export as GET answers it; listed newest first', async () => {
    const owner = await q.signedInClient();
    const deckId = await deckOf(owner);
    const created = await owner.post(`/api/decks/${deckId}/exports`, { format: 'pptx' });
    expect(created.status, created.text).toBe(202);
    const id = created.body.id as string;
    expect(created.headers.get('location')).toBe(`/api/exports/${id}`);
    expect(created.body).toMatchObject({
      deckId,
      format: 'pptx',
      status: 'pending',
      progress: { done: 0, total: 0 },
      warnings: [],
      error: null,
      file: null,
      captionsFile: null,
    });
    const days = (Date.parse(created.body.expiresAt) - Date.parse(created.body.createdAt)) / 86_400_000;
    expect(days).toBeCloseTo(7, 2);
    const read = await owner.get(created.headers.get('location')!);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const mp4 = await owner.post(`/api/decks/${deckId}/exports`, {
      format: 'mp4',
      includeFaqs: false,
      captions: false,
    });
    expect(mp4.status).toBe(202);
    const [options] = await sql<{ include_faqs: boolean; captions: boolean }>(
      q,
      'select include_faqs, captions from export_job where id = ?',
      [mp4.body.id],
    );
    expect(options).toEqual({ include_faqs: false, captions: false });
    const list = await owner.get(`/api/decks/${deckId}/exports`);
    expect(list.body.exports.map((e: { id: string }) => e.id)).toEqual([mp4.body.id, id]);
    expect(list.body.pagination).toEqual({ total: 2, limit: 50, offset: 0, nextAfter: null });
  });

  it('refuses a bad format or option with a 400 that queues nothing', async () => {
    const owner = await q.signedInClient();
    const deckId = await deckOf(owner, 1);
    for (const body of [
      {},
      { format: 'docx' },
      { format: 'pdf', captions: 'yes' },
      { format: 'pdf', extra: 1 },
    ]) {
      const refused = await owner.post(`/api/decks/${deckId}/exports`, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    expect((await owner.get(`/api/decks/${deckId}/exports`)).body.exports).toEqual([]);
  });

  it('takes a deck of 200 slides; one of 201 is a 400 and queues nothing', async () => {
    const owner = await q.signedInClient();
    const deckId = await deckOf(owner, 0);
    await addSlides(q, deckId, 200);
    const at = await owner.post(`/api/decks/${deckId}/exports`, { format: 'pdf' });
    expect(at.status, at.text).toBe(202);
    await addSlides(q, deckId, 1);
    const past = await owner.post(`/api/decks/${deckId}/exports`, { format: 'pdf' });
    expect(past.status).toBe(400);
    expect(past.body.detail).toContain('201 slides');
    expect(past.body.detail).toContain('at most 200');
    const list = await owner.get(`/api/decks/${deckId}/exports`);
    expect(list.body.exports.map((e: { id: string }) => e.id)).toEqual([at.body.id]);
  });

  it('counts each export asked for against the organization’s heavy limit: at it 202, past it 429 and nothing queued', async () => {
    const limited = await startTestApp({ EXPORTS_ENABLED: 'false', HEAVY_LIMIT_PER_MINUTE: '2' });
    try {
      const owner = await limited.signedInClient();
      const deckId = (await owner.post('/api/decks', { name: 'Limited' })).body.id;
      for (let i = 0; i < 2; i++) {
        expect((await owner.post(`/api/decks/${deckId}/exports`, { format: 'pdf' })).status).toBe(202);
      }
      const past = await owner.post(`/api/decks/${deckId}/exports`, { format: 'pdf' });
      expect(past.status).toBe(429);
      expect(past.headers.get('retry-after')).not.toBeNull();
      expect((await owner.get(`/api/decks/${deckId}/exports`)).body.pagination.total).toBe(2);
    } finally {
      await limited.close();
    }
  });

  it('replays a POST with the same Idempotency-Key: the same export, its Location, nothing queued twice', async () => {
    const owner = await q.signedInClient();
    const deckId = await deckOf(owner, 1);
    const headers = { 'Idempotency-Key': 'export-once' };
    const first = await owner.request('POST', `/api/decks/${deckId}/exports`, {
      json: { format: 'pdf' },
      headers,
    });
    expect(first.status).toBe(202);
    const again = await owner.request('POST', `/api/decks/${deckId}/exports`, {
      json: { format: 'pdf' },
      headers,
    });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.body).toEqual(first.body);
    const other = await owner.request('POST', `/api/decks/${deckId}/exports`, {
      json: { format: 'pptx' },
      headers,
    });
    expect(other.status).toBe(422);
    expect((await owner.get(`/api/decks/${deckId}/exports`)).body.pagination.total).toBe(1);
  });

  it('pages a deck’s exports newest first, by offset or after the last one', async () => {
    const owner = await q.signedInClient();
    const deckId = await deckOf(owner, 1);
    const ids: string[] = [];
    for (const format of ['pdf', 'pptx', 'mp4', 'pdf', 'pptx']) {
      ids.unshift((await owner.post(`/api/decks/${deckId}/exports`, { format })).body.id);
    }
    const first = await owner.get(`/api/decks/${deckId}/exports?limit=2`);
    expect(first.body.exports.map((e: { id: string }) => e.id)).toEqual(ids.slice(0, 2));
    expect(first.body.pagination).toEqual({ total: 5, limit: 2, offset: 0, nextAfter: ids[1] });
    const second = await owner.get(
      `/api/decks/${deckId}/exports?limit=2&after=${first.body.pagination.nextAfter}`,
    );
    expect(second.body.exports.map((e: { id: string }) => e.id)).toEqual(ids.slice(2, 4));
    const last = await owner.get(
      `/api/decks/${deckId}/exports?limit=2&after=${second.body.pagination.nextAfter}`,
    );
    expect(last.body.exports.map((e: { id: string }) => e.id)).toEqual(ids.slice(4));
    expect(last.body.pagination.nextAfter).toBeNull();
    const byOffset = await owner.get(`/api/decks/${deckId}/exports?limit=2&offset=4`);
    expect(byOffset.body.exports.map((e: { id: string }) => e.id)).toEqual(ids.slice(4));

    const both = await owner.get(`/api/decks/${deckId}/exports?offset=1&after=${ids[0]}`);
    expect(both.status).toBe(400);
    expect(both.body.issues).toEqual([expect.objectContaining({ path: ['offset'] })]);
    const otherDeck = await deckOf(owner, 0);
    const foreignAfter = await owner.get(`/api/decks/${otherDeck}/exports?after=${ids[0]}`);
    expect(foreignAfter.status).toBe(400);
    expect(foreignAfter.body.issues).toEqual([expect.objectContaining({ path: ['after'] })]);
  });

  it('answers another organization’s export 404 on every route and the subscription, and changes nothing', async () => {
    const owner = await q.signedInClient();
    const stranger = await q.signedInClient();
    const deckId = await deckOf(owner, 1);
    const created = (await owner.post(`/api/decks/${deckId}/exports`, { format: 'pdf' })).body;
    const notFound = [
      await stranger.get(`/api/exports/${created.id}`),
      await stranger.request('DELETE', `/api/exports/${created.id}`),
      await stranger.get(`/api/decks/${deckId}/exports`),
      await stranger.post(`/api/decks/${deckId}/exports`, { format: 'pdf' }),
    ];
    expect(notFound.map((answer) => answer.status)).toEqual([404, 404, 404, 404]);
    // The same answer as an export that does not exist.
    const missing = await stranger.get('/api/exports/019ac0f2-0000-7000-8000-000000000000');
    expect(notFound[0]!.body.detail.replace(created.id, 'X')).toBe(
      missing.body.detail.replace('019ac0f2-0000-7000-8000-000000000000', 'X'),
    );

    const strangerKey = (await stranger.post('/api/api-keys', { name: 'S', access: 'read' })).body.secret;
    const client = createDeckClient({ baseUrl: q.url, apiKey: strangerKey, EventSource });
    const error = await new Promise<unknown>((resolve) => {
      const subscription = client.exports.onProgress.subscribe(
        { exportId: created.id },
        { onError: (e) => resolve(e), onData: () => resolve(new Error('data for a stranger')) },
      );
      setTimeout(() => subscription.unsubscribe(), 10_000).unref();
    });
    expect((error as TRPCClientError<never>).data).toMatchObject({ code: 'NOT_FOUND' });

    expect((await owner.get(`/api/exports/${created.id}`)).body).toEqual(created);
    expect((await owner.get(`/api/decks/${deckId}/exports`)).body.pagination.total).toBe(1);
  });

  it('lets a read key list and read exports, not start or delete them; a write key may', async () => {
    const owner = await q.signedInClient();
    const deckId = await deckOf(owner, 1);
    const created = (await owner.post(`/api/decks/${deckId}/exports`, { format: 'pdf' })).body;
    const read = keyClient(
      q.url,
      (await owner.post('/api/api-keys', { name: 'R', access: 'read' })).body.secret,
    );
    const write = keyClient(
      q.url,
      (await owner.post('/api/api-keys', { name: 'W', access: 'write' })).body.secret,
    );
    expect((await read.get(`/api/exports/${created.id}`)).status).toBe(200);
    expect((await read.get(`/api/decks/${deckId}/exports`)).body.exports).toHaveLength(1);
    expect((await read.post(`/api/decks/${deckId}/exports`, { format: 'pdf' })).status).toBe(403);
    expect((await read.request('DELETE', `/api/exports/${created.id}`)).status).toBe(403);
    expect((await owner.get(`/api/exports/${created.id}`)).body.status).toBe('pending');

    const byKey = await write.post(`/api/decks/${deckId}/exports`, { format: 'pptx' });
    expect(byKey.status).toBe(202);
    const canceled = await write.request('DELETE', `/api/exports/${byKey.body.id}`);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ id: byKey.body.id, status: 'canceled', file: null });
  });

  it('cancels a pending export by DELETE; a second DELETE answers the same', async () => {
    const owner = await q.signedInClient();
    const deckId = await deckOf(owner, 1);
    const created = (await owner.post(`/api/decks/${deckId}/exports`, { format: 'mp4' })).body;
    const deleted = await owner.request('DELETE', `/api/exports/${created.id}`);
    expect(deleted.body).toMatchObject({ status: 'canceled', file: null, captionsFile: null });
    const again = await owner.request('DELETE', `/api/exports/${created.id}`);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('canceled');
    expect((await owner.get(`/api/exports/${created.id}`)).body.status).toBe('canceled');
  });

  it('counts exports.onProgress against the stream caps, as generation.onProgress', async () => {
    const owner = await q.signedInClient();
    const deckId = await deckOf(owner, 1);
    const created = (await owner.post(`/api/decks/${deckId}/exports`, { format: 'pdf' })).body;
    const key = (await owner.post('/api/api-keys', { name: 'F', access: 'read' })).body.secret;
    const client = createDeckClient({ baseUrl: q.url, apiKey: key, EventSource });
    const open: { unsubscribe(): void }[] = [];
    const first = (outcome: (value: { data?: unknown; error?: unknown }) => void) =>
      client.exports.onProgress.subscribe(
        { exportId: created.id },
        { onData: (data) => outcome({ data }), onError: (error) => outcome({ error }) },
      );
    // STREAMS_PER_CALLER is 2 on this instance: two are held, the third is refused.
    for (let i = 0; i < 2; i++) {
      const { data } = await new Promise<{ data?: unknown }>((resolve) => open.push(first(resolve)));
      expect(data).toMatchObject({ id: created.id, status: 'pending' });
    }
    const third = await new Promise<{ error?: unknown }>((resolve) => open.push(first(resolve)));
    expect((third.error as TRPCClientError<never>).data).toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    for (const subscription of open) subscription.unsubscribe();
  });
});

describe('the work', () => {
  it('cancels a running export by DELETE: status canceled, no file, no export.completed or export.failed', async () => {
    const owner = await w.signedInClient();
    const deckId = await deckOf(owner);
    const hold = await holdSnapshots(w);
    try {
      const created = (await owner.post(`/api/decks/${deckId}/exports`, { format: 'pptx' })).body;
      await waitForTableLockWaiter(w.databaseUrl, 'deck_branding');
      expect((await owner.get(`/api/exports/${created.id}`)).body.status).toBe('processing');
      const deleted = await owner.request('DELETE', `/api/exports/${created.id}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toMatchObject({ status: 'canceled', file: null });
      await hold.commit();
      await eventually(() => doneWith(w, created.id, 1));
      expect((await owner.get(`/api/exports/${created.id}`)).body).toMatchObject({
        status: 'canceled',
        file: null,
      });
      expect(await w.eventTypes(created.id)).toEqual([]);
      expect((await rowOf(w, created.id)).file_key).toBeNull();
      // Nothing of it is left in the work directory, nor stored.
      const workDir = w.app.config.exports.workDir;
      expect((await readdir(workDir)).filter((name) => name.startsWith(created.id))).toEqual([]);
      const exportsDir = path.join(w.app.config.dataDir, 'objects', 'org', owner.organizationId, 'exports');
      expect(
        (await readdir(exportsDir).catch(() => [])).filter((name) => name.startsWith(created.id)),
      ).toEqual([]);
    } finally {
      await hold.rollback();
    }
  }, 60_000);

  it('runs at most EXPORTS_PER_ORGANIZATION of one organization at once: its third waits, another’s goes ahead', async () => {
    const owner = await w.signedInClient();
    const other = await w.signedInClient();
    const deckId = await deckOf(owner);
    const otherDeck = await deckOf(other, 1);
    const hold = await holdSnapshots(w);
    const ids: string[] = [];
    try {
      // At the bound: two processing.
      for (let i = 0; i < 2; i++)
        ids.push((await owner.post(`/api/decks/${deckId}/exports`, { format: 'pdf' })).body.id);
      await eventually(async () => {
        for (const id of ids) if ((await rowOf(w, id)).status !== 'processing') return false;
        return true;
      });
      // Past it: the third waits. The other organization's, asked after it, is taken: a claim saw
      // the third and passed it over.
      ids.push((await owner.post(`/api/decks/${deckId}/exports`, { format: 'pdf' })).body.id);
      const others = (await other.post(`/api/decks/${otherDeck}/exports`, { format: 'pdf' })).body.id;
      await eventually(async () => (await rowOf(w, others)).status === 'processing');
      expect((await owner.get(`/api/exports/${ids[2]}`)).body.status).toBe('pending');
    } finally {
      await hold.commit();
    }
    // Once the first two have ended, the third is taken.
    for (const id of ids) expect(FINAL.has((await ended(owner, id)).status)).toBe(true);
    expect((await rowOf(w, ids[2]!)).attempt).toBe(1);
  }, 90_000);

  it('runs at most EXPORT_CONCURRENCY on one instance; another instance takes the one that waits', async () => {
    const env = { ...WORKER_ENV, EXPORT_CONCURRENCY: '2', EXPORTS_PER_ORGANIZATION: '10' };
    const first = await startTestApp(env);
    let second: TestApp | undefined;
    try {
      const owner = await first.signedInClient();
      const deckId = await deckOf(owner, 1);
      const hold = await holdSnapshots(first);
      const ids: string[] = [];
      try {
        for (let i = 0; i < 3; i++)
          ids.push((await owner.post(`/api/decks/${deckId}/exports`, { format: 'pptx' })).body.id);
        const statuses = async () => Promise.all(ids.map(async (id) => (await rowOf(first, id)).status));
        await eventually(async () => (await statuses()).filter((s) => s === 'processing').length === 2);
        expect((await statuses()).filter((s) => s === 'pending')).toHaveLength(1);
        const waiting = ids[(await statuses()).indexOf('pending')]!;
        second = await startTestApp({ ...env, EXPORT_CONCURRENCY: '1' }, { databaseUrl: first.databaseUrl });
        await eventually(async () => (await rowOf(first, waiting)).status === 'processing');
        // Logged once its claim has committed.
        await eventually(() => claimed(second!, waiting));
        expect(claimed(first, waiting)).toBe(false);
      } finally {
        await hold.commit();
      }
      for (const id of ids) expect(FINAL.has((await ended(owner, id)).status)).toBe(true);
    } finally {
      await second?.close();
      await first.close();
    }
  }, 90_000);

  it('fails an export whose deck grew past 200 slides before its work started, with export.failed on the log and the stream', async () => {
    const owner = await w.signedInClient();
    const deckId = await deckOf(owner, 1);
    const stream = new StreamReader(w.url, '?eventType=export.*', { cookie: owner.cookieHeader });
    await stream.opened();
    const hold = await holdSnapshots(w);
    let grown: string;
    try {
      // Two held at the organization's bound: the third waits while the deck grows.
      for (let i = 0; i < 2; i++) await owner.post(`/api/decks/${deckId}/exports`, { format: 'pdf' });
      await eventually(async () => {
        const [row] = await sql<{ n: number }>(
          w,
          `select count(*)::int as n from export_job where deck_id = ? and status = 'processing'`,
          [deckId],
        );
        return row!.n === 2;
      });
      grown = (await owner.post(`/api/decks/${deckId}/exports`, { format: 'pdf' })).body.id;
      await addSlides(w, deckId, 200);
    } finally {
      await hold.commit();
    }
    const failed = await ended(owner, grown);
    expect(failed).toMatchObject({
      status: 'failed',
      error: 'The deck has more than 200 slides; an export takes at most 200',
      file: null,
    });
    expect(await w.eventTypes(grown)).toEqual(['export.failed']);
    const log = await owner.get(`/api/notifications/events?eventType=export.failed&aggregateId=${grown}`);
    const { url: _none, ...payload } = failed;
    expect(log.body.events).toHaveLength(1);
    expect(log.body.events[0].payload).toEqual({ ...payload, actor: { type: 'system' } });
    await eventually(() => stream.messages.some((m) => m.data.aggregateId === grown));
    expect(stream.messages.find((m) => m.data.aggregateId === grown)).toMatchObject({
      type: 'export.failed',
    });
    stream.close();
  }, 90_000);

  it('fails an export whose instances died three times, and does not start it a fourth', async () => {
    const owner = await w.signedInClient();
    const deckId = await deckOf(owner, 1);
    // As three instances that claimed it and died would leave it: processing, its lease lapsed.
    const [row] = await sql<{ id: string }>(
      w,
      `insert into export_job (id, organization_id, deck_id, format, status, warnings, attempt, locked_until, expires_at)
       values (gen_random_uuid(), ?, ?, 'mp4', 'processing', '[]', 3, now() - interval '1 second', now() + interval '7 days')
       returning id`,
      [owner.organizationId, deckId],
    );
    const failed = await ended(owner, row!.id);
    expect(failed).toMatchObject({
      status: 'failed',
      error: 'The export was started 3 times and never finished',
    });
    expect(await w.eventTypes(row!.id)).toEqual(['export.failed']);
  });

  it('leaves out an object that is missing, too large or not the organization’s, and names each in warnings', async () => {
    const owner = await w.signedInClient();
    const deckId = await deckOf(owner, 3);
    const slides = (await owner.get(`/api/decks/${deckId}/slides`)).body.slides as {
      id: string;
      slideId: string;
    }[];
    const limit = w.app.config.uploads.imageMaxBytes;
    const large = `org/${owner.organizationId}/images/large/hero.png`;
    await w.app.services.storage.put(large, Buffer.alloc(limit + 1), 'image/png');
    const assign = (slideId: string, column: string, key: string) =>
      sql(w, `update slide set ${column} = ? where id = ?`, [key, slideId]);
    await assign(slides[0]!.id, 'hero_img', `org/${owner.organizationId}/images/gone/hero.png`);
    await assign(slides[1]!.id, 'hero_img', large);
    await assign(
      slides[2]!.id,
      'audio_url',
      'org/00000000-0000-7000-8000-000000000000/audio/x/narration.mp3',
    );
    const created = (await owner.post(`/api/decks/${deckId}/exports`, { format: 'pdf' })).body;
    const done = await ended(owner, created.id);
    expect(done.warnings).toEqual(
      expect.arrayContaining([
        `Slide ${slides[0]!.slideId}’s image: left out (its object is missing)`,
        `Slide ${slides[1]!.slideId}’s image: left out (larger than ${limit / 1024 / 1024} MB)`,
        `Slide ${slides[2]!.slideId}’s narration: left out (it does not name an object of this organization)`,
      ]),
    );
  }, 60_000);

  it('follows an export with exports.onProgress: at once, after each change, complete at its end', async () => {
    const owner = await w.signedInClient();
    const deckId = await deckOf(owner);
    const key = (await owner.post('/api/api-keys', { name: 'Follower', access: 'read' })).body.secret;
    const client = createDeckClient({ baseUrl: w.url, apiKey: key, EventSource });
    const hold = await holdSnapshots(w);
    const values: { status: string; progress: { done: number; total: number } }[] = [];
    let done = false;
    let failure: unknown = null;
    try {
      const created = (await owner.post(`/api/decks/${deckId}/exports`, { format: 'pdf' })).body;
      await waitForTableLockWaiter(w.databaseUrl, 'deck_branding');
      client.exports.onProgress.subscribe(
        { exportId: created.id },
        {
          onData: (value) => values.push(value),
          onError: (error) => {
            failure = error;
          },
          onComplete: () => {
            done = true;
          },
        },
      );
      await eventually(() => values.length > 0);
      expect(values[0]).toMatchObject({ id: created.id, status: 'processing' });
    } finally {
      await hold.commit();
    }
    await eventually(() => done, 60_000);
    expect(failure).toBeNull();
    expect(FINAL.has(values.at(-1)!.status)).toBe(true);
    // Each change once: never the same export twice in a row, progress never going back.
    for (let i = 1; i < values.length; i++) {
      expect({ ...values[i], updatedAt: null }).not.toEqual({ ...values[i - 1], updatedAt: null });
      expect(values[i]!.progress.done).toBeGreaterThanOrEqual(values[i - 1]!.progress.done);
    }
  }, 90_000);
});

describe('the file', () => {
  /** A finished export as the worker leaves it (its file in the object store): staged, to test what follows. */
  async function finishedExport(
    t: TestApp,
    owner: HttpClient & { organizationId: string },
    expiresIn: string,
  ) {
    const deckId = await deckOf(owner, 1);
    const bytes = Buffer.from('%PDF-1.7 a finished export');
    const id = (
      await sql<{ id: string }>(
        t,
        `insert into export_job (id, organization_id, deck_id, format, status, warnings, attempt, expires_at)
         values (gen_random_uuid(), ?, ?, 'pdf', 'failed', '[]', 1, now() + ?::interval) returning id`,
        [owner.organizationId, deckId, expiresIn],
      )
    )[0]!.id;
    const key = `org/${owner.organizationId}/exports/${id}-1/Q4-pitch.pdf`;
    await t.app.services.storage.put(key, bytes, 'application/pdf');
    await sql(
      t,
      `update export_job set status = 'completed', completed_at = now(), progress_done = 5, progress_total = 5,
              file_key = ?, file_size = ?, file_sha256 = ?, file_content_type = 'application/pdf', file_name = 'Q4-pitch.pdf'
        where id = ?`,
      [key, bytes.length, createHash('sha256').update(bytes).digest('hex'), id],
    );
    return { id, key, bytes, deckId };
  }

  it('answers a finished export’s file with a signed address that downloads it; DELETE deletes the file', async () => {
    const owner = await w.signedInClient();
    const { id, key, bytes } = await finishedExport(w, owner, '7 days');
    const answer = (await owner.get(`/api/exports/${id}`)).body;
    expect(answer.file).toEqual({
      url: expect.any(String),
      expiresIn: w.app.config.storage.downloadUrlExpiresSeconds,
      sizeBytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      contentType: 'application/pdf',
      filename: 'Q4-pitch.pdf',
    });
    const download = await fetch(answer.file.url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);

    const deleted = await owner.request('DELETE', `/api/exports/${id}`);
    expect(deleted.body).toMatchObject({ status: 'completed', file: null });
    expect(await w.app.services.storage.head(key)).toBeNull();
    expect((await fetch(answer.file.url)).status).toBe(404);
  });

  it('deletes a file past its expiresAt (the export answers file: null), keeps one that is not, and removes a deleted deck’s', async () => {
    const owner = await w.signedInClient();
    const expired = await finishedExport(w, owner, '-1 second');
    const kept = await finishedExport(w, owner, '7 days');
    const orphan = await finishedExport(w, owner, '7 days');
    expect((await owner.request('DELETE', `/api/decks/${orphan.deckId}`)).status).toBe(200);
    await eventually(async () => (await owner.get(`/api/exports/${expired.id}`)).body.file === null);
    expect(await w.app.services.storage.head(expired.key)).toBeNull();
    expect((await owner.get(`/api/exports/${expired.id}`)).body.status).toBe('completed');
    await eventually(
      async () => (await sql(w, 'select 1 from export_job where id = ?', [orphan.id])).length === 0,
    );
    expect(await w.app.services.storage.head(orphan.key)).toBeNull();
    expect((await owner.get(`/api/exports/${kept.id}`)).body.file).not.toBeNull();
    expect(await w.app.services.storage.head(kept.key)).not.toBeNull();
  });
});
