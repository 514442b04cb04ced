import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AttemptOutcome,
  claimDueDeliveries,
  finishDeliveries,
  finishDelivery,
} from '../domain/notifications/delivery-queue.ts';
import { dispatchEvents } from '../domain/notifications/dispatch-events.ts';
import type { HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * Two instances at once (two transactions from the test, the worker off): the order of an
 * aggregate's deliveries and the waking of waiting ones hold when their writes overlap.
 */
let t: TestApp;
let user: HttpClient & { organizationId: string };
beforeAll(async () => {
  t = await startTestApp({ NOTIFICATIONS_ENABLED: 'false' });
  user = await t.signedInClient();
});
afterAll(() => t?.close());

const em = () => t.app.database.orm.em.fork();
const sql = <T>(text: string, params: unknown[] = []) => em().getConnection().execute<T[]>(text, params);
const policy = () => t.app.services.config.notifications;
const ok: AttemptOutcome = { delivered: true, statusCode: 200, error: null, durationMs: 1 };
const gone: AttemptOutcome = { delivered: false, gone: true, statusCode: 410, error: 'gone', durationMs: 1 };
const waitingLocks = async () =>
  (await sql<{ n: number }>('select count(*)::int as n from pg_locks where not granted'))[0]!.n;

async function subscribe(name: string): Promise<string> {
  const response = await user.post('/api/notifications/subscriptions', {
    name,
    eventType: 'deck.*',
    channel: 'console',
    channelConfig: {},
  });
  return response.body.id;
}
const claim = async (s: string) =>
  (await claimDueDeliveries(em(), 1000, 60)).filter((j) => j.subscription.id === s);
const dispatchAll = async () => {
  while ((await dispatchEvents(em())) > 0) {}
};

describe('deliveries of one aggregate, two instances at once', () => {
  it('dispatchers run one at a time: a later event is never made due while an earlier one is being dispatched', async () => {
    await dispatchAll();
    const s = await subscribe('Order');
    await dispatchAll();
    const deckId = (await user.post('/api/decks', { name: 'v1' })).body.id;
    await user.patch(`/api/decks/${deckId}`, { name: 'v2' });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let took!: () => void;
    const taken = new Promise<void>((resolve) => {
      took = resolve;
    });
    // Instance 1 has taken deck.created and not committed yet.
    const first = em().transactional(async (tx) => {
      expect(await dispatchEvents(tx, 1)).toBe(1);
      took();
      await gate;
    });
    await taken;
    // Instance 2 does not take deck.updated meanwhile.
    expect(await dispatchEvents(em(), 1)).toBe(0);
    expect(await claim(s)).toEqual([]);
    release();
    await first;
    await dispatchAll();
    expect((await claim(s)).map((job) => job.event.eventType)).toEqual(['deck.created']);
  });

  it('two deliveries of a group finishing in overlapping transactions: the one behind them is woken', async () => {
    const s = await subscribe('Overlap');
    const deckId = (await user.post('/api/decks', { name: 'v1' })).body.id;
    await user.patch(`/api/decks/${deckId}`, { name: 'v2' });
    await user.patch(`/api/decks/${deckId}`, { name: 'v3' });
    await dispatchAll();
    const [d1] = await claim(s);
    await finishDeliveries(em(), [[d1!, ok]], policy());
    const [d2] = await claim(s);
    // D1 retried by hand while D2 is being sent: two of the group in flight.
    expect((await user.post(`/api/notifications/deliveries/${d1!.deliveryId}/retry`)).status).toBe(202);
    const [d1again] = await claim(s);
    expect(d1again!.deliveryId).toBe(d1!.deliveryId);
    // Waiting longer than the periodic sweep looks back.
    await sql(
      `update notification_delivery set created_at = now() - interval '10 minutes'
        where subscription_id = ? and next_attempt_at = 'infinity'`,
      [s],
    );

    // Instance X records D1's 410 and is held (its subscription update waits on a lock held
    // here); instance Y meanwhile records D2's success.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = em().transactional(async (tx) => {
      await tx.execute('select 1 from notification_subscription where id = ? for update', [s]);
      locked();
      await gate;
    });
    await isLocked;
    const before = await waitingLocks();
    const x = finishDelivery(em(), d1again!, gone, policy());
    await eventually(async () => (await waitingLocks()) > before);
    const y = finishDeliveries(em(), [[d2!, ok]], policy());
    await eventually(async () => (await waitingLocks()) > before + 1);
    release();
    await Promise.all([holder, x, y]);

    const [third] = await claim(s);
    expect(third?.event.eventType).toBe('deck.updated');
    expect(third?.deliveryId).not.toBe(d2!.deliveryId);
  });
});
