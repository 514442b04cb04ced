import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The one rule of delivery order, and the wakes that keep it. A delivery waits while an earlier delivery (by the event's
 * time, then id) of the same subscription and aggregate is pending. As SQL, for the delivery
 * row (or candidate) under `alias` (a fixed name in the statement, never input): true when one
 * is. It is a key lookup in `notification_delivery_pending_order_index` (pending rows only);
 * `offset 0` keeps it a subquery run with each row's keys, whatever the statistics say.
 */
export function earlierPending(alias: 'c' | 'm' | 'w'): string {
  return `exists (
    select 1 from notification_delivery earlier
     where earlier.subscription_id = ${alias}.subscription_id and earlier.aggregate_key = ${alias}.aggregate_key
       and earlier.completed_at is null
       and (earlier.event_occurred_at, earlier.event_id) < (${alias}.event_occurred_at, ${alias}.event_id)
     offset 0)`;
}

/** The advisory lock (a fixed key) that makes dispatchers run one at a time, across instances. */
export const DISPATCH_LOCK = 7_300_120_001;

/**
 * Takes, for the rest of the transaction, one advisory lock per (subscription, aggregate) of the
 * given deliveries, in key order (no deadlock between batches): two transactions finishing
 * deliveries of one group then run their wakes one after the other, the second seeing the
 * first's outcome. Without it each saw the other still pending and neither woke the next.
 */
export const LOCK_GROUPS_OF = `select pg_advisory_xact_lock(k) from (
    select distinct hashtextextended(d.subscription_id::text || '/' || d.aggregate_key, 7300) as k
      from notification_delivery d where d.id = any(cast(? as uuid[]))
     order by k) keys`;

/**
 * Makes due the first pending delivery of each given delivery's subscription and aggregate when
 * it was waiting (`next_attempt_at` infinity): called as deliveries finish, in their transaction.
 * A delivery still pending (to be retried) is its aggregate's first itself: nothing changes.
 */
export async function wakeNextOfAggregates(tx: EntityManager, deliveryIds: string[]): Promise<void> {
  await tx.execute(LOCK_GROUPS_OF, [uuidArray(deliveryIds)]);
  await tx.execute(
    `update notification_delivery w set next_attempt_at = now()
      where w.next_attempt_at = 'infinity'
        and w.id in (
          select (select h.id from notification_delivery h
                   where h.subscription_id = f.subscription_id and h.aggregate_key = f.aggregate_key
                     and h.completed_at is null
                   order by h.event_occurred_at, h.event_id limit 1)
            from notification_delivery f where f.id = any(cast(? as uuid[])))`,
    [uuidArray(deliveryIds)],
  );
}

/**
 * The backstop of `wakeNextOfAggregates`: a delivery made while the one before it was finishing
 * in another transaction may see it pending and wait, while that finish could not see the new
 * one to wake it. Wakes every waiting delivery made since `since` (all of them when null) that
 * no earlier pending one precedes. Cheap: waiting deliveries are indexed by age. Answers how
 * many it woke and the database's time when it looked (`since` for the next sweep: made on the
 * database's clock, as `created_at` is).
 */
export async function wakeWaitingDeliveries(
  em: EntityManager,
  since: Date | null,
): Promise<{ woken: number; at: Date }> {
  const [row] = await em.execute<{ woken: number; at: Date | string }[]>(
    `with woken as (
       update notification_delivery w set next_attempt_at = now()
        where w.next_attempt_at = 'infinity' and w.created_at >= cast(? as timestamptz)
          and not ${earlierPending('w')}
        returning 1)
     select (select count(*)::int from woken) as woken, now() as at`,
    [since ? since.toISOString() : '-infinity'],
  );
  return { woken: row!.woken, at: new Date(row!.at) };
}

/** A PostgreSQL array literal of uuids read from the database: nothing needs quoting. */
export const uuidArray = (ids: string[]) => `{${ids.join(',')}}`;
