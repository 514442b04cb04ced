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
