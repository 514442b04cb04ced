import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../entities/ids.ts';
import { NotificationSubscription } from '../../entities/NotificationSubscription.ts';
import { applyChanges } from '../changes.ts';
import { recordEvent, SYSTEM_ACTOR } from '../events/events.ts';
import type { AttemptOutcome, DeliveryJob } from '../ports/notifier.ts';
import { earlierPending, uuidArray, wakeNextOfAggregates } from './delivery-order.ts';
import { ATTEMPT_LOG_KEPT } from './delivery-output.ts';
import { retryDelaySeconds } from './retry-policy.ts';
import { SUBSCRIPTION_MAY_READ_EVENT } from './subscription-filter.ts';
import { toSubscriptionOutput } from './subscription-output.ts';

/**
 * Claims up to `limit` due deliveries with a lease (`skip locked`: instances never take the
 * same one; a worker that dies lets its lease lapse and another takes the delivery up).
 * A delivery waits while an earlier one for the same subscription and aggregate is still
 * pending, so each receiver gets an aggregate's events in order.
 *
 * That check must stay a key lookup in `notification_delivery_pending_order_index` whatever
 * the statistics say: in a burst they still count almost no pending rows, and the planner then
 * scanned every pending row for every candidate (1.5 s a claim at 25,000 pending). Hence
 * `completed_at is null` (null exactly while pending), which no status index can serve, and
 * `offset 0`, which keeps the check a subquery run with each candidate's keys.
 *
 * For the same reason the candidates must be read in `next_attempt_at` order from the
 * `(status, next_attempt_at)` index, so that the scan stops after `limit` claimable rows: with
 * stale statistics the planner read every pending row (bitmap scan, order check on each, sort)
 * and a claim cost 25–70 ms at 15,000 pending; with fresh ones it ran the check as a sequential
 * scan. Bitmap scans, sorts and sequential scans are therefore switched off for this one
 * transaction. Deliveries waiting behind an earlier one of their aggregate are not due
 * (`next_attempt_at` infinity, see `dispatchEvents`), so the scan does not walk through them.
 */
export async function claimDueDeliveries(
  em: EntityManager,
  limit: number,
  leaseSeconds: number,
): Promise<DeliveryJob[]> {
  const rows = await em.transactional(async (tx) => {
    await tx.execute(
      `select set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true),
              set_config('enable_seqscan', 'off', true)`,
    );
    const claimed = await tx.execute<any[]>(
      `with claimed as (
       update notification_delivery d set locked_until = now() + make_interval(secs => ?), claim_token = gen_random_uuid()
        where d.id in (
          select c.id from notification_delivery c
           where c.status = 'pending' and c.next_attempt_at <= now()
             and (c.locked_until is null or c.locked_until < now())
             and not ${earlierPending('c')}
           order by c.next_attempt_at limit ? for update skip locked)
       returning d.id, d.claim_token, d.attempts, d.retry_from_attempt, d.subscription_id, d.event_id)
     select c.id as delivery_id, c.claim_token, c.attempts, c.retry_from_attempt, s.id as subscription_id, s.organization_id, s.name, s.channel,
            s.channel_config, s.sealed_secret, s.sealed_previous_secret, s.previous_secret_expires_at, s.is_active, e.id as event_id, e.event_type, e.aggregate_type,
            e.aggregate_id, e.deck_id, e.occurred_at, e.payload, ${SUBSCRIPTION_MAY_READ_EVENT} as readable
       from claimed c
       join notification_subscription s on s.id = c.subscription_id
       join event e on e.id = c.event_id`,
      [leaseSeconds, limit],
    );
    // Read with the subscription's address in one snapshot: where it sends now may no longer
    // receive this event (an admin pointed an owner's subscription elsewhere after it was queued).
    const unreadable = claimed.filter((row) => !row.readable).map((row) => String(row.delivery_id));
    if (unreadable.length > 0) await dropUnreadable(tx, unreadable);
    return claimed.filter((row) => row.readable);
  });
  return rows.map((row) => ({
    deliveryId: row.delivery_id,
    claimToken: row.claim_token,
    attempts: row.attempts,
    retryFromAttempt: row.retry_from_attempt,
    subscription: {
      id: row.subscription_id,
      organizationId: row.organization_id,
      name: row.name,
      channel: row.channel,
      channelConfig: row.channel_config,
      sealedSecrets: {
        sealedSecret: row.sealed_secret,
        sealedPreviousSecret: row.sealed_previous_secret,
        previousSecretExpiresAt: row.previous_secret_expires_at
          ? new Date(row.previous_secret_expires_at)
          : null,
      },
      isActive: row.is_active,
    },
    event: {
      id: row.event_id,
      eventType: row.event_type,
      aggregateType: row.aggregate_type,
      aggregateId: row.aggregate_id,
      deckId: row.deck_id,
      occurredAt: new Date(row.occurred_at),
      payload: row.payload,
    },
  }));
}

