import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_GROUPS_OF, wakeWaitingDeliveries } from '../domain/notifications/delivery-order.ts';
import {
  claimDueDeliveries,
  finishDeliveries,
  finishDelivery,
  renewDeliveryLeases,
} from '../domain/notifications/delivery-queue.ts';
import { dispatchEvents } from '../domain/notifications/dispatch-events.ts';
import type { AttemptOutcome, DeliveryJob } from '../domain/ports/notifier.ts';
import { openTransaction, waitForLockWaiters } from './helpers/blocking-transaction.ts';
import type { HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * The delivery queue's bookkeeping, driven step by step (the instance's own worker is off):
 * outcomes are written in batches that hold other organizations' outcomes, only by the claim
 * that holds the delivery, and deliveries of one aggregate wait in order without being scanned,
 * also when two instances (two transactions here) write at once.
 */
const REPLAY_MAX = 3;
let t: TestApp;
let user: HttpClient & { organizationId: string };
beforeAll(async () => {
  t = await startTestApp({ NOTIFICATIONS_ENABLED: 'false', WEBHOOK_REPLAY_MAX_EVENTS: String(REPLAY_MAX) });
  user = await t.signedInClient();
});
afterAll(() => t?.close());

const em = () => t.app.database.orm.em.fork();
const sql = <T>(text: string, params: unknown[] = []) => em().getConnection().execute<T[]>(text, params);
const policy = () => t.app.config.notifications;
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

const dispatchAll = async () => {
  while ((await dispatchEvents(em())) > 0) {}
};
/** Claims every due delivery, and answers those of `subscription`. */
const claim = async (subscription: string) =>
  (await claimDueDeliveries(em(), 1000, 60)).filter((job) => job.subscription.id === subscription);

/** Turns every new event into deliveries, then claims every due one (of this test's subscriptions). */
async function dispatchAndClaim(subscriptions: string[]): Promise<DeliveryJob[]> {
  await dispatchAll();
  const jobs = await claimDueDeliveries(em(), 1000, 60);
  return jobs.filter((job) => subscriptions.includes(job.subscription.id));
}

async function delivery(id: string) {
  const [row] = await sql<{ status: string; attempts: number; waiting: boolean; leased: boolean }>(
    `select status, attempts, next_attempt_at = 'infinity' as waiting, locked_until > now() as leased
       from notification_delivery where id = ?`,
    [id],
  );
  return row;
}

const attemptsOf = async (deliveryId: string) =>
  (
    await sql<{ n: number }>('select count(*)::int as n from delivery_attempt where delivery_id = ?', [
      deliveryId,
    ])
  )[0]!.n;

