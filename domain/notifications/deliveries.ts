import type { DomainContext } from '../context.ts';
import { conflict, notFound } from '../errors.ts';
import { hiddenAggregateTypes, type Page } from '../events/event-log.ts';
import { markQueued } from '../queued-work.ts';
import {
  ATTEMPT_LOG_KEPT,
  type DeliveryOutput,
  type DeliveryRow,
  toDeliveryOutput,
} from './delivery-output.ts';
import { findSubscription } from './find-subscription.ts';

/**
 * A delivery as `toDeliveryOutput` reads it: its newest attempts aggregated as JSON, newest first
 * (bounded here too: rows written before the attempt log was trimmed may hold more).
 */
const DELIVERY_COLUMNS = `d.id, d.event_id, d.event_type, d.status, d.attempts, d.next_attempt_at, d.last_status_code,
  d.last_error, d.created_at, d.completed_at,
  coalesce((select json_agg(json_build_object(
      'attempt', a.attempt_number, 'at', a.attempted_at, 'responseStatus', a.status_code,
      'durationMs', a.duration_ms, 'responseBody', a.response_body, 'error', a.error)
      order by a.attempt_number desc)
    from (select * from delivery_attempt where delivery_id = d.id
           order by attempt_number desc limit ${ATTEMPT_LOG_KEPT}) a), '[]') as attempt_log`;

/**
 * The subscription's deliveries, newest first, each with its newest attempts; those of events the
 * caller may not see in the event log (users' below admin, API keys' below owner) left out.
 */
export async function listDeliveries(
  { em, auth }: DomainContext,
  input: { subscriptionId: string; limit: number; offset: number },
): Promise<{ deliveries: DeliveryOutput[]; pagination: Page }> {
  const subscription = await findSubscription(em, auth, input.subscriptionId);
  const hidden = `{${hiddenAggregateTypes(auth).join(',')}}`;
  const visible = `split_part(d.aggregate_key, ':', 1) <> all(cast(? as text[]))`;
  const [rows, [count]] = await Promise.all([
    em.execute<DeliveryRow[]>(
      `select ${DELIVERY_COLUMNS} from notification_delivery d where d.subscription_id = ? and ${visible}
        order by d.created_at desc, d.id desc limit ? offset ?`,
      [subscription.id, hidden, input.limit, input.offset],
    ),
    em.execute<{ total: number }[]>(
      `select count(*)::int as total from notification_delivery d where d.subscription_id = ? and ${visible}`,
      [subscription.id, hidden],
    ),
  ]);
  return {
    deliveries: rows.map(toDeliveryOutput),
    pagination: { total: count!.total, limit: input.limit, offset: input.offset },
  };
}

/**
 * Queues a failed or succeeded delivery again, due now, with the whole retry schedule before it
 * (its attempt log goes on: the next attempt has the next number; the oldest beyond
 * `ATTEMPT_LOG_KEPT` go as new ones are written). A pending delivery is already
 * queued (409), and a switched-off subscription would only fail it again (409). No event: a
 * retry changes no resource, and an event would itself be delivered to every `*` subscription.
 */
export async function retryDelivery(
  { em, auth }: DomainContext,
  deliveryId: string,
): Promise<DeliveryOutput> {
  return em.transactional(async (em) => {
    // Locked: the worker's own update of a finishing attempt and a second retry wait for this one.
    // A delivery the caller may not list (of an event the log hides from it) is missing to it.
    const [found] = await em.execute<{ status: string; is_active: boolean }[]>(
      `select d.status, s.is_active from notification_delivery d
         join notification_subscription s on s.id = d.subscription_id
        where d.id = ? and s.organization_id = ?
          and split_part(d.aggregate_key, ':', 1) <> all(cast(? as text[])) for update of d`,
      [deliveryId, auth.organizationId, `{${hiddenAggregateTypes(auth).join(',')}}`],
    );
    if (!found) throw notFound('Delivery', deliveryId);
    if (found.status === 'pending') throw conflict(`Delivery ${deliveryId} is already queued`);
    if (!found.is_active) {
      throw conflict(`Delivery ${deliveryId} belongs to a switched-off subscription: switch it on first`);
    }
    await em.execute(
      `update notification_delivery
          set status = 'pending', next_attempt_at = now(), locked_until = null, completed_at = null,
              retry_from_attempt = attempts
        where id = ?`,
      [deliveryId],
    );
    markQueued(em, 'deliveries');
    const [row] = await em.execute<DeliveryRow[]>(
      `select ${DELIVERY_COLUMNS} from notification_delivery d where d.id = ?`,
      [deliveryId],
    );
    return toDeliveryOutput(row!);
  });
}