/**
 * Claimed deliveries whose event their subscription's access may no longer read: failed
 * without an attempt (nothing is sent), and the next delivery of each aggregate made due.
 */
async function dropUnreadable(tx: EntityManager, deliveryIds: string[]): Promise<void> {
  await tx.execute(
    `update notification_delivery
        set status = 'failed', completed_at = now(), locked_until = null, claim_token = null,
            next_attempt_at = now(), last_status_code = null,
            last_error = 'not sent: the subscription now sends with access that may not read this event'
      where id = any(cast(? as uuid[]))`,
    [uuidArray(deliveryIds)],
  );
  await wakeNextOfAggregates(tx, deliveryIds);
}

export interface DeliveryPolicy {
  /** Delay before each retry; one more attempt than entries, then the delivery fails. */
  retryScheduleSeconds: number[];
  /** A webhook subscription whose deliveries have all failed this long is switched off. */
  disableAfterHours: number;
}

/**
 * Records the attempt and the delivery's new state in one transaction: delivered, retry
 * later (schedule or Retry-After), or failed for good; a 410 also switches the
 * subscription off (with its `notification_subscription.updated` event), and so do failures
 * with no success for `disableAfterHours` (webhooks; `notification_subscription.disabled`).
 */
export async function finishDelivery(
  em: EntityManager,
  job: DeliveryJob,
  outcome: AttemptOutcome,
  { retryScheduleSeconds, disableAfterHours }: DeliveryPolicy,
): Promise<void> {
  await em.transactional(async (tx) => {
    // The subscription first, then its delivery (`lockSubscriptions`); an answer stops its failure
    // clock, as in a batch of successes.
    await lockSubscriptions(tx, [job.subscription.id], { clearFailureClocks: outcome.delivered });
    const subscription =
      outcome.gone || job.subscription.channel === 'webhook'
        ? await tx.findOne(NotificationSubscription, job.subscription.id)
        : null;
    // A claim that lost its lease (another instance took the delivery over) records nothing.
    if ((await recordAttempts(tx, [[job, outcome]], retryScheduleSeconds)).size === 0) return;
    if (!subscription) return;
    if (outcome.gone) {
      if (!applyChanges(subscription, { isActive: false })) return;
      const output = toSubscriptionOutput(subscription);
      recordEvent(
        tx,
        { organizationId: job.subscription.organizationId, actor: SYSTEM_ACTOR },
        'notification_subscription.updated',
        { aggregateId: subscription.id, deckId: output.deckId, payload: output },
      );
    } else {
      await trackWebhookHealth(tx, subscription, job, outcome, disableAfterHours);
    }
  });
}

/**
 * Many finished deliveries at once (the worker collects those that end while a write is under
 * way): every plain success in one transaction (attempts, deliveries and the failure clocks
 * of their subscriptions in one statement each), anything else through `finishDelivery`.
 * The batch holds other deliveries' outcomes, other organizations' among them: should its
 * transaction fail for something one row can cause (a data or constraint error), each is
 * written on its own, so one bad row costs only itself; a database that is down or slow fails
 * the batch once (its leases lapse and the deliveries are sent again), rather than once per
 * row. Throws (an `AggregateError`) when some outcome could not be written.
 */
