import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { statementsDuring } from './helpers/statements.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually, startWebhookReceiver } from './helpers/webhook-receiver.ts';
import { FAST_WEBHOOKS, subscribe } from './helpers/webhook-scenario.ts';

/**
 * Workers poll once a minute here: what they do within a test's time they were nudged to do by
 * the commit that created their work, and an idle instance sends (next to) no statements.
 */
const MINUTE_POLLS = { NOTIFICATIONS_POLL_INTERVAL_MS: '60000', GENERATION_POLL_INTERVAL_MS: '60000' };
let t: TestApp;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
/** While set, the receiver holds its answers (`answerHanging`). */
let holding = false;
beforeAll(async () => {
  t = await startTestApp({ ...FAST_WEBHOOKS, ...MINUTE_POLLS });
  receiver = await startWebhookReceiver(() => (holding ? 'hang' : { status: 204 }));
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

it('a committed event is delivered at once, not at the next poll; then the instance is quiet', async () => {
  const user = await t.signedInClient();
  const deck = (await user.post('/api/decks', { name: 'Nudged' })).body;
  const subscription = await subscribe(user, receiver.url);
  receiver.useSecret(subscription.secret);
  const slide = (await user.post(`/api/decks/${deck.id}/slides`, { title: 'One' })).body;
  await eventually(() => receiver.delivered().some((r) => r.body.data?.aggregateId === slide.id), 10_000);
  await eventually(
    async () =>
      (await user.get(`/api/notifications/subscriptions/${subscription.id}/deliveries`)).body.deliveries[0]
        ?.status === 'succeeded',
    10_000,
  );

  // A measured window, not a wait for something: the workers' own commits (claims, outcomes)
  // used to nudge them again, and an idle instance ran rounds back to back.
  const statements = await statementsDuring(t, () => sleep(1000));
  expect(statements.length).toBeLessThan(10);
});

it('an event written by plain SQL in a transaction of its own is delivered at once; a rolled-back one wakes nothing', async () => {
  const user = await t.signedInClient();
  const subscription = await subscribe(user, receiver.url);
  receiver.useSecret(subscription.secret);
  // No service code writes: the event table's trigger is what wakes the worker (decision 079).
  const listener = new pg.Client({ connectionString: t.databaseUrl });
  const writer = new pg.Client({ connectionString: t.databaseUrl });
  const notified: string[] = [];
  listener.on('notification', (message) => notified.push(message.payload ?? ''));
  await Promise.all([listener.connect(), writer.connect()]);
  try {
    await listener.query('listen event_log');
    const insertEvent = (aggregateId: string) =>
      writer.query(
        `insert into event (id, organization_id, event_type, aggregate_type, aggregate_id, payload)
         values ($1, $2, 'slide.updated', 'slide', $3, $4)`,
        [randomUUID(), user.organizationId, aggregateId, { id: aggregateId, actor: { type: 'system' } }],
      );
    const rolledBack = randomUUID();
    await writer.query('begin');
    await insertEvent(rolledBack);
    await writer.query('rollback');
    const committed = randomUUID();
    await writer.query('begin');
    await insertEvent(committed);
    const [{ tx }] = (await writer.query('select pg_current_xact_id()::text as tx')).rows;
    await writer.query('commit');

    await eventually(() => receiver.delivered().some((r) => r.body.data?.aggregateId === committed), 10_000);
    // One connection gets its notifications in commit order: the rolled-back insert's would be first.
    await eventually(() => notified.includes(tx));
    expect(notified).toEqual([tx]);
    expect(receiver.received.some((r) => r.body.data?.aggregateId === rolledBack)).toBe(false);
  } finally {
    await Promise.all([listener.end(), writer.end()]);
  }
});

it('a queued narration job starts at once, not at the next poll', async () => {
  const user = await t.signedInClient();
  const deck = (await user.post('/api/decks', { name: 'Narrated' })).body;
  await user.post(`/api/decks/${deck.id}/slides`, { narrationScript: 'Hello there.' });
  expect((await user.post(`/api/decks/${deck.id}/generate`, {})).status).toBe(202);
  await eventually(
    async () => (await user.get(`/api/decks/${deck.id}/generate/status`)).body.status === 'completed',
    10_000,
  );
});

it('the next delivery of a resource goes out once the one before it is written, not at the next poll', async () => {
  const user = await t.signedInClient();
  const deck = (await user.post('/api/decks', { name: 'Chained' })).body;
  const subscription = await subscribe(user, receiver.url);
  receiver.useSecret(subscription.secret);
  holding = true;
  let slide: { id: string };
  try {
    slide = (await user.post(`/api/decks/${deck.id}/slides`, { title: '0' })).body;
    await eventually(() => receiver.received.some((r) => r.body.data?.aggregateId === slide.id));
    // Queued behind the held one: each waits for the one before it to be written.
    for (const title of ['1', '2', '3']) await user.patch(`/api/slides/${slide.id}`, { title });
  } finally {
    // Even when the test fails here: the next tests share the receiver.
    holding = false;
    receiver.answerHanging(204);
  }
  const titles = () =>
    receiver
      .delivered()
      .filter((r) => r.body.data?.aggregateId === slide.id)
      .map((r) => r.body.data.payload.title);
  await eventually(() => titles().length === 4, 10_000);
  expect(titles()).toEqual(['0', '1', '2', '3']);
});

/** A subscribed organization with one slide whose creation has been delivered once. */
async function deliveredSlide() {
  const user = await t.signedInClient();
  const deck = (await user.post('/api/decks', { name: 'Delivered' })).body;
  const subscription = await subscribe(user, receiver.url);
  receiver.useSecret(subscription.secret);
  const slide = (await user.post(`/api/decks/${deck.id}/slides`, { title: 'Again' })).body;
  const deliveriesOfSlide = () => receiver.delivered().filter((r) => r.body.data?.aggregateId === slide.id);
  await eventually(() => deliveriesOfSlide().length === 1, 10_000);
  return { user, subscription, deliveriesOfSlide };
}

it('a retried delivery goes out at once, not at the next poll', async () => {
  const { user, subscription, deliveriesOfSlide } = await deliveredSlide();
  const delivery = await eventually(async () => {
    const [latest] = (await user.get(`/api/notifications/subscriptions/${subscription.id}/deliveries`)).body
      .deliveries;
    return latest?.status === 'succeeded' && latest;
  }, 10_000);
  const retried = await user.post(`/api/notifications/deliveries/${delivery.id}/retry`, {});
  expect(retried.status, retried.text).toBe(202);
  await eventually(() => deliveriesOfSlide().length === 2, 10_000);
});

it('a replay goes out at once, not at the next poll', async () => {
  const since = new Date(Date.now() - 60_000).toISOString();
  const { user, subscription, deliveriesOfSlide } = await deliveredSlide();
  const replayed = await user.post(`/api/notifications/subscriptions/${subscription.id}/replay`, { since });
  expect(replayed.status, replayed.text).toBe(202);
  expect(replayed.body.queued).toBeGreaterThan(0);
  await eventually(() => deliveriesOfSlide().length === 2, 10_000);
});
