import type { DomainContext } from '../context.ts';
import { badRequest, conflict, type Issue } from '../errors.ts';
import { markQueued } from '../queued-work.ts';
import { earlierPending } from './delivery-order.ts';
import { findSubscription } from './find-subscription.ts';
import { SUBSCRIPTION_MATCHES_EVENT } from './subscription-filter.ts';

const DAY_MS = 86_400_000;
/** How far a client's clock may run ahead of ours for an `until` of "now" (it is read as now). */
const CLOCK_SKEW_MS = 60_000;

/**
 * Delivers again every event of [since, until) that the subscription's filter matches, events
 * from before it existed included: new delivery rows (the n-th replay of an event is `replay`
 * n), each carrying the event's id as `webhook-id`, due now. Bounded: `since` at most
 * `maxDays` back (the reach of a replay) and not in the future, `until` after `since` and not
 * in the future (a minute of clock skew allowed), refused (409) while `maxEvents` deliveries of
 * the subscription are still pending, at most `maxEvents` events (a
 * larger window is refused, not cut: the caller narrows it). Nothing is written when refused.
 */
export async function replaySubscription(
  { em, services, auth }: DomainContext,
  input: { subscriptionId: string; since: string; until?: string | undefined },
): Promise<{ queued: number }> {
  const { maxDays, maxEvents } = services.settings.notifications.replay;
  const now = Date.now();
  const since = Date.parse(input.since);
  const until = input.until === undefined ? now : Math.min(Date.parse(input.until), now);
  const issues: Issue[] = [];
  if (since > now) issues.push({ path: ['since'], message: 'must not be in the future' });
  else if (since < now - maxDays * DAY_MS) {
    issues.push({
      path: ['since'],
      message: `must be within the last ${maxDays} days (the reach of a replay)`,
    });
  }
  // Only a given `until` is judged: the default (now) is not the caller's mistake.
  if (input.until !== undefined) {
    if (Date.parse(input.until) > now + CLOCK_SKEW_MS) {
      issues.push({ path: ['until'], message: 'must not be in the future (leave it out to mean now)' });
    } else if (Date.parse(input.until) <= since) {
      issues.push({ path: ['until'], message: 'must be later than since' });
    }
  }
  if (issues.length > 0) throw badRequest('The replay window is not valid: see issues', issues);

  return em.transactional(async (em) => {
    // Locked: concurrent replays of one subscription number their rows one after the other.
    const subscription = await findSubscription(em, auth, input.subscriptionId, { lock: true });
    if (!subscription.isActive) {
      throw conflict(`Subscription ${subscription.id} is switched off: switch it on before replaying`);
    }
    // Replays queue behind what is still pending; past a bound they would only grow the table
    // (a receiver that is down, replayed again and again): the caller waits for the queue.
    const [pending] = await em.execute<{ n: number }[]>(
      `select count(*)::int as n from (select 1 from notification_delivery
         where subscription_id = ? and completed_at is null limit ?) bounded`,
      [subscription.id, maxEvents],
    );
    if (pending!.n >= maxEvents) {
      throw conflict(
        `Subscription ${subscription.id} has ${maxEvents} or more deliveries pending: replay once they are delivered`,
      );
    }
    const window = [subscription.id, new Date(since).toISOString(), new Date(until).toISOString()];
    const matching = `from event e join notification_subscription s on s.id = ? and ${SUBSCRIPTION_MATCHES_EVENT}
      where e.occurred_at >= ? and e.occurred_at < ?`;
    // Counted only up to one past the bound: a huge window costs no more than an allowed one.
    const [counted] = await em.execute<{ n: number }[]>(
      `select count(*)::int as n from (select 1 ${matching} limit ?) bounded`,
      [...window, maxEvents + 1],
    );
    if (counted!.n > maxEvents) {
      throw badRequest(`More than ${maxEvents} events match this window: replay a shorter one`, [
        { path: ['since'], message: `the window holds more than ${maxEvents} matching events` },
      ]);
    }
    const [row] = await em.execute<{ queued: number }[]>(
      // As in dispatchEvents: of one aggregate, only the first (with nothing earlier pending) is due.
      `with matched as (
         select s.id as subscription_id, e.id as event_id, e.event_type,
                e.aggregate_type || ':' || e.aggregate_id as aggregate_key, e.occurred_at as event_occurred_at,
                row_number() over (partition by e.aggregate_type, e.aggregate_id order by e.occurred_at, e.id) as place
           ${matching}
       ), queued as (
         insert into notification_delivery
           (id, subscription_id, event_id, event_type, aggregate_key, event_occurred_at,
            status, attempts, next_attempt_at, replay)
         select gen_random_uuid(), m.subscription_id, m.event_id, m.event_type, m.aggregate_key, m.event_occurred_at,
                'pending', 0, case when m.place = 1 and not ${earlierPending('m')} then now() else 'infinity' end,
                (select coalesce(max(d.replay), 0) + 1 from notification_delivery d
                  where d.subscription_id = m.subscription_id and d.event_id = m.event_id)
           from matched m
         returning 1)
       select count(*)::int as queued from queued`,
      window,
    );
    if (row!.queued > 0) markQueued(em, 'deliveries');
    return { queued: row!.queued };
  });
}