export async function finishDeliveries(
  em: EntityManager,
  finished: [DeliveryJob, AttemptOutcome][],
  policy: DeliveryPolicy,
): Promise<void> {
  const isPlainSuccess = ([, outcome]: [DeliveryJob, AttemptOutcome]) => outcome.delivered && !outcome.gone;
  const successes = finished.filter(isPlainSuccess);
  let oneByOne = finished.filter((item) => !isPlainSuccess(item));
  if (successes.length > 0) {
    try {
      await em.transactional(async (tx) => {
        // Subscriptions before deliveries (`lockSubscriptions`), their running failure clocks
        // cleared in the same statement: an answer is news of a healthy endpoint, even to a claim
        // that lost its lease (only webhooks ever have a clock running).
        await lockSubscriptions(tx, [...new Set(successes.map(([job]) => job.subscription.id))], {
          clearFailureClocks: true,
        });
        await recordAttempts(tx, successes, policy.retryScheduleSeconds);
      });
    } catch (error) {
      if (!isRowError(error))
        throw new AggregateError([error], 'a batch of delivery outcomes was not written');
      oneByOne = [...successes, ...oneByOne];
    }
  }
  const errors: unknown[] = [];
  for (const [job, outcome] of oneByOne) {
    try {
      await finishDelivery(em.fork(), job, outcome, policy);
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length > 0) throw new AggregateError(errors, `${errors.length} delivery outcomes not written`);
}

/** SQLSTATE classes 22 (data) and 23 (integrity): errors one row can cause. */
function isRowError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

/**
 * The attempts and the deliveries' new state, in one statement each however many there are:
 * delivered, retry later (schedule or Retry-After) or failed for good. Only deliveries still
 * held by the claim that sent them are written (locked first, in id order); a delivery whose
 * lease lapsed and that another instance claimed again, or that was deleted meanwhile, is left
 * to its new owner. A delivery that is done makes the next one of its aggregate due. Answers
 * the ids written.
 */
async function recordAttempts(
  tx: EntityManager,
  finished: [DeliveryJob, AttemptOutcome][],
  retryScheduleSeconds: number[],
): Promise<Set<string>> {
  const locked = await tx.execute<{ id: string }[]>(
    `select d.id from notification_delivery d, ${HELD}
      where ${HELD_BY_CLAIM} order by d.id for update of d`,
    heldParameters(finished.map(([job]) => job)),
  );
  const owned = new Set(locked.map((row) => row.id));
  finished = finished.filter(([job]) => owned.has(job.deliveryId));
  if (finished.length === 0) return owned;
  const rows = finished.map(([job, outcome]) => {
    const attemptNumber = job.attempts + 1;
    const retryIn =
      outcome.delivered || outcome.gone || !job.subscription.isActive
        ? null
        : retryDelaySeconds(
            attemptNumber - job.retryFromAttempt,
            retryScheduleSeconds,
            outcome.retryAfterSeconds,
          );
    const status = outcome.delivered ? 'succeeded' : retryIn === null ? 'failed' : 'pending';
    return { job, outcome, attemptNumber, retryIn: retryIn ?? 0, status };
  });
  // One parameter: the rows as JSON, typed back into columns (any text is safe in it).
  const values = JSON.stringify(
    rows.map(({ job, outcome, attemptNumber, retryIn, status }) => ({
      attempt_id: newId(),
      id: job.deliveryId,
      attempts: attemptNumber,
      status,
      status_code: outcome.statusCode,
      duration_ms: outcome.durationMs,
      error: outcome.error,
      response_body: outcome.responseBody ?? null,
      retry_in: retryIn,
    })),
  );
  await tx.execute(
    `insert into delivery_attempt
       (id, delivery_id, attempt_number, attempted_at, status_code, duration_ms, error, response_body)
     select v.attempt_id, v.id, v.attempts, now(), v.status_code, v.duration_ms, v.error, v.response_body
       from jsonb_to_recordset(cast(? as jsonb))
         as v(attempt_id uuid, id uuid, attempts int, status_code int, duration_ms int, error text, response_body text)`,
    [values],
  );
  // The attempt log keeps the newest ATTEMPT_LOG_KEPT: attempt numbers run without gaps and this
  // claim holds the delivery's row lock, so what lies below the new number minus the bound goes.
  const trimmed = rows.filter(({ attemptNumber }) => attemptNumber > ATTEMPT_LOG_KEPT);
  if (trimmed.length > 0) {
    await tx.execute(
      `delete from delivery_attempt a
        using jsonb_to_recordset(cast(? as jsonb)) as v(id uuid, attempts int)
        where a.delivery_id = v.id and a.attempt_number <= v.attempts - ?`,
      [
        JSON.stringify(
          trimmed.map(({ job, attemptNumber }) => ({ id: job.deliveryId, attempts: attemptNumber })),
        ),
        ATTEMPT_LOG_KEPT,
      ],
    );
  }
  await tx.execute(
    `update notification_delivery d
        set attempts = v.attempts, status = v.status, last_status_code = v.status_code, last_error = v.error,
            locked_until = null, claim_token = null, next_attempt_at = now() + make_interval(secs => v.retry_in),
            completed_at = case when v.status = 'pending' then null else now() end
       from jsonb_to_recordset(cast(? as jsonb))
         as v(id uuid, attempts int, status text, status_code int, error text, retry_in float8)
      where d.id = v.id and d.id = any(cast(? as uuid[]))`,
    // The ids again as an array: the planner then looks them up by key rather than scanning.
    [values, uuidArray(rows.map(({ job }) => job.deliveryId))],
  );
  await wakeNextOfAggregates(tx, [...owned]);
  return owned;
}

/**
 * Auto-disable (api.md): a success clears the subscription's failure clock; the first failure
 * after a success starts it; a failure once it has run `disableAfterHours` switches the
 * subscription off with the reason. A success writes only when the clock was running. The
 * subscription is locked already (`lockSubscriptions`): concurrent failures switch it off once.
 */
async function trackWebhookHealth(
  tx: EntityManager,
  subscription: NotificationSubscription,
  job: DeliveryJob,
  outcome: AttemptOutcome,
  disableAfterHours: number,
): Promise<void> {
  // A success stopped the clock when it locked the subscription (`lockSubscriptions`).
  if (outcome.delivered) return;
  if (!subscription.isActive) return;
  const now = new Date();
  if (!subscription.failingSince) {
    subscription.failingSince = now;
    await tx.flush();
    return;
  }
  if (now.getTime() - subscription.failingSince.getTime() < disableAfterHours * 3_600_000) return;
  applyChanges(subscription, {
    isActive: false,
    disabledReason:
      `Every delivery failed for ${disableAfterHours} hours (since ${subscription.failingSince.toISOString()}); ` +
      `the last: ${outcome.error ?? 'no answer'}`,
  });
  const output = toSubscriptionOutput(subscription);
  recordEvent(
    tx,
    { organizationId: job.subscription.organizationId, actor: SYSTEM_ACTOR },
    'notification_subscription.disabled',
    {
      aggregateId: subscription.id,
      deckId: output.deckId,
      payload: output,
    },
  );
  await tx.flush();
}

/**
 * Locks subscriptions (in id order, so that outcomes written at once cannot deadlock), and clears
 * their running failure clocks when asked. Every outcome takes its subscriptions before its
 * deliveries, the order in which deleting a subscription takes them (the row, then its deliveries
 * by cascade); in the other order the two deadlocked and the delete answered 409. `no key update`:
 * the dispatcher's inserts of new deliveries (which only share the row's key) do not wait for it.
 */
async function lockSubscriptions(
  tx: EntityManager,
  subscriptionIds: string[],
  { clearFailureClocks = false } = {},
): Promise<void> {
  const ids = uuidArray(subscriptionIds);
  if (!clearFailureClocks) {
    await tx.execute(
      `select id from notification_subscription where id = any(cast(? as uuid[])) order by id for no key update`,
      [ids],
    );
    return;
  }
  await tx.execute(
    `with locked as materialized (
       select id, failing_since from notification_subscription
        where id = any(cast(? as uuid[])) order by id for no key update)
     update notification_subscription s set failing_since = null
       from locked where s.id = locked.id and locked.failing_since is not null`,
    [ids],
  );
}

/**
 * Ends the leases of deliveries this instance stops working on (no attempt is recorded), so
 * another instance sends them at once rather than when the lease lapses.
 */
export async function releaseDeliveries(em: EntityManager, jobs: DeliveryJob[]): Promise<void> {
  await em.execute(
    `update notification_delivery d set locked_until = null, claim_token = null
       from ${HELD} where ${HELD_BY_CLAIM}`,
    heldParameters(jobs),
  );
}

/**
 * Extends the leases of deliveries this instance still holds (queued, being sent, or their
 * outcome not yet written), so a lease can be short — what a dead instance's claims wait for —
 * whatever a send takes. Finished deliveries (lease cleared) are left alone, and so is a row that
 * a batch of outcomes holds (`SKIP LOCKED`): that batch clears its lease, and a renewal waiting on
 * it, having locked other rows in another order, could deadlock with it (the batch was then lost
 * and its webhooks sent again). A row skipped is renewed by the next round, well within the lease.
 */
export async function renewDeliveryLeases(
  em: EntityManager,
  claims: Pick<DeliveryJob, 'deliveryId' | 'claimToken'>[],
  leaseSeconds: number,
): Promise<void> {
  await em.execute(
    `update notification_delivery set locked_until = now() + make_interval(secs => ?)
      where id in (select d.id from notification_delivery d, ${HELD}
                    where ${HELD_BY_CLAIM} for update of d skip locked)`,
    [leaseSeconds, ...heldParameters(claims)],
  );
}

/**
 * Claims as rows (`held`: id, token; parameters from `heldParameters`), and the condition that a
 * delivery `d` is pending and still held by that claim: what renewals, outcomes and releases
 * may touch.
 */
const HELD = 'unnest(cast(? as uuid[]), cast(? as uuid[])) as held(id, token)';
const HELD_BY_CLAIM = `d.id = held.id and d.claim_token = held.token and d.status = 'pending'`;
const heldParameters = (claims: Pick<DeliveryJob, 'deliveryId' | 'claimToken'>[]) => [
  uuidArray(claims.map((claim) => claim.deliveryId)),
  uuidArray(claims.map((claim) => claim.claimToken)),
];