describe('writing delivery outcomes', () => {
  it('a delivery deleted while in flight (its subscription removed) is skipped; the rest of the batch is written', async () => {
    const [a, b] = [await subscribe('A'), await subscribe('B')];
    await user.post('/api/decks', { name: 'Announced' });
    const jobs = await dispatchAndClaim([a, b]);
    const jobA = jobs.find((job) => job.subscription.id === a)!;
    const jobB = jobs.find((job) => job.subscription.id === b)!;
    expect((await user.request('DELETE', `/api/notifications/subscriptions/${a}`)).status).toBe(200);

    await finishDeliveries(
      em(),
      [
        [jobA, ok],
        [jobB, ok],
      ],
      policy(),
    );

    expect(await delivery(jobB.deliveryId)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(await attemptsOf(jobB.deliveryId)).toBe(1);
    expect(await delivery(jobA.deliveryId)).toBeUndefined();
  });

  it('a batch that fails on one row is written one by one: only that outcome is lost, and said so', async () => {
    const b = await subscribe('B');
    await user.post('/api/decks', { name: 'Announced' });
    const [jobB] = await dispatchAndClaim([b]);
    const bad: DeliveryJob = { ...jobB!, deliveryId: 'not-a-uuid' };

    const error = await finishDeliveries(
      em(),
      [
        [bad, ok],
        [jobB!, ok],
      ],
      policy(),
    ).then(
      () => null,
      (thrown: unknown) => thrown,
    );

    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors).toHaveLength(1);
    expect(await delivery(jobB!.deliveryId)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('a lease renewal waits on no row: beside a batch that holds its deliveries, it renews the others and ends', async () => {
    // The instance renews the leases of everything it holds while a batch of outcomes is being
    // written; the batch locks its deliveries in id order, and a renewal that waited on one of them
    // (locking the same rows in another order) could deadlock with it: the batch was lost and sent again.
    const r = await subscribe('R');
    await user.post('/api/decks', { name: 'One' });
    await user.post('/api/decks', { name: 'Two' });
    const jobs = (await dispatchAndClaim([r])).sort((a, b) => a.deliveryId.localeCompare(b.deliveryId));
    expect(jobs).toHaveLength(2);
    const [free, held] = jobs as [DeliveryJob, DeliveryJob];
    const batch = await openTransaction(t.databaseUrl);
    try {
      await batch.query('select id from notification_delivery where id = $1 for update', [held.deliveryId]);
      const before = await sql<{ id: string; until: Date }>(
        'select id, locked_until as until from notification_delivery where id in (?, ?)',
        [free.deliveryId, held.deliveryId],
      );
      const renewal = renewDeliveryLeases(em(), jobs, 3600).then(() => 'renewed');
      const waited = waitForLockWaiters(t.databaseUrl, 1, 5_000).then(
        () => 'waited on a lock',
        () => 'never waited',
      );
      expect(await Promise.race([renewal, waited])).toBe('renewed');
      const after = await sql<{ id: string; until: Date }>(
        'select id, locked_until as until from notification_delivery where id in (?, ?)',
        [free.deliveryId, held.deliveryId],
      );
      const untilOf = (rows: { id: string; until: Date }[], id: string) =>
        new Date(rows.find((row) => row.id === id)!.until).getTime();
      expect(untilOf(after, free.deliveryId)).toBeGreaterThan(untilOf(before, free.deliveryId));
      // The row the batch holds is left to it: its outcome clears the lease anyway.
      expect(untilOf(after, held.deliveryId)).toBe(untilOf(before, held.deliveryId));
    } finally {
      await batch.rollback();
    }
  });

  it('a claim whose lease lapsed and was taken over neither renews nor writes; the new claim does', async () => {
    const b = await subscribe('B');
    await user.post('/api/decks', { name: 'Announced' });
    const [stale] = await dispatchAndClaim([b]);
    // Its instance stalled: the lease lapsed, and another claim took the delivery.
    await sql(`update notification_delivery set locked_until = now() - interval '1 second' where id = ?`, [
      stale!.deliveryId,
    ]);
    const [current] = await dispatchAndClaim([b]);
    expect(current!.deliveryId).toBe(stale!.deliveryId);
    expect(current!.claimToken).not.toBe(stale!.claimToken);
    const [{ until }] = (await sql<{ until: Date }>(
      'select locked_until as until from notification_delivery where id = ?',
      [current!.deliveryId],
    )) as [{ until: Date }];

    await renewDeliveryLeases(em(), [stale!], 3600);
    const failed: AttemptOutcome = { delivered: false, statusCode: 500, error: 'late', durationMs: 1 };
    await finishDeliveries(em(), [[stale!, failed]], policy());
    const [after] = await sql<{ until: Date }>(
      'select locked_until as until from notification_delivery where id = ?',
      [current!.deliveryId],
    );
    expect(after!.until).toEqual(until);
    expect(await attemptsOf(current!.deliveryId)).toBe(0);

    await finishDeliveries(em(), [[current!, ok]], policy());
    expect(await delivery(current!.deliveryId)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      leased: null,
    });
    expect(await attemptsOf(current!.deliveryId)).toBe(1);
  });
});

describe("a subscription deleted while its delivery's outcome is written", () => {
  const failed: AttemptOutcome = { delivered: false, statusCode: 500, error: 'HTTP 500', durationMs: 1 };
  const webhook = async () =>
    (
      await user.post('/api/notifications/subscriptions', {
        name: 'Hook',
        eventType: 'deck.*',
        channel: 'webhook',
        channelConfig: { url: 'http://8.8.8.8/hook' },
      })
    ).body.id as string;

  /**
   * A change of the subscription in progress lines the delete up first, then the worker's
   * `finish`: the delete takes the row and cascades to the delivery, so the worker must not hold
   * the delivery meanwhile. Answers the delete's status once both are through.
   */
  async function deleteWhileFinishing(hook: string, finish: () => Promise<void>): Promise<number> {
    const holder = await openTransaction(t.databaseUrl);
    await holder.query('select id from notification_subscription where id = $1 for update', [hook]);
    const deleting = user.delete(`/api/notifications/subscriptions/${hook}`);
    await waitForLockWaiters(t.databaseUrl, 1);
    const finishing = finish();
    await waitForLockWaiters(t.databaseUrl, 2);
    await holder.commit();
    await expect(finishing).resolves.toBeUndefined();
    return (await deleting).status;
  }

  it.each([
    ['a failure', failed],
    ['a 410', gone],
  ])(
    '%s: neither deadlocks, the delete answers 200 and the outcome goes with the delivery',
    async (_, outcome) => {
      const hook = await webhook();
      await user.post('/api/decks', { name: 'Announced' });
      const [job] = await dispatchAndClaim([hook]);

      expect(await deleteWhileFinishing(hook, () => finishDelivery(em(), job!, outcome, policy()))).toBe(200);
      expect(await delivery(job!.deliveryId)).toBeUndefined();
    },
  );

  it.each([
    ['a healthy webhook', () => webhook()],
    ['a console subscription', () => subscribe('Console')],
  ])('a success batch of %s takes the subscription before its deliveries', async (_, create) => {
    const subscription = await create();
    await user.post('/api/decks', { name: 'Announced' });
    const [job] = await dispatchAndClaim([subscription]);

    expect(
      await deleteWhileFinishing(subscription, () => finishDeliveries(em(), [[job!, ok]], policy())),
    ).toBe(200);
    expect(await delivery(job!.deliveryId)).toBeUndefined();
  });

  it('a success batch clears a running failure clock before it takes its deliveries', async () => {
    const hook = await webhook();
    await sql("update notification_subscription set failing_since = now() - interval '1 hour' where id = ?", [
      hook,
    ]);
    await user.post('/api/decks', { name: 'Announced' });
    const [job] = await dispatchAndClaim([hook]);

    expect(await deleteWhileFinishing(hook, () => finishDeliveries(em(), [[job!, ok]], policy()))).toBe(200);
  });
});

describe('deliveries of one aggregate', () => {
  it('wait behind the first (not due, not claimed) and become due one after another as each is done', async () => {
    const s = await subscribe('Ordered');
    const deckId = (await user.post('/api/decks', { name: 'v1' })).body.id;
    await user.patch(`/api/decks/${deckId}`, { name: 'v2' });
    await user.patch(`/api/decks/${deckId}`, { name: 'v3' });

    const [first, ...others] = await dispatchAndClaim([s]);
    expect(others).toEqual([]);
    expect(first!.event.eventType).toBe('deck.created');
    const rows = await sql<{ id: string; event_type: string }>(
      `select id, event_type from notification_delivery where subscription_id = ? order by event_occurred_at, event_id`,
      [s],
    );
    expect(await delivery(rows[1]!.id)).toMatchObject({ status: 'pending', waiting: true });
    expect(await delivery(rows[2]!.id)).toMatchObject({ status: 'pending', waiting: true });
    // The listing shows a waiting delivery with no due time.
    const listed = await user.get(`/api/notifications/subscriptions/${s}/deliveries`);
    const waitingOutput = listed.body.deliveries.find((d: { id: string }) => d.id === rows[2]!.id);
    expect(waitingOutput).toMatchObject({ status: 'pending', nextAttemptAt: null });

    await finishDeliveries(em(), [[first!, ok]], policy());
    const [second, ...none] = await dispatchAndClaim([s]);
    expect(none).toEqual([]);
    expect(second!.deliveryId).toBe(rows[1]!.id);
    expect(await delivery(rows[2]!.id)).toMatchObject({ waiting: true });
    await finishDeliveries(em(), [[second!, ok]], policy());
    const [third] = await dispatchAndClaim([s]);
    expect(third!.deliveryId).toBe(rows[2]!.id);
  });

  it('a waiting delivery whose wake was missed (its predecessor finished in a concurrent transaction) is woken by the sweep', async () => {
    const s = await subscribe('Missed');
    const deckId = (await user.post('/api/decks', { name: 'v1' })).body.id;
    await user.patch(`/api/decks/${deckId}`, { name: 'v2' });
    const [first] = await dispatchAndClaim([s]);
    // The predecessor ends without the wake (as when it could not see the new delivery yet).
    await sql(
      `update notification_delivery set status = 'succeeded', completed_at = now(), locked_until = null where id = ?`,
      [first!.deliveryId],
    );
    expect(await dispatchAndClaim([s])).toEqual([]);

    expect((await wakeWaitingDeliveries(em(), new Date(Date.now() - 60_000))).woken).toBeGreaterThanOrEqual(
      1,
    );
    const [next] = await dispatchAndClaim([s]);
    expect(next!.event.eventType).toBe('deck.updated');
  });
});

describe('the deliveries list', () => {
  it('leaves out deliveries of events the caller may not see in the log: users below admin, API keys below owner', async () => {
    const owner = await t.signedInClient('Hidden Deliveries Org', 'owner');
    const admin = await t.signedInClient('Hidden Deliveries Org', 'admin');
    const member = await t.signedInClient('Hidden Deliveries Org', 'member');
    const subscription = await owner.post('/api/notifications/subscriptions', {
      name: 'Everything',
      eventType: '*',
      channel: 'console',
      channelConfig: {},
    });
    await owner.post('/api/decks', { name: 'Seen by all' });
    await owner.post('/api/api-keys', { name: 'reader', access: 'read' });
    await owner.post('/api/users', {
      email: `u${Date.now()}@example.com`,
      name: 'U',
      role: 'member',
      password: 'a-long-password',
    });
    while ((await dispatchEvents(em())) > 0) {}
    const types = async (client: HttpClient) => {
      const { body } = await client.get(
        `/api/notifications/subscriptions/${subscription.body.id}/deliveries?limit=100`,
      );
      expect(body.pagination.total).toBe(body.deliveries.length);
      return new Set(body.deliveries.map((d: { eventType: string }) => d.eventType.split('.')[0]));
    };
    expect(await types(owner)).toEqual(new Set(['deck', 'api_key', 'user', 'notification_subscription']));
    expect(await types(admin)).toEqual(new Set(['deck', 'user', 'notification_subscription']));
    expect(await types(member)).toEqual(new Set(['deck', 'notification_subscription']));
  });
});

describe('replays', () => {
  it('are refused (409, nothing queued) while the subscription has WEBHOOK_REPLAY_MAX_EVENTS deliveries pending', async () => {
    const admin = await t.signedInClient();
    const s = (
      await admin.post('/api/notifications/subscriptions', {
        name: 'Backlog',
        eventType: 'deck.created',
        channel: 'console',
        channelConfig: {},
      })
    ).body.id as string;
    const since = new Date(Date.now() - 1000).toISOString();
    const pendingCount = async () =>
      (
        await sql<{ n: number }>(
          'select count(*)::int as n from notification_delivery where subscription_id = ? and completed_at is null',
          [s],
        )
      )[0]!.n;
    await admin.post('/api/decks', { name: 'one' });
    await admin.post('/api/decks', { name: 'two' });
    while ((await dispatchEvents(em())) > 0) {}
    expect(await pendingCount()).toBe(REPLAY_MAX - 1);
    const below = await admin.post(`/api/notifications/subscriptions/${s}/replay`, { since });
    expect(below.status, below.text).toBe(202);
    expect(await pendingCount()).toBe(2 * (REPLAY_MAX - 1));

    const refused = await admin.post(`/api/notifications/subscriptions/${s}/replay`, { since });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.detail).toContain('deliveries pending');
    expect(await pendingCount()).toBe(2 * (REPLAY_MAX - 1));
  });
});

describe('deliveries of one aggregate, two instances at once', () => {
  it('dispatchers run one at a time: a later event is never made due while an earlier one is being dispatched', async () => {
    await dispatchAll();
    const s = await subscribe('Order');
    await dispatchAll();
    const deckId = (await user.post('/api/decks', { name: 'v1' })).body.id;
    await user.patch(`/api/decks/${deckId}`, { name: 'v2' });
    const { promise: gate, resolve: release } = Promise.withResolvers<void>();
    const { promise: taken, resolve: took } = Promise.withResolvers<void>();
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

    // Instance X records D1's 410 and instance Y D2's success, both held after writing their
    // delivery (their wakes wait on the group's lock, held here): each transaction has written
    // its outcome while the other's is still uncommitted.
    const { promise: gate, resolve: release } = Promise.withResolvers<void>();
    const { promise: isLocked, resolve: locked } = Promise.withResolvers<void>();
    const holder = em().transactional(async (tx) => {
      await tx.execute(LOCK_GROUPS_OF, [`{${d1!.deliveryId}}`]);
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
