import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * The worker turns the outbox into deliveries a bounded share per round and claims in between:
 * with a backlog of events (or a steady stream of them) deliveries start at once, rather than
 * once every event has been dispatched.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ NOTIFICATIONS_POLL_INTERVAL_MS: '50' });
});
afterAll(() => t?.close());

const sql = <T>(text: string, params: unknown[] = []) =>
  t.app.database.orm.em.getConnection().execute<T[]>(text, params);

it('delivers while a backlog of 20,000 events is still being dispatched', async () => {
  const user = await t.signedInClient();
  const subscription = await user.post('/api/notifications/subscriptions', {
    name: 'Backlog',
    eventType: 'deck.updated',
    channel: 'console',
    channelConfig: {},
  });
  // 20,000 events at once, as a burst of commits leaves them in the outbox: written in a
  // transaction, 2,000 a statement (one statement of all took past the 2 s statement timeout on a
  // loaded machine).
  await t.app.database.orm.em.fork().transactional(async (em) => {
    for (let from = 1; from <= 20_000; from += 2_000) {
      await em.getConnection().execute(
        `insert into event (id, organization_id, event_type, aggregate_type, aggregate_id, occurred_at, payload)
         select gen_random_uuid(), ?, 'deck.updated', 'deck', 'deck-' || g, now(), '{}'::jsonb
           from generate_series(?::int, ?::int) g`,
        [user.organizationId, from, from + 1_999],
        'run',
        em.getTransactionContext(),
      );
    }
  });
  await eventually(
    async () =>
      (
        await sql<{ n: number }>(
          `select count(*)::int as n from notification_delivery where subscription_id = ? and status = 'succeeded'`,
          [subscription.body.id],
        )
      )[0]!.n > 0,
    30_000,
  );
  const [{ undispatched }] = (await sql<{ undispatched: number }>(
    `select count(*)::int as undispatched from event where organization_id = ? and dispatched_at is null`,
    [user.organizationId],
  )) as [{ undispatched: number }];
  expect(undispatched).toBeGreaterThan(0);
}, 60_000);
