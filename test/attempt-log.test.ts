import { describe, expect, it } from 'vitest';
import { eventually } from './helpers/webhook-receiver.ts';
import { deliveriesOf, latestDeliveryWhen, subscribe, webhookScenario } from './helpers/webhook-scenario.ts';

/** Issue 29, finding 6: manual retries have no bound, so a delivery's attempt log needs one. */

const { app, receiver } = webhookScenario();

describe('a delivery’s attempt log', () => {
  it('keeps the newest 50 attempts, in the database too, while `attempts` counts them all', async () => {
    const t = await app({ WEBHOOK_RETRY_SCHEDULE_SECONDS: '0.2' });
    const sql = (statement: string, parameters: unknown[]) =>
      t.app.database.orm.em.getConnection().execute(statement, parameters);
    const user = await t.signedInClient();
    const hooks = await receiver(() => ({ status: 500, body: 'x'.repeat(4096) }));
    const subscription = await subscribe(user, hooks.url);
    const deck = (await user.post('/api/decks', { name: 'Down' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, {});
    const failed = await latestDeliveryWhen(user, subscription.id, 'failed');
    expect(failed.attempts).toBe(2);

    // Attempts 3 to 49, as two dozen manual retries leave them: written here rather than waited for.
    await sql(
      `insert into delivery_attempt (id, delivery_id, attempt_number, attempted_at, status_code, duration_ms, error, response_body)
       select gen_random_uuid(), ?, n, now(), 500, 1, 'receiver answered 500', repeat('x', 2048)
         from generate_series(3, 49) n`,
      [failed.id],
    );
    await sql('update notification_delivery set attempts = 49 where id = ?', [failed.id]);

    // Two more manual retries, two attempts each (the schedule starts over): 53 in all.
    for (const expected of [51, 53]) {
      const retried = await user.post(`/api/notifications/deliveries/${failed.id}/retry`);
      expect(retried.status, retried.text).toBe(202);
      await eventually(async () => {
        const [delivery] = (await deliveriesOf(user, subscription.id)).deliveries;
        return delivery.status === 'failed' && delivery.attempts === expected;
      });
    }

    const [delivery] = (await deliveriesOf(user, subscription.id)).deliveries;
    expect(delivery.attempts).toBe(53);
    expect(delivery.attemptLog.map((a: { attempt: number }) => a.attempt)).toEqual(
      Array.from({ length: 50 }, (_, i) => 53 - i),
    );
    const [kept] = await sql(
      'select count(*)::int as n, min(attempt_number) as oldest from delivery_attempt where delivery_id = ?',
      [failed.id],
    );
    expect(kept).toEqual({ n: 50, oldest: 4 });
  });
});
