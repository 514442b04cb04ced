import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AttemptOutcome,
  type DeliveryJob,
  finishDeliveries,
} from '../domain/notifications/delivery-queue.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * Outcomes are written in batches that hold other deliveries' outcomes (other organizations'
 * among them): one that cannot be written must not take the others with it.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

interface DeliveryRow {
  id: string;
  subscription_id: string;
  attempts: number;
  retry_from_attempt: number;
}
const sql = <T>(text: string, params: unknown[] = []) =>
  t.app.database.orm.em.getConnection().execute<T[]>(text, params);
const attemptsOf = async (deliveryId: string) =>
  (
    await sql<{ n: number }>('select count(*)::int as n from delivery_attempt where delivery_id = ?', [
      deliveryId,
    ])
  )[0]!.n;

const ok: AttemptOutcome = { delivered: true, statusCode: 200, error: null, durationMs: 1 };
const failed: AttemptOutcome = {
  delivered: false,
  statusCode: 500,
  error: 'receiver answered 500',
  durationMs: 1,
};

/** Two console subscriptions and one delivered event each: their deliveries' rows and a job for each. */
async function twoDeliveries() {
  const user = await t.signedInClient();
  const subscribe = async (name: string) =>
    (
      await user.post('/api/notifications/subscriptions', {
        name,
        eventType: 'deck.created',
        channel: 'console',
        channelConfig: {},
      })
    ).body.id as string;
  const [a, b] = [await subscribe('A'), await subscribe('B')];
  await user.post('/api/decks', { name: 'Announced' });
  const rows: DeliveryRow[] = await eventually(async () => {
    const found = await sql<DeliveryRow>(
      `select id, subscription_id, attempts, retry_from_attempt from notification_delivery
        where subscription_id in (?, ?) and status = 'succeeded'`,
      [a, b],
    );
    return found.length === 2 ? found : undefined;
  });
  const job = (row: DeliveryRow): DeliveryJob => ({
    deliveryId: row.id,
    attempts: row.attempts,
    retryFromAttempt: row.retry_from_attempt,
    subscription: {
      id: row.subscription_id,
      organizationId: user.organizationId,
      name: 'console',
      channel: 'console',
      channelConfig: {},
      sealedSecrets: { sealedSecret: null, sealedPreviousSecret: null, previousSecretExpiresAt: null },
      isActive: true,
    },
    event: {
      id: row.id,
      eventType: 'deck.created',
      aggregateType: 'deck',
      aggregateId: row.id,
      deckId: null,
      occurredAt: new Date(),
      payload: {},
    },
  });
  const rowA = rows.find((row) => row.subscription_id === a)!;
  const rowB = rows.find((row) => row.subscription_id === b)!;
  return { user, a, jobA: job(rowA), jobB: job(rowB), rowB };
}

describe('writing a batch of delivery outcomes', () => {
  it('a delivery deleted while in flight (its subscription removed) is skipped; the rest of the batch is written', async () => {
    const { user, a, jobA, jobB, rowB } = await twoDeliveries();
    expect((await user.request('DELETE', `/api/notifications/subscriptions/${a}`)).status).toBe(200);
    const before = await attemptsOf(rowB.id);

    await finishDeliveries(
      t.app.database.orm.em.fork(),
      [
        [jobA, ok],
        [jobB, ok],
        [jobB, failed],
      ],
      t.app.services.config.notifications,
    );

    expect(await attemptsOf(rowB.id)).toBe(before + 2);
    expect(await attemptsOf(jobA.deliveryId)).toBe(0);
  });

  it('a batch whose transaction fails is written one by one: only the bad outcome is lost, and said so', async () => {
    const { jobB, rowB } = await twoDeliveries();
    const bad: DeliveryJob = { ...jobB, deliveryId: 'not-a-uuid' };
    const before = await attemptsOf(rowB.id);

    const error = await finishDeliveries(
      t.app.database.orm.em.fork(),
      [
        [bad, ok],
        [jobB, ok],
      ],
      t.app.services.config.notifications,
    ).then(
      () => null,
      (thrown: unknown) => thrown,
    );

    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors).toHaveLength(1);
    expect(await attemptsOf(rowB.id)).toBe(before + 1);
    const [row] = await sql<{ status: string; attempts: number }>(
      'select status, attempts from notification_delivery where id = ?',
      [rowB.id],
    );
    expect(row).toEqual({ status: 'succeeded', attempts: rowB.attempts + 1 });
  });
});
