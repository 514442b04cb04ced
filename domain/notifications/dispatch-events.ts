import type { EntityManager } from '@mikro-orm/postgresql';
import { DISPATCH_LOCK, earlierPending } from './delivery-order.ts';
import { SUBSCRIPTION_MATCHES_EVENT } from './subscription-filter.ts';

/**
 * Turns committed events into deliveries, in one statement: takes up to `batch` events the
 * dispatcher has not handled (the outbox: `dispatched_at is null`; `skip locked`, so
 * instances share the work), inserts a delivery for every active subscription that
 * matches (exact type, `<aggregate>.*` or `*`; deck filter), and marks the events handled.
 * Returns how many events it handled.
 *
 * A delivery with an earlier one of its subscription and aggregate still pending (in the table
 * or in this batch) waits: `next_attempt_at` infinity, out of the claim's way, until that one
 * is done (`earlierPending`, `wakeNextOfAggregates`).
 */
export async function dispatchEvents(em: EntityManager, batch = 500): Promise<number> {
  const [row] = await em.execute<{ handled: number }[]>(
    `with gate as (
       -- One dispatcher at a time: another instance's batch, not yet committed, could hold an
       -- earlier event of an aggregate whose later event this one would make due at once.
       -- Busy: this round dispatches nothing (the other instance is at it).
       select pg_try_advisory_xact_lock(${DISPATCH_LOCK}) as open
     ), taken as (
       select id from event where dispatched_at is null and (select open from gate)
        order by occurred_at, id limit ? for update skip locked
     ), matched as (
       select s.id as subscription_id, e.id as event_id, e.event_type,
              e.aggregate_type || ':' || e.aggregate_id as aggregate_key, e.occurred_at as event_occurred_at,
              row_number() over (partition by s.id, e.aggregate_type, e.aggregate_id order by e.occurred_at, e.id) as place
         from taken t
         join event e on e.id = t.id
         join notification_subscription s on s.is_active and ${SUBSCRIPTION_MATCHES_EVENT}
     ), deliveries as (
       insert into notification_delivery
         (id, subscription_id, event_id, event_type, aggregate_key, event_occurred_at,
          status, attempts, next_attempt_at)
       select gen_random_uuid(), m.subscription_id, m.event_id, m.event_type, m.aggregate_key, m.event_occurred_at,
              'pending', 0, case when m.place = 1 and not ${earlierPending('m')} then now() else 'infinity' end
         from matched m
       on conflict (subscription_id, event_id, replay) do nothing
     ), handled as (
       update event set dispatched_at = now() where id in (select id from taken) returning 1
     )
     select count(*)::int as handled from handled`,
    [batch],
  );
  return row?.handled ?? 0;
}
