/**
 * The one rule of delivery order: a delivery waits while an earlier delivery (by the event's
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
