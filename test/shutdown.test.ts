import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startElevenLabsStandIn } from './helpers/elevenlabs-stand-in.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually, startWebhookReceiver } from './helpers/webhook-receiver.ts';
import { subscribe } from './helpers/webhook-scenario.ts';

/**
 * Closing an instance while it holds claimed background work: close() returns within
 * SHUTDOWN_TIMEOUT_MS (plus a little for the pool), the work in hand is aborted and its lease
 * released, and a second instance on the same database takes it up at once (leases would
 * otherwise hold it for minutes) and finishes it.
 */
const KEY = 'test-elevenlabs-key';
const SHUTDOWN_TIMEOUT_MS = 1000;
/** What close() may take beyond the timeout: releasing leases, closing the pool. */
const CLOSE_MARGIN_MS = 1000;
const cleanup: (() => Promise<unknown>)[] = [];
let eleven: Awaited<ReturnType<typeof startElevenLabsStandIn>>;

beforeAll(async () => {
  eleven = await startElevenLabsStandIn(KEY);
  cleanup.push(() => eleven.close());
});

afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => {});
});

async function instance(env: Record<string, string>, databaseUrl?: string): Promise<TestApp> {
  const app = await startTestApp(
    {
      ELEVENLABS_API_KEY: KEY,
      ELEVENLABS_BASE_URL: eleven.url,
      ELEVENLABS_DEFAULT_VOICE_ID: 'v-rachel',
      GENERATION_POLL_INTERVAL_MS: '50',
      NOTIFICATIONS_POLL_INTERVAL_MS: '50',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      ...env,
    },
    { databaseUrl },
  );
  cleanup.push(() => app.close());
  return app;
}

async function timedClose(app: TestApp): Promise<number> {
  const started = performance.now();
  await app.close();
  return performance.now() - started;
}

async function queryOne<T>(databaseUrl: string, sql: string, params: unknown[]): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows[0] as T;
  } finally {
    await client.end();
  }
}

const ttsRequests = () => eleven.requests.filter((r) => r.url.startsWith('/v1/text-to-speech/')).length;

describe('closing an instance with background work in hand', () => {
  it('a narration job in progress: close() is bounded, the lease released, another instance finishes it', async () => {
    const first = await instance({});
    const client = await first.signedInClient();
    const deckId = (await client.post('/api/decks', { name: 'Long narration' })).body.id;
    const slides = 12;
    for (let i = 1; i <= slides; i++) {
      await client.post(`/api/decks/${deckId}/slides`, { title: `S${i}`, narrationScript: `Slide ${i}.` });
    }

    // Each slide's speech waits for the test: the first is let through, the second is in flight.
    eleven.state.tts = 'hold';
    const job = await client.post(`/api/decks/${deckId}/generate`);
    expect(job.status).toBe(202);
    await eventually(() => eleven.heldCount() === 1);
    eleven.releaseHeld();
    await eventually(
      async () => (await client.get(`/api/decks/${deckId}/generate/status`)).body.currentSlide === 1,
    );
    await eventually(() => eleven.heldCount() === 1);

    const closeMs = await timedClose(first);
    expect(closeMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS + CLOSE_MARGIN_MS);
    expect(first.logs()).toContain('released unfinished jobs');
    const row = await queryOne<{ status: string; current_slide: number; released: boolean }>(
      first.databaseUrl,
      'select status, current_slide, locked_until <= now() as released from generation_job where id = $1',
      [job.body.jobId],
    );
    expect(row).toEqual({ status: 'processing', current_slide: 1, released: true });

    eleven.state.tts = 'ok';
    eleven.releaseHeld();
    const before = ttsRequests();
    const second = await instance({}, first.databaseUrl);
    // The same session, through the second instance (sessions live in the database).
    const again = second.client();
    for (const [name, value] of client.cookies) again.cookies.set(name, value);
    const finished = await eventually(async () => {
      const status = await again.get(`/api/decks/${deckId}/generate/status`);
      return status.body.status === 'completed' ? status.body : null;
    }, 10_000);
    expect(finished).toMatchObject({ currentSlide: slides, totalSlides: slides });
    expect(finished).not.toHaveProperty('error');
    // It went on from the slide it had got to, not from the start.
    expect(ttsRequests() - before).toBe(slides - 1);
  }, 60_000);

  it('a webhook delivery in flight: close() is bounded, the delivery released unattempted, and sent by another instance', async () => {
    let hang = true;
    const receiver = await startWebhookReceiver(() => (hang ? 'hang' : { status: 204 }));
    cleanup.push(() => receiver.close());
    const first = await instance({ GENERATION_ENABLED: 'false', WEBHOOK_TIMEOUT_MS: '30000' });
    const client = await first.signedInClient();
    const subscription = await subscribe(client, receiver.url, { eventType: 'deck.*' });
    receiver.useSecret(subscription.secret);
    const deckId = (await client.post('/api/decks', { name: 'Announced' })).body.id;
    await eventually(() => receiver.received.length === 1);

    const closeMs = await timedClose(first);
    expect(closeMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS + CLOSE_MARGIN_MS);
    const row = await queryOne<{ status: string; attempts: number; locked_until: Date | null }>(
      first.databaseUrl,
      `select status, attempts, locked_until from notification_delivery d
        join event e on e.id = d.event_id where e.aggregate_id = $1`,
      [deckId],
    );
    expect(row).toEqual({ status: 'pending', attempts: 0, locked_until: null });

    hang = false;
    await instance({ GENERATION_ENABLED: 'false' }, first.databaseUrl);
    await eventually(() => receiver.delivered().length === 1, 10_000);
    expect(receiver.delivered()[0]).toMatchObject({ id: receiver.received[0]!.id, verified: true });
  }, 60_000);

  it('a send that outlasts its lease keeps it (renewed while held): a second instance never sends it again', async () => {
    const receiver = await startWebhookReceiver((_request, count) =>
      count === 1 ? 'hang' : { status: 204 },
    );
    cleanup.push(() => receiver.close());
    const env = {
      GENERATION_ENABLED: 'false',
      WEBHOOK_TIMEOUT_MS: '30000',
      NOTIFICATIONS_LEASE_SECONDS: '1',
    };
    const first = await instance(env);
    await instance(env, first.databaseUrl);
    const client = await first.signedInClient();
    const subscription = await subscribe(client, receiver.url, {
      name: 'Slow hook',
      eventType: 'deck.created',
    });
    receiver.useSecret(subscription.secret);
    const deckId = (await client.post('/api/decks', { name: 'Slow' })).body.id;
    await eventually(() => receiver.received.length === 1);

    const leaseOf = () =>
      queryOne<{ locked_until: Date; attempts: number; status: string }>(
        first.databaseUrl,
        `select d.locked_until, d.attempts, d.status from notification_delivery d
          join event e on e.id = d.event_id where e.aggregate_id = $1`,
        [deckId],
      );
    const claimed = (await leaseOf()).locked_until.getTime();
    // Three lease lengths go by while the receiver holds the request; both instances poll every 50 ms.
    await eventually(async () => (await leaseOf()).locked_until.getTime() >= claimed + 3000, 10_000);
    expect(receiver.received).toHaveLength(1);

    receiver.answerHanging(204);
    await eventually(async () => (await leaseOf()).status === 'succeeded');
    expect(await leaseOf()).toEqual({ locked_until: null, attempts: 1, status: 'succeeded' });
    expect(receiver.received).toHaveLength(1);
  }, 60_000);
});
